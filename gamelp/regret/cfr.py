"""The CFR family on treeplexes: counterfactual regret minimisation with a pluggable local minimiser.

A treeplex is a player's sequence-form polytope: ``x[empty] = 1`` and, at every
decision point ``j`` with parent sequence ``p_j``, ``sum_a x[ja] = x[p_j]``.
CFR (Zinkevich, Johanson, Bowling & Piccione 2007, "Regret minimization in
games with incomplete information", NIPS, Section 3) is the laminar regret
decomposition: one simplex minimiser per decision point
(:mod:`gamelp.regret.simplex`), fed with the counterfactual utilities

    q[ja] = g[ja] + sum_{j' below ja} V[j'],     V[j] = sum_a b[ja] q[ja],

of the sequence-form utility ``g`` and the local strategies ``b``; the
strategy played is ``x[ja] = b[ja] x[p_j]``.  The sequences are renumbered
level by level (:class:`TreeplexLevels`), so a parent comes before its
children and a depth is one slice: the top-down and bottom-up passes are one
loop each, in C (``_kernels.c``; its numpy twins where it is not built:
:mod:`gamelp.regret.kernels`), and the local minimisers update every
decision point at once.  An iteration costs a few dozen calls whatever the
number of points.

The members of the family differ in the local rule, and in the alternation
and averaging that self-play (:mod:`gamelp.regret.selfplay`, its ``METHODS``)
pairs with them:

* CFR: regret matching (Zinkevich et al. 2007), simultaneous updates, uniform average;
* CFR+: RM+ with alternating updates and linear averaging (Tammelin 2014,
  arXiv:1407.5042; Tammelin, Burch, Johanson & Bowling 2015, "Solving heads-up
  limit Texas hold'em", IJCAI);
* DCFR: discounted RM (alpha = 1.5, beta = 0) with quadratic averaging,
  weights ``t^2`` (Brown & Sandholm 2019, AAAI, the section on Discounted CFR:
  the paper's gamma = 2);
* PCFR+: predictive RM+ with quadratic averaging (Farina, Kroer & Sandholm
  2021, AAAI) and the counterfactual prediction of Farina, Kroer, Brown &
  Sandholm (2019, "Stable-predictive optimistic counterfactual regret
  minimization", ICML): the last utility ``g^{t-1}`` is pushed bottom-up
  through the *new* local strategies of the points below, so each level's
  strategies are picked before the level above (:class:`PredictiveCFR`);
* DCFR+ and PDCFR+: discounted RM+ with weights ``t^4`` and its predictive
  form with weights ``t^5`` (Xu, Li, Liu, Fu, Fu, Xing & Cheng 2024, IJCAI:
  their gamma); on a treeplex PDCFR+ averages with ``t^20``, which reaches a
  gap of 1e-6 on Leduc in 36% fewer iterations.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import gamelp.regret.kernels as kernels
from gamelp.regret.simplex import (
    DEFAULT_ETA,
    PRM_PLUS,
    LocalRule,
    PredictiveRegretMatchingPlus,
    RegretMatching,
    RegretMinimiser,
    Segments,
    local_minimiser,
    prm_plus_strategy,
)
from gamelp.treeplex import Treeplex


class _Level(NamedTuple):
    """The decision points of one depth, in level order: a slice of sequences below a slice of parents."""

    here: slice  # this depth's sequences (level positions)
    above: slice  # the depth above (the empty sequence, position 0, for depth 0)
    parent_slot: np.ndarray  # per sequence: its decision point's parent, counted from above.start
    point_parent_slot: np.ndarray  # per decision point: its parent, counted from above.start
    segments: Segments  # the decision points' simplices inside ``here``
    parents: int  # the size of ``above``


class TreeplexLevels:
    """Depth-level layout of a treeplex for vectorised top-down and bottom-up passes.

    The sequences are renumbered in *level order*: the empty sequence, then
    the actions of the decision points of depth 0, of depth 1, ...  A decision
    point's parent sequence belongs to the depth just above it, so each depth
    is one slice and a parent comes before its children: a pass is one loop
    in C over ``parent_position``, or a few numpy calls per depth, with no
    Python loop over decision points.  ``order[k]`` is the original index of level
    position ``k``; :meth:`to_levels` and :meth:`to_original` convert vectors.
    All other methods take and return vectors in level order.
    """

    def __init__(self, treeplex: Treeplex):
        self.num_sequences = treeplex.num_sequences
        parents, starts, ends = treeplex.parents, treeplex.starts, treeplex.ends
        depth = np.zeros(treeplex.num_decision_points)  # counts, compared and maxed only
        owner = treeplex.decision_point_of
        for j, p in enumerate(parents):  # top-down order: a parent's depth is known
            depth[j] = 0 if p == 0 else depth[owner[p]] + 1
        by_depth = [np.flatnonzero(depth == d) for d in range(int(depth.max()) + 1)]
        points = np.concatenate(by_depth)
        self.order = np.concatenate([[0]] + [np.arange(starts[j], ends[j]) for j in points])
        self.rank = np.empty_like(self.order)
        self.rank[self.order] = np.arange(self.order.size)
        sizes = ends[points] - starts[points]
        # Local simplices over all level positions: the empty sequence is a singleton, then one per point.
        point_starts = 1 + np.concatenate(([0], np.cumsum(sizes)[:-1]))
        self.segments = Segments(np.concatenate(([0], point_starts)), np.concatenate(([1], point_starts + sizes)))
        self.levels = []
        self.parent_position = np.zeros(self.num_sequences, dtype=np.int64)  # per level position; 0 for the root
        self.kernels = kernels.implementation()  # C, or numpy where the extension is not built
        first_point, up_lo = 0, 0
        up_hi = 1  # pragma: no mutate: depth 0 hangs below the empty sequence; a wider range would only add zeros
        for level_points in by_depth:
            count = level_points.size
            lo, hi = (
                int(point_starts[first_point]),
                int(point_starts[first_point + count - 1] + sizes[first_point + count - 1]),
            )
            level_sizes = sizes[first_point : first_point + count]
            point_parent_slot = self.rank[parents[level_points]] - up_lo
            self.levels.append(
                _Level(
                    slice(lo, hi),
                    slice(up_lo, up_hi),
                    np.repeat(point_parent_slot, level_sizes),
                    point_parent_slot,
                    Segments(
                        point_starts[first_point : first_point + count] - lo,
                        point_starts[first_point : first_point + count] - lo + level_sizes,
                    ),
                    up_hi - up_lo,
                )
            )
            self.parent_position[lo:hi] = np.repeat(point_parent_slot + up_lo, level_sizes)
            first_point, up_lo, up_hi = first_point + count, lo, hi

    def to_levels(self, v: np.ndarray) -> np.ndarray:
        """A vector indexed by the treeplex's sequences, in level order."""
        return v[self.order]

    def to_original(self, v: np.ndarray) -> np.ndarray:
        """A level-order vector back in the treeplex's sequence order."""
        return v[self.rank]

    def sequence_form(self, behaviour: np.ndarray) -> np.ndarray:
        """Sequence-form strategy of local strategies ``behaviour`` (level order), top-down."""
        x = np.empty(self.num_sequences)
        self.kernels.sequence_form(self.parent_position, behaviour, x)
        return x

    def counterfactual_values(self, utility: np.ndarray, behaviour: np.ndarray) -> np.ndarray:
        """``q[s] = utility[s] + sum`` of the values ``V[j] = sum_a b[ja] q[ja]`` of the points below ``s``."""
        q = np.empty(self.num_sequences)
        self.kernels.counterfactual_values(
            self.parent_position, behaviour, np.ascontiguousarray(utility, dtype=float), q
        )
        return q

    def best_response_value(self, utility: np.ndarray) -> float:
        """``max_x utility . x`` over the treeplex (bottom-up maxima)."""
        q = np.array(utility, dtype=float)
        for level in reversed(self.levels):
            best = np.maximum.reduceat(q[level.here], level.segments.starts)
            q[level.above] += np.bincount(level.point_parent_slot, best, level.parents)
        return float(q[0])


