"""Regret minimisation as a first-order solver for zero-sum games.

Regret minimisers (one small interface: ``next_strategy()`` returns the
strategy to play, ``observe_utility(u)`` feeds back the utility vector it
earned, utility ``u . x``):

* on the simplex, and vectorised over many simplices at once
  (:class:`Segments`): multiplicative weights ``MWU`` and optimistic
  ``OMWU`` — predictive follow-the-regularised-leader with the negative
  entropy ``omega(x) = sum_i x_i log x_i``, so
  ``x^t = softmax(eta (L^{t-1} + m^t))`` with ``L`` the cumulative utility
  and prediction ``m^t = 0`` (MWU) or ``m^t = l^{t-1}`` (OMWU).  Predictive
  FTRL gives the bound of Problem 1.8 of CMU 15-888 Homework 2 (Fall 2021), part 1,
  ``R^T <= log(n)/eta + eta sum_t ||l^t - m^t||_inf^2
  - 1/(4 eta) sum_{t>=2} ||x^t - x^{t-1}||_1^2``;
  regret matching ``RM`` (Hart & Mas-Colell 2000: play the positive part of
  the cumulative regrets) and ``RM+`` (Tammelin 2014: clip the cumulative
  regrets at zero after every update), discounted regret matching
  (the local rule of DCFR, Brown & Sandholm 2019, "Solving imperfect-information
  games via discounted regret minimization": after every
  update positive cumulative regrets are scaled by ``t^alpha/(t^alpha+1)``,
  negative ones by ``t^beta/(t^beta+1)``; alpha = 1.5, beta = 0) and
  predictive RM+ ``PRM+`` (Farina, Kroer & Sandholm 2021, "Faster game solving
  via predictive Blackwell approachability": RM+
  played on the regrets plus a predicted regret,
  ``x^t ∝ [R^{t-1} + m^t - <m^t, x^{t-1}> 1]^+`` with the prediction
  ``m^t = u^{t-1}``, the last utility);
* on a treeplex (a player's sequence-form polytope): counterfactual regret
  minimisation ``CFR`` (Zinkevich et al. 2007), i.e. the laminar regret
  decomposition — one local simplex minimiser per decision point fed with
  counterfactual utilities ``q[ja] = g[ja] + sum_{j' below ja} V[j']``,
  ``V[j] = sum_a b[ja] q[ja]``.  The local minimiser is pluggable
  (rm, rm+, mwu, omwu); all decision points are updated together with numpy
  segment reductions, one depth level at a time.  Predictive CFR+
  (``PCFR+``, Farina, Kroer & Sandholm 2021) uses PRM+ at every
  decision point with the counterfactual prediction of Farina, Kroer,
  Brown & Sandholm (2019, "Stable-predictive optimistic counterfactual regret
  minimization"): the last utility vector ``g^{t-1}`` is pushed
  bottom-up through the *new* strategies of the points below, so each level's
  local strategies are computed before the level above.

Self-play (:func:`solve_regret`, :func:`self_play_matrix`) runs one
minimiser per player on a payoff matrix ``M`` (player 1 gets ``x^T M y``) or
on a :class:`~gamelp.game.SequenceFormGame` (``x^T A y`` over sequence-form
strategies) and reports the (weighted) average and last iterates with the
saddle-point gap ``max_x' x'^T A y - min_y' x^T A y'`` per iteration.  CFR+
is RM+ at every decision point with alternating updates and linear
averaging (Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015); DCFR
is discounted RM (alpha = 1.5, beta = 0) with quadratic averaging (weights
``t^2``: the paper's gamma = 2); PCFR+ is PRM+ with quadratic averaging;
both alternate their updates like CFR+.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from gamelp.errors import RegretError
from gamelp.game import SequenceFormGame, load_game
from gamelp.treeplex import Treeplex

AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}
PROGRESS_EVERY = 100  # iterations between two calls of a self-play run's progress callback


# ---------------------------------------------------------------------------------------- simplices
class Segments:
    """A vector cut into consecutive simplices ``[starts[k], ends[k])`` that cover it in order."""

    def __init__(self, starts, ends):
        self.starts = np.asarray(starts, dtype=np.int64)
        self.ends = np.asarray(ends, dtype=np.int64)
        sizes = self.ends - self.starts
        if (self.starts.size == 0 or self.starts[0] != 0 or np.any(sizes < 1)
                or np.any(self.starts[1:] != self.ends[:-1])):
            raise RegretError("segments must be non-empty, consecutive and start at 0")
        self.size = int(self.ends[-1])
        self.owner = np.repeat(np.arange(self.starts.size), sizes)

    @classmethod
    def simplex(cls, n: int) -> "Segments":
        """One simplex of dimension ``n``."""
        if int(n) < 1:
            raise RegretError(f"a simplex needs at least one action, got {n}")
        return cls([0], [int(n)])

    def sums(self, v: np.ndarray) -> np.ndarray:
        """Per-segment sums."""
        return np.add.reduceat(v, self.starts)

    def expand(self, per_segment: np.ndarray) -> np.ndarray:
        """Broadcast one value per segment to every entry of that segment."""
        return per_segment[self.owner]

    def normalise(self, weights: np.ndarray) -> np.ndarray:
        """Scale non-negative weights to sum to 1 per segment; an all-zero segment becomes uniform."""
        totals = self.expand(self.sums(weights))
        uniform = 1.0 / self.expand(self.ends - self.starts)
        positive = totals > 0
        return np.where(positive, weights / np.where(positive, totals, 1.0), uniform)

    def softmax(self, logits: np.ndarray) -> np.ndarray:
        """Per-segment softmax (shifted by the segment maximum for stability)."""
        shifted = np.exp(logits - self.expand(np.maximum.reduceat(logits, self.starts)))
        return shifted / self.expand(self.sums(shifted))


def _as_segments(space) -> Segments:
    return space if isinstance(space, Segments) else Segments.simplex(space)


class RegretMinimiser:
    """Interface: ``next_strategy()`` then ``observe_utility(u)``, repeated; ``u . x`` is the utility earned."""

    def next_strategy(self) -> np.ndarray:
        raise NotImplementedError

    def observe_utility(self, utility: np.ndarray) -> None:
        raise NotImplementedError


class RegretMatching(RegretMinimiser):
    """Regret matching on one simplex (``space`` = its size) or on every segment of ``space`` at once.

    ``plus=True`` is RM+: cumulative regrets are clipped at zero after each update.
    """

    def __init__(self, space, *, plus: bool = False):
        self.segments = _as_segments(space)
        self.plus = plus
        self.regrets = np.zeros(self.segments.size)
        self._strategy = None

    def next_strategy(self) -> np.ndarray:
        self._strategy = self.segments.normalise(np.maximum(self.regrets, 0.0))
        return self._strategy

    def observe_utility(self, utility: np.ndarray) -> None:
        if self._strategy is None:
            self.next_strategy()
        expected = self.segments.expand(self.segments.sums(self._strategy * utility))
        self.regrets += utility - expected
        if self.plus:
            np.maximum(self.regrets, 0.0, out=self.regrets)


class RegretMatchingPlus(RegretMatching):
    """RM+ (Tammelin 2014): regret matching on regrets clipped at zero."""

    def __init__(self, space):
        super().__init__(space, plus=True)


class DiscountedRegretMatching(RegretMatching):
    """DCFR's local rule (Brown & Sandholm 2019): regret matching whose cumulative regrets
    are scaled after update ``t`` by ``t^alpha/(t^alpha+1)`` where positive, ``t^beta/(t^beta+1)`` where not."""

    def __init__(self, space, *, alpha: float = 1.5, beta: float = 0.0):
        super().__init__(space)
        self.alpha, self.beta = float(alpha), float(beta)
        self.updates = 0

    def observe_utility(self, utility: np.ndarray) -> None:
        super().observe_utility(utility)
        self.updates += 1
        t = float(self.updates)
        positive, negative = t ** self.alpha / (t ** self.alpha + 1), t ** self.beta / (t ** self.beta + 1)
        self.regrets *= np.where(self.regrets > 0, positive, negative)


def _prm_plus_strategy(segments: Segments, regrets: np.ndarray, prediction: np.ndarray,
                       previous: np.ndarray) -> np.ndarray:
    """PRM+'s next local strategies: ``[R + m - <m, x_prev> 1]^+`` normalised per segment."""
    expected = segments.expand(segments.sums(previous * prediction))
    return segments.normalise(np.maximum(regrets + prediction - expected, 0.0))


