"""Self-play: two regret minimisers against each other on a zero-sum game.

:func:`solve_regret` runs one minimiser per player on a payoff matrix ``M``
(player 1, rows, gets ``x^T M y``; each player's space is a simplex, the
minimisers of :mod:`gamelp.regret.simplex`) or on a
:class:`~gamelp.game.SequenceFormGame` (``x^T A y`` over sequence-form
strategies; each player's space is a treeplex, CFR of :mod:`gamelp.regret.cfr`
with the method's local rule).  At iteration ``t`` player 1 observes
``A y^t``, player 2 observes ``-A^T x^t``, or ``-A^T x^{t+1}`` with
alternating updates (Tammelin, Burch, Johanson & Bowling 2015).  The output is
the weighted average ``sum_t t^gamma x^t / sum_t t^gamma`` (gamma 0: uniform,
1: linear, 2: quadratic; Brown & Sandholm 2019 for the weighted averages), the
last iterates, and the saddle-point gap

    gap(x, y) = max_x' x'^T A y - min_y' x^T A y',

measured every ``check_every`` iterations.  By the folk theorem of regret
minimisation the gap of the uniform
average is at most the players' summed average regrets.  :data:`METHODS`
names each scheme, a :class:`Method`: its local rule, alternation and averaging, as data.
:func:`self_play_matrix` keeps every iterate of a matrix run.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from gamelp.display import Raw, Summarised, frame
from gamelp.errors import RegretError
from gamelp.game import SequenceFormGame, load_game
from gamelp.memory import refuse_unless_it_fits
from gamelp.regret.cfr import CFR, PredictiveCFR, TreeplexLevels
from gamelp.regret.simplex import DEFAULT_ETA, LOCAL_MINIMISERS, PRM_PLUS, LocalRule, RegretMinimiser
from gamelp.treeplex import Treeplex
from gamelp.units import payoff_range

AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}
PROGRESS_EVERY = 100  # iterations between two calls of a self-play run's progress callback
CHECK_EVERY = 10  # iterations between two measurements of the saddle-point gap


@dataclass(frozen=True)
class Method:
    """A self-play scheme as data: its local rule, alternation and averaging.

    OpenSpiel's CFR subclasses set the same flags.  ``alternating``: player 2 answers player 1's new strategy
    (Tammelin et al. 2015); ``averaging``: a name of :data:`AVERAGING` or the exponent gamma of the weights
    ``t^gamma``, and ``game_averaging`` the one on a sequence-form game where it differs; ``tree_prediction``: on a
    treeplex, the last utility's counterfactual values are taken through the new local strategies below (PCFR+;
    Farina, Kroer, Brown & Sandholm 2019: :class:`~gamelp.regret.cfr.PredictiveCFR`, whose local rule is PRM+).
    A new method is one entry of :data:`METHODS`.
    """

    local: LocalRule
    alternating: bool
    averaging: str | float
    game_averaging: str | float | None = None
    tree_prediction: bool = False

    def __post_init__(self) -> None:
        if self.tree_prediction and self.local != PRM_PLUS:
            raise RegretError("the prediction through the tree (PCFR+) runs PRM+ at every decision point")


METHODS = {
    "mwu": Method(LOCAL_MINIMISERS["mwu"], False, "uniform"),
    "omwu": Method(LOCAL_MINIMISERS["omwu"], False, "uniform"),
    "rm": Method(LOCAL_MINIMISERS["rm"], False, "uniform"),
    "rm+": Method(LOCAL_MINIMISERS["rm+"], False, "uniform"),
    "cfr": Method(LOCAL_MINIMISERS["rm"], False, "uniform"),
    "cfr+": Method(LOCAL_MINIMISERS["rm+"], True, "linear"),
    "dcfr": Method(LOCAL_MINIMISERS["drm"], True, "quadratic"),
    "pcfr+": Method(LOCAL_MINIMISERS["prm+"], True, "quadratic", tree_prediction=True),
    "dcfr+": Method(LOCAL_MINIMISERS["drm+"], True, 4.0),
    # Weights t^20 on a treeplex: Leduc reaches a gap of 1e-6 in 8,950 iterations against 14,020 with the paper's
    # t^5 (and 10,430 / 9,330 / 9,140 with t^10 / t^15 / t^30); on a random 300 x 300 matrix t^5 stays faster.
    "pdcfr+": Method(LOCAL_MINIMISERS["pdrm+"], True, 5.0, game_averaging=20.0),
}


@dataclass(repr=False, kw_only=True)
class RegretResult(Summarised):
    """Outcome of a self-play run.  Strategies are sequence-form for a game, mixed for a matrix."""

    method: str
    value: float  # player 1's utility of the average strategies
    gap: float  # saddle-point gap of the average strategies
    x: np.ndarray  # average strategy of player 1
    y: np.ndarray  # average strategy of player 2
    last_x: np.ndarray  # last iterate played by player 1
    last_y: np.ndarray
    gaps: np.ndarray  # gap of the average at each checked iteration
    last_gaps: np.ndarray | None  # gap of the last iterate at each checked iteration (None: not tracked)
    labels_x: tuple[str, ...]
    labels_y: tuple[str, ...]
    checked: np.ndarray  # the iterations whose gaps were measured (every check_every-th and the last)
    converged: bool  # the target gap was reached
    xs: np.ndarray | None  # per-iteration iterates (record=True; else None)
    ys: np.ndarray | None
    avg_xs: np.ndarray | None  # per-iteration averages (record=True; else None)
    avg_ys: np.ndarray | None

    @property
    def iterations(self) -> int:
        """The number of iterations run (the last one checked)."""
        return int(self.checked[-1])

    def strategy_dict(self, player: int = 1) -> dict[str, float]:
        """Label -> probability of the average strategy of ``player``."""
        if player not in (1, 2):
            raise RegretError(f"player must be 1 or 2, got {player!r}")
        labels, strategy = (self.labels_x, self.x) if player == 1 else (self.labels_y, self.y)
        return dict(zip(labels, strategy.tolist()))

    @property
    def strategy(self) -> np.ndarray:
        """Player 1's average strategy (``value`` is player 1's utility)."""
        return self.x

    def _summary(self) -> dict:
        return {
            "method": self.method,
            "value": self.value,
            "gap": Raw(f"{self.gap:.2e}"),
            "status": "converged" if self.converged else "iteration_limit",
            "iterations": self.iterations,
            "sizes": Raw(f"{self.x.size}/{self.y.size}"),
        }

    def _entries(self):
        return "player 1's average strategy", self.strategy_dict(1).items()

    def to_frame(self, player: int = 1):
        """``player``'s average strategy by label as a pandas DataFrame: label, probability.

        For a sequence-form game, ``treeplex.to_frame(result.x)`` gives it by information set and action.
        """
        labels, strategy = (self.labels_x, self.x) if player == 1 else (self.labels_y, self.y)
        return frame({"label": labels, "probability": strategy}, "a strategy table")

    def to_dict(self, player: int = 1) -> dict:
        """JSON-ready summary from ``player``'s side: value, status, the method as backend, gap, strategy.

        The shape of the LP results' summaries (:class:`gamelp.models.SolverResult`):
        ``value`` is ``player``'s utility, ``status`` ``converged`` (the target
        gap was reached) or ``iteration_limit``; ``backend`` is the method and
        ``solver_version`` None (no solver ran).
        """
        strategy = self.strategy_dict(player)
        return {
            "value": self.value if player == 1 else -self.value,
            "status": "converged" if self.converged else "iteration_limit",
            "backend": self.method,
            "solver_version": None,
            "player": player,
            "iterations": self.iterations,
            "gap": self.gap,
            "strategy": dict(zip(strategy, np.round(list(strategy.values()), 12).tolist())),
        }


class _Space(Protocol):
    """A player's strategy space as self-play sees it."""

    labels: tuple[str, ...]

    def best_response_value(self, utility: np.ndarray) -> float:
        """``max_x utility . x`` over the space."""

    def minimiser(self, method: Method, eta: float) -> RegretMinimiser:
        """A regret minimiser over the space playing ``method``."""

    def to_original(self, v: np.ndarray) -> np.ndarray:
        """A vector of the space's order back in the game's order."""