class CFR(RegretMinimiser):
    """Counterfactual regret minimisation on a treeplex with a pluggable local minimiser.

    ``next_strategy()`` returns a sequence-form strategy; ``observe_utility(g)``
    takes the sequence-form utility vector (``A y`` for player 1), computes the
    counterfactual utilities bottom-up and feeds every decision point's local
    minimiser at once.  ``local`` is a :class:`~gamelp.regret.simplex.LocalRule` or the name
    of one in ``LOCAL_MINIMISERS``.  Vectors are in the treeplex's sequence order, or in
    the level order of :class:`TreeplexLevels` with ``level_order=True`` (what
    self-play uses, on a payoff matrix permuted once).
    """

    def __init__(
        self,
        treeplex: Treeplex | TreeplexLevels,
        local: str | LocalRule = "rm+",
        *,
        eta: float = DEFAULT_ETA,
        level_order: bool = False,
    ):
        self.levels = treeplex if isinstance(treeplex, TreeplexLevels) else TreeplexLevels(treeplex)
        self.local = local_minimiser(local, self.levels.segments, eta=eta)
        self.level_order = level_order
        self.behaviour: np.ndarray | None = None  # the local strategies, in level order (None: none yet)

    @property
    def regrets(self) -> np.ndarray:
        """The local minimisers' cumulative regrets, in the treeplex's sequence order."""
        local = self.local
        if not isinstance(local, RegretMatching):
            raise AttributeError(f"the local minimiser {type(local).__name__} keeps no regrets")
        return self.levels.to_original(local.regrets)

    def _out(self, x: np.ndarray) -> np.ndarray:
        return x if self.level_order else self.levels.to_original(x)

    def _pick_behaviour(self) -> np.ndarray:
        """The next local strategies (level order), remembered as ``behaviour``."""
        self.behaviour = behaviour = self.local.next_strategy()
        return behaviour

    def next_strategy(self) -> np.ndarray:
        """The next sequence-form strategy, from the local regret minimisers' behaviour."""
        return self._out(self.levels.sequence_form(self._pick_behaviour()))

    def observe_utility(self, utility: np.ndarray) -> None:
        """Feed the utility of each sequence to the local minimisers as counterfactual values."""
        behaviour = self._pick_behaviour() if self.behaviour is None else self.behaviour
        g = utility if self.level_order else self.levels.to_levels(utility)
        self.local.observe_utility(self.levels.counterfactual_values(g, behaviour))