class PredictiveRegretMatchingPlus(RegretMatching):
    """PRM+ (Farina, Kroer & Sandholm 2021): RM+ on the regrets plus the predicted regret
    of the last utility, ``x^t ∝ [R^{t-1} + u^{t-1} - <u^{t-1}, x^{t-1}> 1]^+``."""

    def __init__(self, space):
        super().__init__(space, plus=True)
        self.prediction = np.zeros(self.segments.size)
        self._strategy = self.segments.normalise(self.prediction)  # x^0: uniform

    def next_strategy(self) -> np.ndarray:
        self._strategy = _prm_plus_strategy(self.segments, self.regrets, self.prediction, self._strategy)
        return self._strategy

    def observe_utility(self, utility: np.ndarray) -> None:
        super().observe_utility(utility)
        self.prediction = np.array(utility, dtype=float)


class MWU(RegretMinimiser):
    """Multiplicative weights = FTRL with negative entropy: ``x^t = softmax(eta (L^{t-1} + m^t))``.

    ``optimistic=True`` predicts ``m^t = l^{t-1}`` (OMWU, predictive FTRL); otherwise ``m^t = 0``.
    """

    def __init__(self, space, *, eta: float = 0.1, optimistic: bool = False):
        if not np.isfinite(eta) or eta <= 0:
            raise RegretError(f"the step size eta must be a positive number, got {eta!r}")
        self.segments = _as_segments(space)
        self.eta = float(eta)
        self.optimistic = optimistic
        self.cumulative = np.zeros(self.segments.size)
        self.prediction = np.zeros(self.segments.size)

    def next_strategy(self) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is caught by the self-play loop
            return self.segments.softmax(self.eta * (self.cumulative + self.prediction))

    def observe_utility(self, utility: np.ndarray) -> None:
        self.cumulative += utility
        if self.optimistic:
            self.prediction = np.array(utility, dtype=float)


