"""Large matrix games by first-order self-play, with an exact vertex from a support-seeded LP.

:func:`solve_matrix_first_order` runs a regret-minimisation self-play method
of :mod:`gamelp.regret` (default ``pcfr+``: predictive RM+ with alternating
updates and quadratic averaging, Farina, Kroer & Sandholm 2021) on the payoff
matrix ``C`` of a :class:`~gamelp.matrix.MatrixGame`; each iteration costs
two matrix-vector products, ``C y`` and ``x^T C``, in numpy.  It stops at a
target saddle-point gap ``max_i (C y)_i - min_j (x^T C)_j``.  On a matrix of
at least ``FLOAT32_ENTRIES`` entries the products read a float32 copy of
``C`` (half the memory traffic) until the gap reaches the target; that gap is
measured again in float64, and the run goes on in float64 if it misses.

With ``exact=True`` the approximate equilibrium seeds a small LP (a double
oracle, McMahan, Gordon & Blum 2003): the Nash LP is solved on the rows and
columns whose weight in ``x`` and ``y`` is at least ``SUPPORT_FRACTION`` of
the largest, plus their best responses; rows
that beat the restricted value against the LP's column strategy, and
columns that do worse than it against its row strategy, are added and the
LP solved again, until the restricted equilibrium is an equilibrium of the
whole game (gap at most ``EXACT_TOLERANCE``, or no row or column left to add:
the rest is the LP solver's own tolerance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gamelp.backends import DEFAULT_BACKEND
from gamelp.display import Raw, Summarised, matrix_strategy_frame, result_summary, shape_text
from gamelp.errors import SolveError
from gamelp.matrix import MatrixGame
from gamelp.models.nash import opponent_of, player_labels, solve_matrix_nash
from gamelp.regret import solve_regret
from gamelp.units import payoff_range

EXACT_TOLERANCE = 1e-9  # saddle-point gap accepted as exact from the support-seeded LP
SUPPORT_FRACTION = 1e-2  # first-order weights above this fraction of the largest seed the LP's support
# Matrices with at least this many entries (n = 1000 squared: 8 MB in float64, past the caches) multiply in float32.
FLOAT32_ENTRIES = 1_000_000


@dataclass(repr=False)
class FirstOrderResult(Summarised):
    """Both strategies of a matrix game from first-order self-play (and, if asked, the seeded LP)."""

    game: MatrixGame
    method: str
    value: float  # the row player's payoff x^T C y
    gap: float  # saddle-point gap of (x, y)
    row_strategy: np.ndarray
    col_strategy: np.ndarray
    iterations: int
    converged: bool  # the first-order run reached its target gap
    lp_rounds: int = 0  # LPs solved on growing supports (0: no exact step)
    lp_shape: tuple[int, int] | None = None  # rows x columns of the last restricted LP
    lp_backend: str | None = None  # the backend of the support LPs (None: no exact step)
    solver_version: str | None = None  # its solver's version

    @property
    def strategy(self) -> np.ndarray:
        """The row player's strategy (``value`` is the row player's payoff)."""
        return self.row_strategy

    def _summary(self) -> dict:
        return {
            **result_summary(self, self.gap, game=Raw(shape_text(self.game.shape)), method=self.method),
            "status": "converged" if self.converged else "iteration_limit",
            "iterations": self.iterations,
            "lp_rounds": self.lp_rounds or None,
            "lp_backend": self.lp_backend,
        }

    def _entries(self):
        return "row strategy", self.strategy_dict().items()

    def to_frame(self):
        """Both strategies by label as a pandas DataFrame: player, action, probability."""
        return matrix_strategy_frame(self.game, self.row_strategy, self.col_strategy)

    def strategy_dict(self, player: str = "row") -> dict[str, float]:
        """Label -> probability for ``player`` ("row" or "col"), zeros included."""
        strategy = self.row_strategy if player == "row" else self.col_strategy
        return dict(zip(player_labels(self.game, player), strategy.tolist()))

    def to_dict(self, player: str = "row") -> dict:
        """JSON-ready summary from ``player``'s side: value, gap, status, the method and both strategies.

        ``backend`` is the method; ``lp_backend`` and ``solver_version`` name the support LPs' backend
        and solver (None when no exact step ran).
        """
        return {
            "value": self.value,
            "status": "converged" if self.converged else "iteration_limit",
            "backend": self.method,
            "lp_backend": self.lp_backend,
            "solver_version": self.solver_version,
            "player": player,
            "gap": self.gap,
            "iterations": self.iterations,
            "guaranteed_value": self.value - self.gap,
            "lp_rounds": self.lp_rounds,
            "strategy": self.strategy_dict(player),
            "opponent_strategy": self.strategy_dict(opponent_of(player)),
        }


def saddle_point_gap(C: np.ndarray, x: np.ndarray, y: np.ndarray) -> float:
    """``max_i (C y)_i - min_j (x^T C)_j``: 0 exactly at an equilibrium of the matrix game."""
    return float((C @ y).max() - (x @ C).min())


def solve_matrix_first_order(
    game: MatrixGame,
    method: str = "pcfr+",
    *,
    target_gap: float = 1e-6,
    iterations: int = 100_000,
    exact: bool = False,
    backend: str = DEFAULT_BACKEND,
    progress=None,
    float32: bool | None = None,
) -> FirstOrderResult:
    """Self-play ``method`` on ``game`` to ``target_gap`` (relative to the payoff range); ``exact`` polishes by LP.

    ``float32``: products in float32 until the target, checked in float64 (default: from ``FLOAT32_ENTRIES`` up).
    """
    C = game.payoffs
    if float32 is None:
        float32 = C.size >= FLOAT32_ENTRIES
    # The dense path averages the utility vectors, so a gap check costs O(n): check every iteration.
    run = solve_regret(
        C,
        method,
        iterations,
        target_gap=target_gap,
        track_last=False,  # pragma: no mutate: the last iterates are not part of the result (memory only)
        progress=progress,
        check_every=1,
        float32=float32,
    )
    result = FirstOrderResult(game, method, run.value, run.gap, run.x, run.y, run.iterations, run.converged)
    return support_lp(result, backend) if exact else result


def support_lp(
    start: FirstOrderResult, backend: str = DEFAULT_BACKEND, max_rounds: int | None = None
) -> FirstOrderResult:
    """Exact equilibrium from an approximate one: the Nash LP on growing supports (double oracle).

    The tolerance (``EXACT_TOLERANCE``) is relative to the payoff range (:func:`gamelp.units.payoff_range`).
    A round either ends or adds a row or a column, so rows + columns rounds always suffice (the default cap).
    """
    game, C = start.game, start.game.payoffs
    max_rounds = sum(C.shape) if max_rounds is None else max_rounds
    tolerance = EXACT_TOLERANCE * payoff_range(C)
    margin = tolerance / 2  # pragma: no mutate: rows and columns this far off are added (any fraction < 1)
    x, y = start.row_strategy, start.col_strategy
    rows = np.union1d(np.flatnonzero(x > SUPPORT_FRACTION * x.max()), [int(np.argmax(C @ y))])
    cols = np.union1d(np.flatnonzero(y > SUPPORT_FRACTION * y.max()), [int(np.argmin(x @ C))])
    for round_ in range(1, max_rounds + 1):
        restricted = solve_matrix_nash(game.submatrix(rows, cols), "row", backend)
        x, y = np.zeros(C.shape[0]), np.zeros(C.shape[1])
        x[rows], y[cols] = restricted.row_strategy, restricted.col_strategy
        row_values, col_values = C @ y, x @ C
        gap = float(row_values.max() - col_values.min())
        grown_rows = np.union1d(rows, np.flatnonzero(row_values > restricted.value + margin))
        grown_cols = np.union1d(cols, np.flatnonzero(col_values < restricted.value - margin))
        if gap <= tolerance or (grown_rows.size == rows.size and grown_cols.size == cols.size):
            # Nothing left to add: what remains of the gap is the LP solver's own tolerance.
            return FirstOrderResult(
                game,
                start.method,
                float(x @ row_values),
                gap,
                x,
                y,
                start.iterations,
                start.converged,
                round_,
                (rows.size, cols.size),
                restricted.solution.backend,
                restricted.solution.solver_version,
            )
        rows, cols = grown_rows, grown_cols
    raise SolveError(
        f"support LP: still a gap of {gap:.2e} after {max_rounds} rounds ({rows.size} rows, {cols.size} columns)"
    )
