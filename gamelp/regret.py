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
  ``m^t = u^{t-1}``, the last utility); and the two rules of Xu, Li, Liu, Fu,
  Fu, Xing & Cheng (2024, "Minimizing weighted counterfactual regret with
  optimistic online mirror descent"): discounted RM+ ``DRM+`` (the
  cumulative regrets scaled by ``d(t-1) = (t-1)^alpha/((t-1)^alpha+1)``
  before each update and clipped at zero; alpha = 1.5) and its predictive
  form ``PDRM+`` (``x^{t+1} ∝ [d(t) R^t + r^t]^+``, the last instantaneous
  regret ``r^t`` as the prediction; alpha = 2.3);
* on a treeplex (a player's sequence-form polytope): counterfactual regret
  minimisation ``CFR`` (Zinkevich et al. 2007), i.e. the laminar regret
  decomposition — one local simplex minimiser per decision point fed with
  counterfactual utilities ``q[ja] = g[ja] + sum_{j' below ja} V[j']``,
  ``V[j] = sum_a b[ja] q[ja]``.  The local minimiser is pluggable
  (any of the above); all decision points are updated together with numpy
  segment reductions, one depth level at a time, on the sequences
  renumbered level by level (:class:`TreeplexLevels`) so that a depth is
  one slice and an iteration runs a few dozen numpy calls whatever the
  number of decision points.  Predictive CFR+
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
saddle-point gap ``max_x' x'^T A y - min_y' x^T A y'``, measured every
``check_every`` iterations.  CFR+ is RM+ at every decision point with
alternating updates and linear averaging (Tammelin 2014; Tammelin, Burch,
Johanson & Bowling 2015); DCFR is discounted RM (alpha = 1.5, beta = 0)
with quadratic averaging (weights ``t^2``: the paper's gamma = 2); PCFR+ is
PRM+ with quadratic averaging; DCFR+ is DRM+ with weights ``t^4`` and
PDCFR+ PDRM+ with weights ``t^5`` (Xu et al. 2024's gamma); all of them
alternate their updates like CFR+.
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
CHECK_EVERY = 10      # iterations between two measurements of the saddle-point gap


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
        self.uniform = 1.0 / sizes[self.owner]  # each entry's probability in a uniform strategy

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
        totals = np.add.reduceat(weights, self.starts)[self.owner]
        return np.divide(weights, totals, out=self.uniform.copy(), where=totals > 0)

    def positive_part(self, v: np.ndarray) -> np.ndarray:
        """Regret matching's strategy: ``[v]^+`` normalised per segment, uniform where no entry is positive."""
        return self.normalise(np.maximum(v, 0.0))

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
        self._strategy = self.segments.positive_part(self.regrets)
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
    return segments.positive_part(regrets + prediction - expected)


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


class DiscountedRegretMatchingPlus(RegretMatching):
    """DCFR+'s local rule (Xu, Li, Liu, Fu, Fu, Xing & Cheng 2024): RM+ on discounted regrets,
    ``R^t = [d(t-1) R^{t-1} + r^t]^+`` with ``d(t) = t^alpha/(t^alpha+1)`` and the instantaneous
    regret ``r^t``; alpha = 1.5."""

    def __init__(self, space, *, alpha: float = 1.5):
        super().__init__(space, plus=True)
        self.alpha = float(alpha)
        self.updates = 0
        self.last_regret = np.zeros(self.segments.size)

    def _discount(self, t: int) -> float:
        return t ** self.alpha / (t ** self.alpha + 1)

    def observe_utility(self, utility: np.ndarray) -> None:
        if self._strategy is None:
            self.next_strategy()
        regret = utility - self.segments.expand(self.segments.sums(self._strategy * utility))
        self.regrets *= self._discount(self.updates)
        self.regrets += regret
        np.maximum(self.regrets, 0.0, out=self.regrets)
        self.last_regret = regret
        self.updates += 1


class PredictiveDiscountedRegretMatchingPlus(DiscountedRegretMatchingPlus):
    """PDCFR+'s local rule (Xu et al. 2024): DCFR+'s discounted RM+ predicting the last
    instantaneous regret, ``x^{t+1} ∝ [d(t) R^t + r^t]^+``; alpha = 2.3."""

    def __init__(self, space, *, alpha: float = 2.3):
        super().__init__(space, alpha=alpha)

    def next_strategy(self) -> np.ndarray:
        self._strategy = self.segments.positive_part(self._discount(self.updates) * self.regrets + self.last_regret)
        return self._strategy


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
                    "prm+": PredictiveRegretMatchingPlus, "drm+": DiscountedRegretMatchingPlus,
                    "pdrm+": PredictiveDiscountedRegretMatchingPlus,
                    "mwu": MWU, "omwu": OMWU}


def local_minimiser(name: str, space, *, eta: float = 0.1) -> RegretMinimiser:
    """A simplex minimiser by name (``rm``, ``rm+``, ``drm``, ``prm+``, ``drm+``, ``pdrm+``, ``mwu``,
    ``omwu``) over ``space``
    (size or Segments)."""
    if name not in LOCAL_MINIMISERS:
        raise RegretError(f"unknown local regret minimiser {name!r} (choose from {sorted(LOCAL_MINIMISERS)})")
    cls = LOCAL_MINIMISERS[name]
    return cls(space, eta=eta) if issubclass(cls, MWU) else cls(space)


# ---------------------------------------------------------------------------------------- treeplexes
@dataclass(frozen=True)
class _Level:
    """The decision points of one depth, in level order: a slice of sequences below a slice of parents."""

    here: slice                    # this depth's sequences (level positions)
    above: slice                   # the depth above (the empty sequence, position 0, for depth 0)
    parent_slot: np.ndarray        # per sequence: its decision point's parent, counted from above.start
    point_parent_slot: np.ndarray  # per decision point: its parent, counted from above.start
    parent_positions: np.ndarray   # per sequence: the level position of its decision point's parent
    segments: Segments             # the decision points' simplices inside ``here``
    parents: int                   # the size of ``above``


class TreeplexLevels:
    """Depth-level layout of a treeplex for vectorised top-down and bottom-up passes.

    The sequences are renumbered in *level order*: the empty sequence, then
    the actions of the decision points of depth 0, of depth 1, ...  A decision
    point's parent sequence belongs to the depth just above it, so each depth
    is one slice and a pass costs a few numpy calls per depth, with no Python
    loop over decision points.  ``order[k]`` is the original index of level
    position ``k``; :meth:`to_levels` and :meth:`to_original` convert vectors.
    All other methods take and return vectors in level order.
    """

    def __init__(self, treeplex: Treeplex):
        self.num_sequences = treeplex.num_sequences
        parents, starts, ends = treeplex.parents, treeplex.starts, treeplex.ends
        depth = np.zeros(treeplex.num_decision_points, dtype=np.int64)
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
        first_point, up_lo, up_hi = 0, 0, 1
        for level_points in by_depth:
            count = level_points.size
            lo, hi = int(point_starts[first_point]), int(point_starts[first_point + count - 1] + sizes[first_point
                                                                                                   + count - 1])
            level_sizes = sizes[first_point:first_point + count]
            point_parent_slot = self.rank[parents[level_points]] - up_lo
            self.levels.append(_Level(slice(lo, hi), slice(up_lo, up_hi), np.repeat(point_parent_slot, level_sizes),
                                      point_parent_slot, np.repeat(point_parent_slot + up_lo, level_sizes),
                                      Segments(point_starts[first_point:first_point + count] - lo,
                                               point_starts[first_point:first_point + count] - lo + level_sizes),
                                      up_hi - up_lo))
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
        x[0] = 1.0
        for level in self.levels:
            np.multiply(behaviour[level.here], x[level.parent_positions], out=x[level.here])
        return x

    def counterfactual_values(self, utility: np.ndarray, behaviour: np.ndarray) -> np.ndarray:
        """``q[s] = utility[s] + sum`` of the values ``V[j] = sum_a b[ja] q[ja]`` of the points below ``s``."""
        q = np.array(utility, dtype=float)
        for level in reversed(self.levels):
            q[level.above] += np.bincount(level.parent_slot, behaviour[level.here] * q[level.here], level.parents)
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
    minimiser at once.  Vectors are in the treeplex's sequence order, or in
    the level order of :class:`TreeplexLevels` with ``level_order=True`` (what
    self-play uses, on a payoff matrix permuted once).
    """

    def __init__(self, treeplex: Treeplex | TreeplexLevels, local: str = "rm+", *, eta: float = 0.1,
                 level_order: bool = False):
        self.levels = treeplex if isinstance(treeplex, TreeplexLevels) else TreeplexLevels(treeplex)
        self.local = local_minimiser(local, self.levels.segments, eta=eta)
        self.level_order = level_order
        self.behaviour = None  # the local strategies, in level order

    @property
    def regrets(self) -> np.ndarray:
        """The local minimisers' cumulative regrets, in the treeplex's sequence order."""
        return self.levels.to_original(self.local.regrets)

    def _out(self, x: np.ndarray) -> np.ndarray:
        return x if self.level_order else self.levels.to_original(x)

    def next_strategy(self) -> np.ndarray:
        self.behaviour = self.local.next_strategy()
        return self._out(self.levels.sequence_form(self.behaviour))

    def observe_utility(self, utility: np.ndarray) -> None:
        if self.behaviour is None:
            self.next_strategy()
        g = utility if self.level_order else self.levels.to_levels(utility)
        self.local.observe_utility(self.levels.counterfactual_values(g, self.behaviour))


class PredictiveCFR(CFR):
    """PCFR+ (Farina, Kroer & Sandholm 2021): PRM+ at every decision point of a treeplex.

    The prediction is the last sequence-form utility ``g^{t-1}``; its
    counterfactual values are taken through the new local strategies, so
    ``next_strategy()`` picks them level by level from the bottom up
    (Farina, Kroer, Brown & Sandholm 2019).
    """

    def __init__(self, treeplex: Treeplex | TreeplexLevels, *, level_order: bool = False):
        super().__init__(treeplex, "prm+", level_order=level_order)
        self.prediction = np.zeros(self.levels.num_sequences)  # level order

    def next_strategy(self) -> np.ndarray:
        local = self.local
        behaviour = np.ones(self.levels.num_sequences)
        q = self.prediction.copy()
        for level in reversed(self.levels.levels):
            here, above = level.here, level.above
            behaviour[here] = _prm_plus_strategy(level.segments, local.regrets[here], q[here], local._strategy[here])
            q[above] += np.bincount(level.parent_slot, behaviour[here] * q[here], level.parents)
        self.behaviour = local._strategy = behaviour
        return self._out(self.levels.sequence_form(behaviour))

    def observe_utility(self, utility: np.ndarray) -> None:
        super().observe_utility(utility)
        self.prediction = np.array(utility if self.level_order else self.levels.to_levels(utility), dtype=float)


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
    "dcfr+": Method("drm+", True, 4.0),
    "pdcfr+": Method("pdrm+", True, 5.0),
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
    gaps: np.ndarray        # gap of the average at each checked iteration
    last_gaps: np.ndarray | None  # gap of the last iterate at each checked iteration (None: not tracked)
    labels_x: tuple[str, ...]
    labels_y: tuple[str, ...]
    checked: np.ndarray     # the iterations whose gaps were measured (every check_every-th and the last)
    converged: bool = False  # the target gap was reached
    xs: np.ndarray | None = field(default=None, repr=False)      # per-iteration iterates (record=True)
    ys: np.ndarray | None = field(default=None, repr=False)
    avg_xs: np.ndarray | None = field(default=None, repr=False)  # per-iteration averages (record=True)
    avg_ys: np.ndarray | None = field(default=None, repr=False)

    @property
    def iterations(self) -> int:
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

    def to_dict(self, player: int = 1) -> dict:
        """JSON-ready summary from ``player``'s side: value, status, the method as backend, gap, strategy.

        The shape of the LP results' summaries (:class:`gamelp.models.GameResult`):
        ``value`` is ``player``'s utility, ``status`` ``converged`` (the target
        gap was reached) or ``iteration_limit``; ``backend`` is the method and
        ``solver_version`` None (no solver ran).
        """
        strategy = self.strategy_dict(player)
        return {"value": self.value if player == 1 else -self.value,
                "status": "converged" if self.converged else "iteration_limit", "backend": self.method,
                "solver_version": None, "player": player, "iterations": self.iterations, "gap": self.gap,
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

    def to_original(self, v: np.ndarray) -> np.ndarray:
        return v


class _TreeplexSpace(TreeplexLevels):
    """A player's strategy space that is a treeplex (a sequence-form game), played in level order."""

    def __init__(self, treeplex: Treeplex):
        super().__init__(treeplex)
        self.labels = treeplex.labels

    def minimiser(self, local: str, eta: float) -> RegretMinimiser:
        if local == "prm+":
            return PredictiveCFR(self, level_order=True)
        return CFR(self, local, eta=eta, level_order=True)


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


def _positive_integer(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise RegretError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def solve_regret(game, method: str = "cfr+", iterations: int = 1000, *, eta: float = 0.1,
                 target_gap: float | None = None, alternating: bool | None = None, averaging=None,
                 record: bool = False, track_last: bool = True, progress=None,
                 check_every: int = CHECK_EVERY) -> RegretResult:
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
    MWU/OMWU step size.  The saddle-point gap is measured every
    ``check_every`` iterations and after the last one (``checked`` lists
    them); the run stops at the first measured gap of the average at most
    ``target_gap``.  ``record=True`` keeps every iterate and running average
    (``xs``, ``ys``, ``avg_xs``, ``avg_ys``); ``track_last=False`` skips the
    last iterate's gaps (``last_gaps`` is None).  ``progress(t, gap)``, when
    given, is called at the first check past every :data:`PROGRESS_EVERY`
    iterations and once at the end with the iteration count and the gap.
    """
    if method not in METHODS:
        raise RegretError(f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    iterations = _positive_integer("iterations", iterations)
    check_every = _positive_integer("check_every", check_every)
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
        payoff = sp.csr_array(game.A.tocsr()[space1.order][:, space2.order])  # level order on both sides
        payoff_2 = sp.csr_array(-payoff.T)
    else:
        payoff = _payoff_matrix(game)
        space1, space2 = _Simplex(payoff.shape[0]), _Simplex(payoff.shape[1])
        payoff_2 = _NegatedTranspose(payoff)
    players = (space1.minimiser(scheme.local, eta), space2.minimiser(scheme.local, eta))
    run = _SelfPlay(method, (space1, space2), (payoff, payoff_2), players, alternating, gamma, record, track_last)
    return run.play(iterations, target_gap, check_every, progress)


def self_play_matrix(M, method: str = "omwu", iterations: int = 1000, *, eta: float = 0.1,
                     **options) -> RegretResult:
    """Self-play on a payoff matrix keeping every iterate: ``xs``/``ys`` (last iterates) and
    ``avg_xs``/``avg_ys`` (running averages), one row per iteration, and the gaps after every
    iteration.  Options as :func:`solve_regret`."""
    return solve_regret(_payoff_matrix(M), method, iterations, eta=eta, record=True,
                        **{"check_every": 1} | options)


class _SelfPlay:
    """One self-play run: both players' minimisers, their weighted averages and the measured gaps.

    On a dense matrix the averages of the utility vectors ``M y^t`` and
    ``-M^T x^t`` are kept too (O(n) per iteration), so a gap check costs no
    matrix product; on a sparse sequence-form game a check multiplies the
    averages instead.
    """

    def __init__(self, method, spaces, payoffs, players, alternating, gamma, record, track_last):
        self.method, self.spaces, self.payoffs, self.players = method, spaces, payoffs, players
        self.alternating, self.gamma, self.record, self.track_last = alternating, gamma, record, track_last
        self.average_utilities = not sp.issparse(payoffs[0])

    def gaps(self, x, y, utility_x, utility_y, avg_x, avg_y, avg_utility_x, avg_utility_y):
        """Saddle-point gaps of the averages and (if tracked) of the last iterates."""
        (space1, space2), (payoff, payoff_2) = self.spaces, self.payoffs
        if not self.average_utilities:
            avg_utility_x, avg_utility_y = payoff @ avg_y, payoff_2 @ avg_x
        gap = space1.best_response_value(avg_utility_x) + space2.best_response_value(avg_utility_y)
        last = (space1.best_response_value(utility_x) + space2.best_response_value(utility_y)
                if self.track_last else None)
        return gap, last, float(avg_x @ avg_utility_x)

    def play(self, iterations, target_gap, check_every, progress) -> RegretResult:
        (space1, space2), (payoff, payoff_2), (player1, player2) = self.spaces, self.payoffs, self.players
        x, y = player1.next_strategy(), player2.next_strategy()
        utility_x, utility_y = payoff @ y, payoff_2 @ x      # each player's utility vector against the other
        avg_x, avg_y = np.zeros_like(x), np.zeros_like(y)
        avg_utility_x, avg_utility_y = (np.zeros_like(x), np.zeros_like(y)) if self.average_utilities else (None,) * 2
        checked, gaps, last_gaps = [], [], []
        history = [np.empty((iterations, v.size)) for v in (x, y, x, y)] if self.record else None
        total_weight, converged, next_progress, value = 0.0, False, PROGRESS_EVERY, 0.0
        for t in range(1, iterations + 1):
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
                    raise RegretError(f"{self.method} diverged: the strategies became non-finite by iteration {t} "
                                      "(overflow); try a smaller step size eta")
                gap, last_gap, value = self.gaps(x, y, utility_x, utility_y, avg_x, avg_y, avg_utility_x,
                                                 avg_utility_y)
                checked.append(t)
                gaps.append(gap)
                last_gaps.append(last_gap)
                if progress is not None and t >= next_progress:
                    progress(t, gap)
                    next_progress = (t // PROGRESS_EVERY + 1) * PROGRESS_EVERY
                if target_gap is not None and gap <= target_gap:
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
        xs, ys, avg_xs, avg_ys = ([to(h[:t].T).T for h, to in zip(history, (to1, to2, to1, to2))] if self.record
                                  else (None,) * 4)
        return RegretResult(self.method, value, gaps[-1], to1(avg_x), to2(avg_y), to1(x), to2(y), np.array(gaps),
                            np.array(last_gaps) if self.track_last else None, space1.labels, space2.labels,
                            np.array(checked), converged, xs, ys, avg_xs, avg_ys)