class OMWU(MWU):
    """Optimistic MWU: predictive FTRL with negative entropy, predicting the last utility."""

    def __init__(self, space, *, eta: float = 0.1):
        super().__init__(space, eta=eta, optimistic=True)


LOCAL_MINIMISERS = {"rm": RegretMatching, "rm+": RegretMatchingPlus, "drm": DiscountedRegretMatching,
                    "prm+": PredictiveRegretMatchingPlus, "mwu": MWU, "omwu": OMWU}


def local_minimiser(name: str, space, *, eta: float = 0.1) -> RegretMinimiser:
    """A simplex minimiser by name (``rm``, ``rm+``, ``drm``, ``prm+``, ``mwu``, ``omwu``) over ``space``
    (size or Segments)."""
    if name not in LOCAL_MINIMISERS:
        raise RegretError(f"unknown local regret minimiser {name!r} (choose from {sorted(LOCAL_MINIMISERS)})")
    cls = LOCAL_MINIMISERS[name]
    return cls(space, eta=eta) if issubclass(cls, MWU) else cls(space)


# ---------------------------------------------------------------------------------------- treeplexes
@dataclass(frozen=True)
class _Level:
    """The decision points of one depth: their sequences gathered, their simplices and their parents."""

    sequences: np.ndarray        # sequence indices of all actions at this depth
    sequence_parents: np.ndarray  # parent sequence of each entry of ``sequences``
    parents: np.ndarray          # the distinct parent sequences of this depth's decision points
    parent_slot: np.ndarray      # for each decision point, its parent's position in ``parents``
    segments: Segments           # the decision points' simplices inside ``sequences``


