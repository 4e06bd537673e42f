"""Payoff units: the one scaling step every model path goes through.

A positive factor on every payoff changes no equilibrium strategy, only the
values.  Solvers, though, work with absolute tolerances and drop tiny
coefficients (HiGHS: below 1e-9), so a game in the wrong currency (payoffs
times 1e-12 or 1e12) gets wrong values, refusals or flipped verdicts.  Every
path that builds a model or runs a first-order method from a game's payoffs
therefore divides them by the *payoff range* (the largest payoff magnitude,
:func:`payoff_range`), works on payoffs in [-1, 1], and multiplies values,
bounds and gaps back by the range.  On a sequence-form game the range is the largest entry of ``A``, a payoff
times the chance probability of reaching it, not the largest payoff at a terminal (the file does not keep those):
two files of one game that split its chance moves differently have different ranges (Leduc: 0.867 built in,
0.108 from OpenSpiel, which deals suits apart).  Tolerances and gaps that a user gives
(``--target-gap``, ``--abs-gap``) are read relative to the payoff range.

The LP backends also balance every model they solve
(:mod:`gamelp.backends.scaling`, Curtis-Reid); this game-level step is what
the paths that bypass them (the k-determinism search's own HiGHS model, the
written LP/MPS file and the regret methods' gaps) have in common with them.
Mangasarian's uniqueness test (:mod:`gamelp.models.uniqueness`) takes the
other route: it reads its tolerances on the solved LP balanced as the
backends balance it, and reports in the game's own units.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from gamelp.backends.scaling import WELL_SCALED_HIGH, WELL_SCALED_LOW

if TYPE_CHECKING:
    from gamelp.game import SequenceFormGame


def payoff_range(payoffs: Any) -> float:
    """The largest payoff magnitude of a matrix (dense or sparse); 1.0 for a game of zeros."""
    sparse = sp.issparse(payoffs)
    matrix: Any = payoffs
    data = matrix.data if sparse else np.asarray(matrix, dtype=float)
    largest = float(np.max(np.abs(data), initial=0.0))
    return largest if largest > 0 and np.isfinite(largest) else 1.0


def normalised(game: SequenceFormGame, *, when_needed: bool = False) -> tuple[SequenceFormGame, float]:
    """``game`` with its payoffs divided by their range, and the range (multiply values by it to undo).

    ``when_needed``: leave a game whose range is already within [``WELL_SCALED_LOW``,
    ``WELL_SCALED_HIGH``] (of :mod:`gamelp.backends.scaling`) as it is, with factor 1 (an exported
    model then stays in the game's own units).
    """
    unit = payoff_range(game.A)
    if when_needed and WELL_SCALED_LOW <= unit <= WELL_SCALED_HIGH:
        return game, 1.0
    if unit == 1.0:
        return game, unit
    return replace(game, A=(game.A / unit).tocsr()), unit
