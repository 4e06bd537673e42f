"""Regret minimisation as a first-order solver for zero-sum games.

Three modules, one job each:

* :mod:`gamelp.regret.simplex`: regret minimisers on simplices, vectorised over
  many at once (MWU, OMWU, RM, RM+ and the local rules DRM, PRM+, DRM+, PDRM+),
  each described by its flags (:class:`LocalRule`);
* :mod:`gamelp.regret.cfr`: the CFR family on treeplexes (CFR, CFR+, DCFR,
  PCFR+, DCFR+, PDCFR+): one local minimiser per decision point, fed
  counterfactual utilities, all points of a depth updated at once;
* :mod:`gamelp.regret.selfplay`: self-play of two minimisers on a payoff matrix
  or a sequence-form game, with averaging, alternation and saddle-point gaps;
  its methods (CFR+, PDCFR+, ...) are data, one :class:`Method` each.

The public names of all three are re-exported here.
"""

from gamelp.errors import RegretError
from gamelp.regret.cfr import CFR, PredictiveCFR, TreeplexLevels
from gamelp.regret.selfplay import (
    AVERAGING,
    CHECK_EVERY,
    METHODS,
    PROGRESS_EVERY,
    Method,
    RegretResult,
    self_play_matrix,
    solve_regret,
)
from gamelp.regret.simplex import (
    LOCAL_MINIMISERS,
    MWU,
    OMWU,
    DiscountedRegretMatching,
    DiscountedRegretMatchingPlus,
    LocalRule,
    PredictiveDiscountedRegretMatchingPlus,
    PredictiveRegretMatchingPlus,
    RegretMatching,
    RegretMatchingPlus,
    RegretMinimiser,
    Segments,
    local_minimiser,
)

__all__ = [
    "AVERAGING",
    "CFR",
    "CHECK_EVERY",
    "LOCAL_MINIMISERS",
    "METHODS",
    "MWU",
    "OMWU",
    "PROGRESS_EVERY",
    "DiscountedRegretMatching",
    "DiscountedRegretMatchingPlus",
    "LocalRule",
    "Method",
    "PredictiveCFR",
    "PredictiveDiscountedRegretMatchingPlus",
    "PredictiveRegretMatchingPlus",
    "RegretError",
    "RegretMatching",
    "RegretMatchingPlus",
    "RegretMinimiser",
    "RegretResult",
    "Segments",
    "TreeplexLevels",
    "local_minimiser",
    "self_play_matrix",
    "solve_regret",
]