class TreeplexLevels:
    """Depth-level structure of a treeplex for vectorised top-down and bottom-up passes."""

    def __init__(self, treeplex: Treeplex):
        self.num_sequences = treeplex.num_sequences
        parents, starts, ends = treeplex.parents, treeplex.starts, treeplex.ends
        depth = np.zeros(treeplex.num_decision_points, dtype=np.int64)
        owner = treeplex.decision_point_of
        for j, p in enumerate(parents):  # top-down order: a parent's depth is known
            depth[j] = 0 if p == 0 else depth[owner[p]] + 1
        self.levels = []
        for d in range(int(depth.max()) + 1):
            points = np.flatnonzero(depth == d)
            sizes = ends[points] - starts[points]
            sequences = np.concatenate([np.arange(starts[j], ends[j]) for j in points])
            distinct, slot = np.unique(parents[points], return_inverse=True)
            offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
            self.levels.append(_Level(sequences, np.repeat(parents[points], sizes), distinct, slot,
                                      Segments(offsets, offsets + sizes)))
        # Local simplices over all sequences: the empty sequence is a singleton, then one per decision point.
        self.segments = Segments(np.concatenate(([0], starts)), np.concatenate(([1], ends)))

    def sequence_form(self, behaviour: np.ndarray) -> np.ndarray:
        """Sequence-form strategy of local strategies ``behaviour`` (indexed by sequence), top-down."""
        x = np.empty(self.num_sequences)
        x[0] = 1.0
        for level in self.levels:
            x[level.sequences] = behaviour[level.sequences] * x[level.sequence_parents]
        return x

    def bottom_up(self, utility: np.ndarray, point_value) -> np.ndarray:
        """Push ``utility`` up the levels: ``point_value(level, q)`` gives each point's value from ``q``."""
        q = np.array(utility, dtype=float)
        for level in reversed(self.levels):
            values = point_value(level, q)
            q[level.parents] += np.bincount(level.parent_slot, values, minlength=level.parents.size)
        return q

    def counterfactual_values(self, utility: np.ndarray, behaviour: np.ndarray) -> np.ndarray:
        """``q[s] = utility[s] + sum`` of the values ``V[j] = sum_a b[ja] q[ja]`` of the points below ``s``."""
        return self.bottom_up(utility, lambda level, q: level.segments.sums(
            behaviour[level.sequences] * q[level.sequences]))

    def best_response_value(self, utility: np.ndarray) -> float:
        """``max_x utility . x`` over the treeplex (bottom-up maxima)."""
        return float(self.bottom_up(utility, lambda level, q: np.maximum.reduceat(
            q[level.sequences], level.segments.starts))[0])


class CFR(RegretMinimiser):
    """Counterfactual regret minimisation on a treeplex with a pluggable local minimiser.

    ``next_strategy()`` returns a sequence-form strategy; ``observe_utility(g)``
    takes the sequence-form utility vector (``A y`` for player 1), computes the
    counterfactual utilities bottom-up and feeds every decision point's local
    minimiser at once.
    """

    def __init__(self, treeplex: Treeplex | TreeplexLevels, local: str = "rm+", *, eta: float = 0.1):
        self.levels = treeplex if isinstance(treeplex, TreeplexLevels) else TreeplexLevels(treeplex)
        self.local = local_minimiser(local, self.levels.segments, eta=eta)
        self.behaviour = None

    def next_strategy(self) -> np.ndarray:
        self.behaviour = self.local.next_strategy()
        return self.levels.sequence_form(self.behaviour)

    def observe_utility(self, utility: np.ndarray) -> None:
        if self.behaviour is None:
            self.next_strategy()
        self.local.observe_utility(self.levels.counterfactual_values(utility, self.behaviour))