class _Simplex:
    """A player's strategy space that is one simplex (a matrix game)."""

    def __init__(self, n: int):
        self.n = n
        self.labels = tuple(str(i) for i in range(n))

    def best_response_value(self, utility: np.ndarray) -> float:
        return float(utility.max())

    def minimiser(self, method: Method, eta: float) -> RegretMinimiser:
        return method.local.build(self.n, eta=eta)

    def to_original(self, v: np.ndarray) -> np.ndarray:
        return v


class _TreeplexSpace(TreeplexLevels):
    """A player's strategy space that is a treeplex (a sequence-form game), played in level order."""

    def __init__(self, treeplex: Treeplex):
        super().__init__(treeplex)
        self.labels = treeplex.labels

    def minimiser(self, method: Method, eta: float) -> RegretMinimiser:
        if method.tree_prediction:
            return PredictiveCFR(self, level_order=True)
        return CFR(self, method.local, eta=eta, level_order=True)


class _Float32Products:
    """``M @ v``, or ``-(v @ M)`` with ``negated_transpose``, from a float32 copy of ``M``, returned in float64.

    A dense matrix-vector product reads the whole matrix from memory; in
    float32 it reads half as many bytes, at a rounding error of about
    ``1e-7`` times the payoff range (numpy's BLAS, threaded, does the work).
    """

    def __init__(self, M32: np.ndarray, negated_transpose: bool):
        self.M32, self.negated_transpose = M32, negated_transpose

    def __matmul__(self, v: np.ndarray) -> np.ndarray:
        v32 = v.astype(np.float32)
        product = -(v32 @ self.M32) if self.negated_transpose else self.M32 @ v32
        return product.astype(float)


