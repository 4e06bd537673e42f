"""Forcing rows for the k-determinism MIP P(k): valid inequalities linking the value to the determinism binaries.

Let ``phi[ja]`` be the Nash LP's value with decision point ``j`` playing ``a`` whenever it is reached
(:func:`forcing_values`, one LP per sequence, from a :class:`~gamelp.models.kdet_search.KdetSearch`).  If
``j`` is pure on ``a`` the value is at most ``phi[ja]``, so P(k) stays valid with one more row per decision
point, ``value + sum_a (LP - phi[ja]) z[ja] <= LP`` (:func:`add_forcing_rows`); and since P(k) makes ``k``
points pure, each capping the value at its best ``phi``, the ``k``-th largest ``max_a phi[ja]`` bounds P(k)'s
optimum (:func:`single_forcing_bound`).  ``scripts/bench/bench_kdet_scip.py`` measures what the rows do to
HiGHS's and SCIP's bounds.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from gamelp.models.kdet_search import UNDECIDED, KdetSearch


def forcing_values(search: KdetSearch) -> np.ndarray:
    """``phi[ja]`` per sequence ``ja`` (the empty sequence left out): the Nash LP with ``j`` playing ``a``."""
    own = search.own
    phi = np.empty(own.num_sequences - 1)
    for s in range(1, own.num_sequences):
        choice = np.full(own.num_decision_points, UNDECIDED)
        choice[own.decision_point_of[s]] = s - own.starts[own.decision_point_of[s]]
        phi[s - 1] = search.lp.solve(choice)[0]
    return phi


def single_forcing_bound(own, phi: np.ndarray, k: int, nash_value: float) -> float:
    """The ``k``-th largest ``max_a phi[ja]``: P(k) makes ``k`` points pure, each caps the value at its ``phi``."""
    best = np.maximum.reduceat(phi, own.starts - 1)
    return float(np.sort(best)[::-1][k - 1]) if k else nash_value


LOSS_NOISE = 1e-12
"""Losses ``LP - phi`` below this (relative to the LP value) are rounding, not a loss."""


def add_forcing_rows(model, own, phi: np.ndarray, nash_value: float) -> None:
    """Add to the P(k) ``model`` one row per decision point ``j``: ``value + sum_a (LP - phi[ja]) z[ja] <= LP``.

    Valid for P(k): if ``j`` plays ``a`` whenever reached the value is at most
    ``phi[ja]``, else every ``z[ja]`` of ``j`` is 0 and the row is the LP bound.
    A loss within rounding of 0 (``LOSS_NOISE`` relative to the LP value) is 0: a smaller coefficient only
    weakens a valid row, where a coefficient of 1e-17 beside the value's 1 is beyond what solvers resolve.
    """
    sequences = np.arange(1, own.num_sequences)
    loss = np.maximum(nash_value - phi, 0.0)
    loss[loss <= LOSS_NOISE * max(1.0, abs(nash_value))] = 0.0
    value_row = model.objective["v"][None, :]
    model.add_constraints(
        "forcing_cap",
        {
            "v": np.repeat(value_row, own.num_decision_points, axis=0),
            "z": sp.csr_matrix(
                (loss, (own.decision_point_of[sequences], sequences - 1)),
                shape=(own.num_decision_points, sequences.size),
            ),
        },
        "<=",
        nash_value,
    )