class PredictiveCFR(CFR):
    """PCFR+ (Farina, Kroer & Sandholm 2021): PRM+ at every decision point of a treeplex.

    The prediction is the last sequence-form utility ``g^{t-1}``; its
    counterfactual values are taken through the new local strategies, so
    ``next_strategy()`` picks them level by level from the bottom up
    (Farina, Kroer, Brown & Sandholm 2019).
    """

    def __init__(self, treeplex: Treeplex | TreeplexLevels):
        super().__init__(treeplex, "prm+")
        self.prediction = np.zeros(self.levels.num_sequences)

    def next_strategy(self) -> np.ndarray:
        local = self.local
        behaviour = np.ones(self.levels.num_sequences)

        def choose(level, q):
            seqs = level.sequences
            behaviour[seqs] = _prm_plus_strategy(level.segments, local.regrets[seqs], q[seqs], local._strategy[seqs])
            return level.segments.sums(behaviour[seqs] * q[seqs])

        self.levels.bottom_up(self.prediction, choose)
        self.behaviour = local._strategy = behaviour
        return self.levels.sequence_form(behaviour)

    def observe_utility(self, utility: np.ndarray) -> None:
        super().observe_utility(utility)
        self.prediction = np.array(utility, dtype=float)


# ---------------------------------------------------------------------------------------- self-play
@dataclass(frozen=True)
class Method:
    """A named self-play scheme: local minimiser, alternation and averaging defaults."""

    local: str
    alternating: bool
    averaging: str


METHODS = {
    "mwu": Method("mwu", False, "uniform"),
    "omwu": Method("omwu", False, "uniform"),
    "rm": Method("rm", False, "uniform"),
    "rm+": Method("rm+", False, "uniform"),
    "cfr": Method("rm", False, "uniform"),
    "cfr+": Method("rm+", True, "linear"),
    "dcfr": Method("drm", True, "quadratic"),
    "pcfr+": Method("prm+", True, "quadratic"),
}


@dataclass
class RegretResult:
    """Outcome of a self-play run.  Strategies are sequence-form for a game, mixed for a matrix."""

    method: str
    value: float            # player 1's utility of the average strategies
    gap: float              # saddle-point gap of the average strategies
    x: np.ndarray           # average strategy of player 1
    y: np.ndarray           # average strategy of player 2
    last_x: np.ndarray      # last iterate played by player 1
    last_y: np.ndarray
    gaps: np.ndarray        # gap of the average after each iteration
    last_gaps: np.ndarray | None  # gap of the last iterate at each iteration (None: not tracked)
    labels_x: tuple[str, ...]
    labels_y: tuple[str, ...]
    converged: bool = False  # the target gap was reached
    xs: np.ndarray | None = field(default=None, repr=False)      # per-iteration iterates (record=True)
    ys: np.ndarray | None = field(default=None, repr=False)
    avg_xs: np.ndarray | None = field(default=None, repr=False)  # per-iteration averages (record=True)
    avg_ys: np.ndarray | None = field(default=None, repr=False)

    @property
    def iterations(self) -> int:
        return int(self.gaps.size)

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

    def to_dict(self, player: int = 1) -> dict:
        """JSON-ready summary from ``player``'s side: value, status, the method as backend, gap, strategy.

        The shape of the LP results' summaries (:class:`gamelp.models.GameResult`):
        ``value`` is ``player``'s utility, ``status`` ``converged`` (the target
        gap was reached) or ``iteration_limit``.
        """
        strategy = self.strategy_dict(player)
        return {"value": self.value if player == 1 else -self.value,
                "status": "converged" if self.converged else "iteration_limit", "backend": self.method,
                "player": player, "iterations": self.iterations, "gap": self.gap,
                "strategy": dict(zip(strategy, np.round(list(strategy.values()), 12).tolist()))}