class _NegatedTranspose:
    """``-M^T`` of a dense matrix without a copy: ``(-M^T) @ x`` is computed as ``-(x @ M)``."""

    def __init__(self, M: np.ndarray):
        self.M = M

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        return -(x @ self.M)


def _averaging_exponent(averaging: str | float) -> float:
    if isinstance(averaging, str):
        if averaging not in AVERAGING:
            raise RegretError(
                f"unknown averaging {averaging!r} (choose from {sorted(AVERAGING)} "
                "or give the exponent gamma of the weights t^gamma)"
            )
        return AVERAGING[averaging]
    if (
        isinstance(averaging, bool)
        or not isinstance(averaging, (int, float))
        or not np.isfinite(averaging)
        or averaging < 0
    ):
        raise RegretError(f"averaging must be a name or a non-negative exponent, got {averaging!r}")
    return float(averaging)


def _payoff_matrix(matrix: npt.ArrayLike) -> np.ndarray:
    try:
        M = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise RegretError("the payoff matrix must be numeric") from None
    if M.ndim != 2 or min(M.shape) < 1:
        raise RegretError(f"the payoff matrix must be 2-D and non-empty, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise RegretError("the payoff matrix has non-finite entries")
    return M


def _positive_integer(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise RegretError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


Progress = Callable[[int, float], object]  # progress(t, gap)


def solve_regret(
    game: SequenceFormGame | str | Path | npt.ArrayLike,
    method: str = "cfr+",
    iterations: int = 1000,
    *,
    eta: float = DEFAULT_ETA,
    target_gap: float | None = None,
    alternating: bool | None = None,
    averaging: str | float | None = None,
    record: bool = False,
    track_last: bool = True,
    progress: Progress | None = None,
    check_every: int = CHECK_EVERY,
    float32: bool = False,
) -> RegretResult:
    """Self-play of two regret minimisers on a game; returns averages, last iterates and gaps.

    ``game`` is a :class:`SequenceFormGame`, a game file / built-in name, or a
    payoff matrix (player 1, rows, gets ``x^T M y``).  ``method`` is one of
    :data:`METHODS` (on a sequence-form game every method is CFR with that
    local minimiser; ``cfr`` is ``rm``; ``cfr+`` is RM+ with alternating
    updates and linear averaging; ``dcfr`` discounted RM, ``pcfr+`` PRM+ and
    ``pdcfr+`` discounted PRM+, all alternating; on a matrix the same local
    rule runs on the simplex).  ``alternating`` and ``averaging``
    (``uniform``, ``linear``, ``quadratic`` or an exponent ``gamma`` for
    weights ``t^gamma``) override the method's defaults; ``eta`` is the
    MWU/OMWU step size relative to the payoff range (the step taken is
    ``eta / payoff_range``, so the same game in other units plays the same
    strategies).  The saddle-point gap is measured every
    ``check_every`` iterations and after the last one (``checked`` lists
    them); the run stops at the first measured gap of the average at most
    ``target_gap`` times the payoff range (:func:`gamelp.units.payoff_range`: the largest entry of the payoff
    matrix in magnitude; on a sequence-form game an entry is a payoff times the chance probability of reaching it,
    so the range depends on how the game encodes chance: the built-in Leduc's is 0.867, OpenSpiel's Leduc, which
    deals suits apart, 0.108), so the same game in other units stops at the same iteration; the gaps reported are
    in the game's own units.
    ``float32=True`` (a payoff matrix only) multiplies by a float32 copy of
    the matrix while the measured gap is above the target; the gap that stops
    the run is recomputed in float64, and if it misses the target the run
    goes on with float64 products.  The reported gap is always float64's.
    ``record=True`` keeps every iterate and running average (``xs``, ``ys``,
    ``avg_xs``, ``avg_ys``); ``track_last=False`` skips the last iterate's
    gaps (``last_gaps`` is None).  ``progress(t, gap)``, when given, is called
    at the first check past every :data:`PROGRESS_EVERY` iterations and once
    at the end with the iteration count and the gap.

    Parameters
    ----------
    game : SequenceFormGame, str, os.PathLike or array_like
        A game, a game file or built-in name, or a payoff matrix of player 1.
    method : str
        One of :data:`METHODS`: ``mwu``, ``omwu``, ``rm``, ``rm+``, ``cfr``, ``cfr+``, ``dcfr``, ``pcfr+``,
        ``dcfr+``, ``pdcfr+``.
    iterations : int
        The most iterations to run.
    eta : float
        The MWU / OMWU step, relative to the payoff range.
    target_gap : float, optional
        Stop at the first measured gap of the average at most this times the payoff range (the largest entry
        of the chance-weighted payoff matrix in magnitude).
    alternating : bool, optional
        Alternate the players' updates (default: the method's own).
    averaging : str or float, optional
        ``uniform``, ``linear``, ``quadratic`` or an exponent (default: the method's own).
    record : bool
        Keep every iterate and running average.
    track_last : bool
        Also measure the last iterate's gaps.
    progress : callable, optional
        Called as ``progress(t, gap)``.
    check_every : int
        Measure the gap every this many iterations.
    float32 : bool
        Multiply by a float32 copy of a payoff matrix while far from the target.

    Returns
    -------
    RegretResult
        The average strategies, their value and gap, the last iterates and the gaps measured.

    Raises
    ------
    RegretError
        An unknown method, a non-positive count or a negative target.
    """
    if method not in METHODS:
        raise RegretError(f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    iterations = _positive_integer("iterations", iterations)
    check_every = _positive_integer("check_every", check_every)
    if target_gap is not None and (
        isinstance(target_gap, bool) or not isinstance(target_gap, (int, float)) or not target_gap >= 0
    ):
        raise RegretError(f"target_gap must be a non-negative number, got {target_gap!r}")
    scheme = METHODS[method]
    alternating = scheme.alternating if alternating is None else bool(alternating)
    if isinstance(game, (str, Path)):
        game = load_game(game)
    own = scheme.game_averaging if isinstance(game, SequenceFormGame) and scheme.game_averaging is not None else None
    gamma = _averaging_exponent(averaging if averaging is not None else own if own is not None else scheme.averaging)
    space1: _Space
    space2: _Space
    payoff: sp.csr_array | np.ndarray
    payoff_2: sp.csr_array | _NegatedTranspose
    if float32 and isinstance(game, SequenceFormGame):
        raise RegretError("float32 products are for payoff matrices; a sequence-form game is sparse")
    if isinstance(game, SequenceFormGame):
        space1, space2 = _TreeplexSpace(game.pl1), _TreeplexSpace(game.pl2)
        payoff = sp.csr_array(game.A.tocsr()[space1.order][:, space2.order])  # level order on both sides
        payoff_2 = sp.csr_array(-payoff.T)
    else:
        payoff = _payoff_matrix(game)
        space1, space2 = _Simplex(payoff.shape[0]), _Simplex(payoff.shape[1])
        payoff_2 = _NegatedTranspose(payoff)
    # The step and the target are relative to the payoff range (gamelp.units): a game in other units plays the
    # same strategies and stops at the same iterate.
    unit = payoff_range(payoff)
    if not np.isfinite(eta / unit):
        raise RegretError(f"the step size eta = {eta!r} overflows on this game's payoff range {unit:g}")
    players = (space1.minimiser(scheme, eta / unit), space2.minimiser(scheme, eta / unit))
    run = _SelfPlay(
        method,
        (space1, space2),
        (payoff, payoff_2),
        players,
        alternating=alternating,
        gamma=gamma,
        record=record,
        track_last=track_last,
    )
    if float32:
        M32 = np.asarray(payoff, dtype=np.float32)
        run.payoffs = (_Float32Products(M32, False), _Float32Products(M32, True))
    target = None if target_gap is None else target_gap * unit
    return run.play(iterations, target, check_every, progress)


def self_play_matrix(
    M: npt.ArrayLike, method: str = "omwu", iterations: int = 1000, *, eta: float = DEFAULT_ETA, **options: Any
) -> RegretResult:
    """Self-play on a payoff matrix keeping every iterate.

    Returns ``xs``/``ys`` (last iterates) and ``avg_xs``/``avg_ys`` (running averages), one row per iteration, and the
    gaps after every iteration.  Options as :func:`solve_regret`.
    """
    return solve_regret(_payoff_matrix(M), method, iterations, eta=eta, record=True, **{"check_every": 1} | options)


class _SelfPlay:
    """One self-play run: both players' minimisers, their weighted averages and the measured gaps.

    On a dense matrix the averages of the utility vectors ``M y^t`` and
    ``-M^T x^t`` are kept too (O(n) per iteration), so a gap check costs no
    matrix product; on a sparse sequence-form game a check multiplies the
    averages instead.
    """

    def __init__(
        self,
        method: str,
        spaces: tuple[_Space, _Space],
        payoffs: tuple[Any, Any],
        players: tuple[RegretMinimiser, RegretMinimiser],
        *,
        alternating: bool,
        gamma: float,
        record: bool,
        track_last: bool,
    ):
        self.method, self.spaces, self.payoffs, self.players = method, spaces, payoffs, players
        self.exact = payoffs  # float64 products: the gap that stops a run is measured with them
        self.alternating, self.gamma, self.record, self.track_last = alternating, gamma, record, track_last
        self.average_utilities = not sp.issparse(payoffs[0])  # pragma: no mutate: both are sparse or neither

    def gaps(
        self,
        x: np.ndarray,
        y: np.ndarray,
        utility_x: np.ndarray,
        utility_y: np.ndarray,
        avg_x: np.ndarray,
        avg_y: np.ndarray,
        avg_utility_x: np.ndarray,
        avg_utility_y: np.ndarray,
    ) -> tuple[float, float | None, float]:
        """Saddle-point gaps of the averages and (if tracked) of the last iterates."""
        (space1, space2), (payoff, payoff_2) = self.spaces, self.payoffs
        if not self.average_utilities:
            avg_utility_x, avg_utility_y = payoff @ avg_y, payoff_2 @ avg_x
        gap = space1.best_response_value(avg_utility_x) + space2.best_response_value(avg_utility_y)
        last = (
            space1.best_response_value(utility_x) + space2.best_response_value(utility_y) if self.track_last else None
        )
        return gap, last, float(avg_x @ avg_utility_x)

    def play(
        self, iterations: int, target_gap: float | None, check_every: int, progress: Progress | None
    ) -> RegretResult:
        (space1, space2), (payoff, payoff_2), (player1, player2) = self.spaces, self.payoffs, self.players

        def within(gap: float) -> bool:
            return target_gap is not None and gap <= target_gap

        x, y = player1.next_strategy(), player2.next_strategy()
        utility_x, utility_y = payoff @ y, payoff_2 @ x  # each player's utility vector against the other
        avg_x, avg_y = np.zeros_like(x), np.zeros_like(y)
        avg_utility_x, avg_utility_y = np.zeros_like(x), np.zeros_like(y)  # kept on a dense matrix only
        checked: list[int] = []
        gaps: list[float] = []
        last_gaps: list[float | None] = []
        if self.record:  # every iterate and average of both players
            refuse_unless_it_fits(
                16.0 * iterations * (x.size + y.size),
                f"recording {iterations:,} iterations",
                RegretError,
                "ask for fewer iterations",
            )
        history = [np.empty((iterations, v.size)) for v in (x, y, x, y)] if self.record else []
        total_weight, converged, next_progress = 0.0, False, PROGRESS_EVERY  # value and gap: set at t = iterations
        for t in itertools.count(1):  # until the check at t = iterations (or the target) breaks out
            weight = float(t) ** self.gamma
            total_weight += weight
            step = weight / total_weight
            avg_x += step * (x - avg_x)
            avg_y += step * (y - avg_y)
            if self.average_utilities:
                avg_utility_x += step * (utility_x - avg_utility_x)
                avg_utility_y += step * (utility_y - avg_utility_y)
            if self.record:
                for store, v in zip(history, (x, y, avg_x, avg_y)):
                    store[t - 1] = v
            if t % check_every == 0 or t == iterations:
                if not (np.isfinite(x).all() and np.isfinite(y).all()):
                    raise RegretError(
                        f"{self.method} diverged: the strategies became non-finite by iteration {t} "
                        "(overflow); try a smaller step size eta"
                    )
                gap, last_gap, value = self.gaps(x, y, utility_x, utility_y, avg_x, avg_y, avg_utility_x, avg_utility_y)
                if self.payoffs is not self.exact and (t == iterations or within(gap)):
                    # Measured with float32 products: measure again in float64, and go on in float64 if it misses.
                    self.payoffs = payoff, payoff_2 = self.exact
                    avg_utility_x, avg_utility_y = payoff @ avg_y, payoff_2 @ avg_x
                    utility_x, utility_y = payoff @ y, payoff_2 @ x
                    gap, last_gap, value = self.gaps(
                        x, y, utility_x, utility_y, avg_x, avg_y, avg_utility_x, avg_utility_y
                    )
                checked.append(t)
                gaps.append(gap)
                last_gaps.append(last_gap)
                if progress is not None and t >= next_progress:
                    progress(t, gap)
                    next_progress = (t // PROGRESS_EVERY + 1) * PROGRESS_EVERY
                if within(gap):
                    converged = True
                    break
                if t == iterations:
                    break
            player1.observe_utility(utility_x)
            x = player1.next_strategy()
            next_utility_y = payoff_2 @ x
            player2.observe_utility(next_utility_y if self.alternating else utility_y)
            y = player2.next_strategy()
            utility_x, utility_y = payoff @ y, next_utility_y
        if progress is not None and next_progress - PROGRESS_EVERY != t:
            progress(t, gaps[-1])
        to1, to2 = space1.to_original, space2.to_original
        xs, ys, avg_xs, avg_ys = (
            [to(h[:t].T).T for h, to in zip(history, (to1, to2, to1, to2))] if self.record else (None,) * 4
        )
        return RegretResult(
            method=self.method,
            value=value,
            gap=gaps[-1],
            x=to1(avg_x),
            y=to2(avg_y),
            last_x=to1(x),
            last_y=to2(y),
            gaps=np.array(gaps),
            last_gaps=np.array(last_gaps) if self.track_last else None,
            labels_x=space1.labels,
            labels_y=space2.labels,
            checked=np.array(checked),
            converged=converged,
            xs=xs,
            ys=ys,
            avg_xs=avg_xs,
            avg_ys=avg_ys,
        )