class PredictiveCFR(CFR):
    """PCFR+ (Farina, Kroer & Sandholm 2021): PRM+ at every decision point of a treeplex.

    The prediction is the last sequence-form utility ``g^{t-1}``; its
    counterfactual values are taken through the new local strategies, so
    ``next_strategy()`` picks them level by level from the bottom up
    (Farina, Kroer, Brown & Sandholm 2019).
    """

    def __init__(self, treeplex: Treeplex | TreeplexLevels, *, level_order: bool = False):
        super().__init__(treeplex, PRM_PLUS, level_order=level_order)
        prm = self.local
        if not isinstance(prm, PredictiveRegretMatchingPlus):  # what PRM_PLUS builds
            raise TypeError(f"PCFR+ needs PRM+ at every decision point, got {type(prm).__name__}")
        self.prm = prm  # self.local, typed as PRM+
        self.prediction = np.zeros(self.levels.num_sequences)  # level order

    def _pick_behaviour(self) -> np.ndarray:
        prm = self.prm
        behaviour = np.ones(self.levels.num_sequences)
        q = self.prediction.copy()
        for level in reversed(self.levels.levels):
            here, above = level.here, level.above
            behaviour[here] = prm_plus_strategy(level.segments, prm.regrets[here], q[here], prm._strategy[here])
            q[above] += np.bincount(level.parent_slot, behaviour[here] * q[here], level.parents)
        self.behaviour = prm._strategy = behaviour
        return behaviour

    def observe_utility(self, utility: np.ndarray) -> None:
        """Observe ``utility`` as CFR does and keep it as the prediction for the next strategy."""
        super().observe_utility(utility)
        self.prediction = np.array(utility if self.level_order else self.levels.to_levels(utility), dtype=float)