class _Simplex:
    """A player's strategy space that is one simplex (a matrix game)."""

    def __init__(self, n: int):
        self.n = n
        self.labels = tuple(str(i) for i in range(n))

    def best_response_value(self, utility: np.ndarray) -> float:
        return float(utility.max())

    def minimiser(self, local: str, eta: float) -> RegretMinimiser:
        return local_minimiser(local, self.n, eta=eta)


class _TreeplexSpace(TreeplexLevels):
    """A player's strategy space that is a treeplex (a sequence-form game)."""

    def __init__(self, treeplex: Treeplex):
        super().__init__(treeplex)
        self.labels = treeplex.labels

    def minimiser(self, local: str, eta: float) -> RegretMinimiser:
        return PredictiveCFR(self) if local == "prm+" else CFR(self, local, eta=eta)


class _NegatedTranspose:
    """``-M^T`` of a dense matrix without a copy: ``(-M^T) @ x`` is computed as ``-(x @ M)``."""

    def __init__(self, M: np.ndarray):
        self.M = M

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        return -(x @ self.M)


def _averaging_exponent(averaging) -> float:
    if isinstance(averaging, str):
        if averaging not in AVERAGING:
            raise RegretError(f"unknown averaging {averaging!r} (choose from {sorted(AVERAGING)} "
                              "or give the exponent gamma of the weights t^gamma)")
        return AVERAGING[averaging]
    if isinstance(averaging, bool) or not isinstance(averaging, (int, float)) or not np.isfinite(averaging) \
            or averaging < 0:
        raise RegretError(f"averaging must be a name or a non-negative exponent, got {averaging!r}")
    return float(averaging)


def _payoff_matrix(matrix) -> np.ndarray:
    try:
        M = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise RegretError("the payoff matrix must be numeric") from None
    if M.ndim != 2 or min(M.shape) < 1:
        raise RegretError(f"the payoff matrix must be 2-D and non-empty, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise RegretError("the payoff matrix has non-finite entries")
    return M


def solve_regret(game, method: str = "cfr+", iterations: int = 1000, *, eta: float = 0.1,
                 target_gap: float | None = None, alternating: bool | None = None, averaging=None,
                 record: bool = False, track_last: bool = True, progress=None) -> RegretResult:
    """Self-play of two regret minimisers on a game; returns averages, last iterates and gaps.

    ``game`` is a :class:`SequenceFormGame`, a game file / built-in name, or a
    payoff matrix (player 1, rows, gets ``x^T M y``).  ``method`` is one of
    ``mwu``, ``omwu``, ``rm``, ``rm+``, ``cfr``, ``cfr+``, ``dcfr``, ``pcfr+``
    (on a sequence-form game every method is CFR with that local minimiser;
    ``cfr`` is ``rm``; ``cfr+`` is RM+ with alternating updates and linear
    averaging; ``dcfr`` discounted RM and ``pcfr+`` PRM+, both alternating
    with quadratic averaging; on a matrix the same local rule runs on the simplex).
    ``alternating`` and ``averaging`` (``uniform``, ``linear``, ``quadratic``
    or an exponent ``gamma`` for weights ``t^gamma``) override the method's
    defaults; ``eta`` is the MWU/OMWU step size.  The run stops early once the
    average's gap is at most ``target_gap``.  ``record=True`` keeps every
    iterate and running average (``xs``, ``ys``, ``avg_xs``, ``avg_ys``);
    ``track_last=False`` skips the last iterate's gaps (``last_gaps`` is None).
    ``progress(t, gap)``, when given, is called every :data:`PROGRESS_EVERY`
    iterations and once at the end with the iteration count and the gap.
    """
    if method not in METHODS:
        raise RegretError(f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
        raise RegretError(f"iterations must be a positive integer, got {iterations!r}")
    if target_gap is not None and (isinstance(target_gap, bool) or not isinstance(target_gap, (int, float))
                                   or not target_gap >= 0):
        raise RegretError(f"target_gap must be a non-negative number, got {target_gap!r}")
    scheme = METHODS[method]
    alternating = scheme.alternating if alternating is None else bool(alternating)
    gamma = _averaging_exponent(scheme.averaging if averaging is None else averaging)
    if isinstance(game, (str, Path)):
        game = load_game(game)
    if isinstance(game, SequenceFormGame):
        space1, space2 = _TreeplexSpace(game.pl1), _TreeplexSpace(game.pl2)
        payoff = game.A.tocsr()
    else:
        payoff = _payoff_matrix(game)
        space1, space2 = _Simplex(payoff.shape[0]), _Simplex(payoff.shape[1])
    payoff_2 = (-payoff.T).tocsr() if sp.issparse(payoff) else _NegatedTranspose(payoff)
    return _self_play(method, space1, space2, payoff, payoff_2, space1.minimiser(scheme.local, eta),
                      space2.minimiser(scheme.local, eta), int(iterations), alternating, gamma, target_gap, record,
                      track_last, progress)


def self_play_matrix(M, method: str = "omwu", iterations: int = 1000, *, eta: float = 0.1,
                     **options) -> RegretResult:
    """Self-play on a payoff matrix keeping every iterate: ``xs``/``ys`` (last iterates) and
    ``avg_xs``/``avg_ys`` (running averages), one row per iteration.  Options as :func:`solve_regret`."""
    return solve_regret(_payoff_matrix(M), method, iterations, eta=eta, record=True, **options)


def _self_play(method, space1, space2, payoff, payoff_2, player1, player2, iterations, alternating, gamma,
               target_gap, record, track_last, progress) -> RegretResult:
    x, y = player1.next_strategy(), player2.next_strategy()
    utility_x, utility_y = payoff @ y, payoff_2 @ x      # each player's utility vector against the other
    # Running averages of the strategies and of the utility vectors (A avg_y is the average of A y^t).
    avg_x, avg_y = np.zeros_like(x), np.zeros_like(y)
    avg_utility_x, avg_utility_y = np.zeros_like(x), np.zeros_like(y)
    gaps = np.empty(iterations)
    last_gaps = np.empty(iterations) if track_last else None
    history = [np.empty((iterations, v.size)) for v in (x, y, x, y)] if record else None
    total_weight = 0.0
    converged = False
    t = 0
    for t in range(1, iterations + 1):
        weight = float(t) ** gamma
        total_weight += weight
        step = weight / total_weight
        for average, current in ((avg_x, x), (avg_y, y), (avg_utility_x, utility_x), (avg_utility_y, utility_y)):
            average += step * (current - average)
        gaps[t - 1] = space1.best_response_value(avg_utility_x) + space2.best_response_value(avg_utility_y)
        if track_last:
            last_gaps[t - 1] = space1.best_response_value(utility_x) + space2.best_response_value(utility_y)
        if record:
            for store, v in zip(history, (x, y, avg_x, avg_y)):
                store[t - 1] = v
        if progress is not None and t % PROGRESS_EVERY == 0:
            progress(t, float(gaps[t - 1]))
        if target_gap is not None and gaps[t - 1] <= target_gap:
            converged = True
            break
        if t == iterations:
            break
        player1.observe_utility(utility_x)
        x = player1.next_strategy()
        next_utility_y = payoff_2 @ x
        player2.observe_utility(next_utility_y if alternating else utility_y)
        y = player2.next_strategy()
        if not (np.isfinite(x).all() and np.isfinite(y).all()):
            raise RegretError(f"{method} diverged: the strategies became non-finite at iteration {t + 1} "
                              "(overflow); try a smaller step size eta")
        utility_x, utility_y = payoff @ y, next_utility_y
    if progress is not None:
        progress(t, float(gaps[t - 1]))
    xs, ys, avg_xs, avg_ys = [h[:t] for h in history] if record else (None,) * 4
    return RegretResult(method, float(avg_x @ avg_utility_x), float(gaps[t - 1]), avg_x, avg_y, x, y, gaps[:t],
                        None if last_gaps is None else last_gaps[:t], space1.labels, space2.labels, converged,
                        xs, ys, avg_xs, avg_ys)
