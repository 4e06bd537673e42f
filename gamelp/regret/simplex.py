"""Regret minimisers on a simplex, vectorised over many simplices at once.

One interface (:class:`RegretMinimiser`): ``next_strategy()`` returns the
strategy ``x^t`` to play, ``observe_utility(u)`` feeds back the utility vector
it earned (utility ``u . x``).  Every minimiser runs on one simplex (``space``
= its size) or on every segment of a :class:`Segments` at once, which is how
CFR (:mod:`gamelp.regret.cfr`) runs one local minimiser per decision point.

Follow-the-regularised-leader with the negative entropy
``omega(x) = sum_i x_i log x_i``:

* ``MWU``, multiplicative weights, and ``OMWU``, its optimistic form
  (predictive FTRL): ``x^t = softmax(eta (L^{t-1} + m^t))`` with ``L`` the
  cumulative utility and the prediction ``m^t = 0`` (MWU) or ``m^t = l^{t-1}``
  (OMWU).  Predictive FTRL gives the bound of CMU 15-888 Homework 2 (Fall 2021),
  Problem 1.8:
  ``R^T <= log(n)/eta + eta sum_t ||l^t - m^t||_inf^2 - 1/(4 eta) sum_{t>=2} ||x^t - x^{t-1}||_1^2``.

Regret matching, with the cumulative regrets ``R^t = sum_s r^s`` and the
instantaneous regret ``r^t = u^t - <u^t, x^t> 1``:

* ``RM`` (Hart & Mas-Colell 2000, "A simple adaptive procedure leading to
  correlated equilibrium", Econometrica): ``x^{t+1} ∝ [R^t]^+``, uniform where
  no regret is positive;
* ``RM+`` (Tammelin 2014, "Solving large imperfect information games using
  CFR+", arXiv:1407.5042): ``R^t = [R^{t-1} + r^t]^+``, clipped at zero after
  every update.

The local rules of the discounted and predictive members of the CFR family:

* ``DRM``, DCFR's rule (Brown & Sandholm 2019, "Solving imperfect-information
  games via discounted regret minimization", AAAI, the section on Discounted
  CFR): after update ``t`` positive cumulative regrets are scaled by
  ``t^alpha/(t^alpha+1)``, the others by ``t^beta/(t^beta+1)``; alpha = 1.5,
  beta = 0;
* ``PRM+``, predictive RM+ (Farina, Kroer & Sandholm 2021, "Faster game
  solving via predictive Blackwell approachability", AAAI):
  ``x^t ∝ [R^{t-1} + m^t - <m^t, x^{t-1}> 1]^+`` with the prediction
  ``m^t = u^{t-1}``, the last utility;
* ``DRM+`` and ``PDRM+`` (Xu, Li, Liu, Fu, Fu, Xing & Cheng 2024, "Minimizing
  weighted counterfactual regret with optimistic online mirror descent",
  IJCAI): RM+ on discounted regrets, ``R^t = [d(t-1) R^{t-1} + r^t]^+`` with
  ``d(t) = t^alpha/(t^alpha+1)`` (alpha = 1.5), and its predictive form
  ``x^{t+1} ∝ [d(t) R^t + r^t]^+``, the last instantaneous regret as the
  prediction (alpha = 2.3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

import gamelp.regret.kernels as kernels
from gamelp.errors import RegretError

DEFAULT_ETA = 0.1  # the step size of MWU and OMWU unless one is given
DRM_ALPHA, DRM_BETA = 1.5, 0.0  # DCFR's discount exponents (Brown & Sandholm 2019)
DRM_PLUS_ALPHA = 1.5  # DCFR+'s (Xu et al. 2024)
PDRM_PLUS_ALPHA = 2.3  # PDCFR+'s (Xu et al. 2024)


class Segments:
    """A vector cut into consecutive simplices ``[starts[k], ends[k])`` that cover it in order."""

    def __init__(self, starts: npt.ArrayLike, ends: npt.ArrayLike):
        self.starts = np.asarray(starts, dtype=np.int64)
        self.ends = np.asarray(ends, dtype=np.int64)
        sizes = self.ends - self.starts
        if (
            self.starts.size == 0
            or self.starts[0] != 0
            or np.any(sizes < 1)
            or np.any(self.starts[1:] != self.ends[:-1])
        ):
            raise RegretError("segments must be non-empty, consecutive and start at 0")
        self.size = int(self.ends[-1])
        self.bounds = np.append(self.starts, self.size)  # segment k is [bounds[k], bounds[k+1]), for the kernels
        self.owner = np.repeat(np.arange(self.starts.size), sizes)
        self.kernels = kernels.implementation()  # C, or numpy where the extension is not built

    @classmethod
    def simplex(cls, n: int) -> Segments:
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

    def positive_part(self, v: np.ndarray) -> np.ndarray:
        """Regret matching's strategy: ``[v]^+`` normalised per segment, uniform where no entry is positive."""
        out = np.empty(self.size)
        self.kernels.positive_part(self.bounds, np.ascontiguousarray(v, dtype=float), out)
        return out

    def regret(self, strategy: np.ndarray, utility: np.ndarray) -> np.ndarray:
        """The regret of each action for ``utility`` against ``strategy``: ``u - <x, u>`` per segment."""
        out = np.empty(self.size)
        self.kernels.regret(
            self.bounds, np.ascontiguousarray(strategy, dtype=float), np.ascontiguousarray(utility, dtype=float), out
        )
        return out

    def softmax(self, logits: np.ndarray) -> np.ndarray:
        """Per-segment softmax (shifted by the segment maximum for stability)."""
        shifted = np.exp(logits - self.expand(np.maximum.reduceat(logits, self.starts)))
        return shifted / self.expand(self.sums(shifted))


Space = int | Segments  # one simplex of that size, or every segment of a Segments


def _as_segments(space: Space) -> Segments:
    return space if isinstance(space, Segments) else Segments.simplex(space)


class RegretMinimiser:
    """Interface: ``next_strategy()`` then ``observe_utility(u)``, repeated; ``u . x`` is the utility earned."""

    def next_strategy(self) -> np.ndarray:
        """The strategy to play next, one probability vector per segment; every minimiser implements it."""
        raise NotImplementedError

    def observe_utility(self, utility: np.ndarray) -> None:
        """Take the utility of each action for the strategy last played; every minimiser implements it."""
        raise NotImplementedError


class RegretMatching(RegretMinimiser):
    """Regret matching on one simplex (``space`` = its size) or on every segment of ``space`` at once.

    ``plus=True`` is RM+: cumulative regrets are clipped at zero after each update.
    """

    def __init__(self, space: Space, *, plus: bool = False):
        self.segments = _as_segments(space)
        self.plus = plus
        self.regrets = np.zeros(self.segments.size)
        self._strategy: np.ndarray | None = None  # the last strategy played (None: none yet)

    def next_strategy(self) -> np.ndarray:
        """The positive part of the cumulative regrets, normalised per segment (uniform where none is positive)."""
        self._strategy = strategy = self.segments.positive_part(self.regrets)
        return strategy

    def _played(self) -> np.ndarray:
        """The last strategy played, picked now if none was asked for yet."""
        return self.next_strategy() if self._strategy is None else self._strategy

    def observe_utility(self, utility: np.ndarray) -> None:
        """Add the regrets of ``utility`` against the strategy played (clipped at zero for RM+)."""
        self._add_regret(utility)

    def _add_regret(self, utility: np.ndarray) -> np.ndarray:
        """Add the instantaneous regret of ``utility`` (clipped at zero for RM+) and return it."""
        regret = self.segments.regret(self._played(), utility)
        self.regrets += regret
        if self.plus:
            np.maximum(self.regrets, 0.0, out=self.regrets)
        return regret


class RegretMatchingPlus(RegretMatching):
    """RM+ (Tammelin 2014): regret matching on regrets clipped at zero."""

    def __init__(self, space: Space):
        super().__init__(space, plus=True)


class DiscountedRegretMatching(RegretMatching):
    """DCFR's local rule (Brown & Sandholm 2019).

    Regret matching whose cumulative regrets are scaled after update ``t`` by ``t^alpha/(t^alpha+1)`` where positive,
    ``t^beta/(t^beta+1)`` where not.
    """

    def __init__(self, space: Space, *, alpha: float = DRM_ALPHA, beta: float = DRM_BETA):
        super().__init__(space)
        self.alpha, self.beta = float(alpha), float(beta)
        self.updates = 0

    def observe_utility(self, utility: np.ndarray) -> None:
        """Add the regrets of ``utility``, then discount positive and negative regrets by this update's factors."""
        super().observe_utility(utility)
        self.updates += 1
        t = float(self.updates)
        positive, negative = t**self.alpha / (t**self.alpha + 1), t**self.beta / (t**self.beta + 1)
        self.regrets *= np.where(self.regrets > 0, positive, negative)  # pragma: no mutate: 0 stays 0 either way


def prm_plus_strategy(
    segments: Segments, regrets: np.ndarray, prediction: np.ndarray, previous: np.ndarray
) -> np.ndarray:
    """PRM+'s next local strategies: ``[R + m - <m, x_prev> 1]^+`` normalised per segment."""
    return segments.positive_part(regrets + segments.regret(previous, prediction))


class PredictiveRegretMatchingPlus(RegretMatching):
    """PRM+ (Farina, Kroer & Sandholm 2021).

    RM+ on the regrets plus the predicted regret of the last utility,
    ``x^t ∝ [R^{t-1} + u^{t-1} - <u^{t-1}, x^{t-1}> 1]^+``.
    """

    def __init__(self, space: Space):
        super().__init__(space, plus=True)
        self.prediction = np.zeros(self.segments.size)
        self._strategy: np.ndarray = self.segments.positive_part(self.prediction)  # x^0: uniform, never None

    def next_strategy(self) -> np.ndarray:
        """The PRM+ strategy from the regrets and the predicted (last) utility."""
        self._strategy = strategy = prm_plus_strategy(self.segments, self.regrets, self.prediction, self._strategy)
        return strategy

    def observe_utility(self, utility: np.ndarray) -> None:
        """Add the regrets of ``utility`` and keep it as the next prediction."""
        super().observe_utility(utility)
        self.prediction = np.array(utility)  # a copy: the caller may reuse its buffer


class DiscountedRegretMatchingPlus(RegretMatching):
    """DCFR+'s local rule (Xu, Li, Liu, Fu, Fu, Xing & Cheng 2024).

    RM+ on discounted regrets, ``R^t = [d(t-1) R^{t-1} + r^t]^+`` with ``d(t) = t^alpha/(t^alpha+1)`` and the
    instantaneous regret ``r^t``; alpha = 1.5.
    """

    def __init__(self, space: Space, *, alpha: float = DRM_PLUS_ALPHA):
        super().__init__(space, plus=True)
        self.alpha = float(alpha)
        self.updates = 0
        self.last_regret = np.zeros(self.segments.size)

    def _discount(self, t: int) -> float:
        return t**self.alpha / (t**self.alpha + 1)

    def observe_utility(self, utility: np.ndarray) -> None:
        """Discount the regrets, add the instantaneous regret of ``utility`` and clip at zero."""
        self._played()  # the strategy the regret is measured against: picked from the regrets before the discount
        self.regrets *= self._discount(self.updates)
        self.last_regret = self._add_regret(utility)
        self.updates += 1


class PredictiveDiscountedRegretMatchingPlus(DiscountedRegretMatchingPlus):
    """PDCFR+'s local rule (Xu et al. 2024).

    DCFR+'s discounted RM+ predicting the last instantaneous regret, ``x^{t+1} ∝ [d(t) R^t + r^t]^+``; alpha = 2.3.
    """

    def __init__(self, space: Space, *, alpha: float = PDRM_PLUS_ALPHA):
        super().__init__(space, alpha=alpha)

    def next_strategy(self) -> np.ndarray:
        """The strategy from the discounted regrets plus the last instantaneous regret as prediction."""
        self._strategy = strategy = self.segments.positive_part(
            self._discount(self.updates) * self.regrets + self.last_regret
        )
        return strategy


class MWU(RegretMinimiser):
    """Multiplicative weights = FTRL with negative entropy: ``x^t = softmax(eta (L^{t-1} + m^t))``.

    ``optimistic=True`` predicts ``m^t = l^{t-1}`` (OMWU, predictive FTRL); otherwise ``m^t = 0``.
    """

    def __init__(self, space: Space, *, eta: float = DEFAULT_ETA, optimistic: bool = False):
        if not np.isfinite(eta) or eta <= 0:
            raise RegretError(f"the step size eta must be a positive number, got {eta!r}")
        self.segments = _as_segments(space)
        self.eta = float(eta)
        self.optimistic = optimistic
        self.cumulative = np.zeros(self.segments.size)
        self.prediction = np.zeros(self.segments.size)

    def next_strategy(self) -> np.ndarray:
        """The softmax of ``eta`` times the cumulative utility (plus the prediction when optimistic), per segment."""
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is caught by the self-play loop
            return self.segments.softmax(self.eta * (self.cumulative + self.prediction))

    def observe_utility(self, utility: np.ndarray) -> None:
        """Add ``utility`` to the cumulative utility (and keep it as the prediction when optimistic)."""
        self.cumulative += utility
        if self.optimistic:
            self.prediction = np.array(utility)  # a copy: the caller may reuse its buffer


class OMWU(MWU):
    """Optimistic MWU: predictive FTRL with negative entropy, predicting the last utility."""

    def __init__(self, space: Space, *, eta: float = DEFAULT_ETA):
        super().__init__(space, eta=eta, optimistic=True)


@dataclass(frozen=True)
class LocalRule:
    """A local regret minimiser described by its flags; :meth:`build` picks the update above that implements them.

    OpenSpiel's CFR solvers are one class whose subclasses set flags (regret matching plus, discounting,
    prediction); here a rule is those flags.
    ``entropy``: follow-the-regularised-leader with the negative entropy (MWU) instead of regret matching;
    ``plus``: cumulative regrets clipped at zero after every update (RM+);
    ``alpha`` and ``beta``: discounted regrets (None: none), positive ones scaled by ``t^alpha/(t^alpha+1)``,
    the others by ``t^beta/(t^beta+1)``; with ``plus`` the discount comes before the update and only alpha
    counts (DRM+, Xu et al. 2024), without it after the update (DRM, Brown & Sandholm 2019);
    ``predictive``: optimism, the last utility as the prediction (OMWU, PRM+) or, with discounting, the last
    instantaneous regret (PDRM+).  A combination no update implements is refused.
    """

    entropy: bool = False
    plus: bool = False
    alpha: float | None = None
    beta: float | None = None
    predictive: bool = False

    def __post_init__(self) -> None:
        if self.entropy and (self.plus or self.alpha is not None or self.beta is not None):
            raise RegretError("an entropy (MWU) rule has no regrets to clip or discount")
        if not self.entropy and (self.beta is not None) != (self.alpha is not None and not self.plus):
            raise RegretError("discounting needs alpha, and beta too unless regrets are clipped at zero (plus=True)")
        if self.predictive and not self.entropy and not self.plus:
            raise RegretError("predictive regret matching is implemented on regrets clipped at zero (plus=True)")

    def build(self, space: Space, *, eta: float = DEFAULT_ETA) -> RegretMinimiser:
        """A minimiser of this rule over ``space`` (a size or Segments); ``eta`` is the step of an entropy rule."""
        if self.entropy:
            return MWU(space, eta=eta, optimistic=self.predictive)
        if self.alpha is None:
            return PredictiveRegretMatchingPlus(space) if self.predictive else RegretMatching(space, plus=self.plus)
        if self.beta is not None:  # discounted without clipping
            return DiscountedRegretMatching(space, alpha=self.alpha, beta=self.beta)
        discounted = PredictiveDiscountedRegretMatchingPlus if self.predictive else DiscountedRegretMatchingPlus
        return discounted(space, alpha=self.alpha)


PRM_PLUS = LocalRule(plus=True, predictive=True)  # what PCFR+ (gamelp.regret.cfr.PredictiveCFR) runs at every point

# The local rules by name, with each paper's parameters (the defaults of the classes above too).
LOCAL_MINIMISERS: dict[str, LocalRule] = {
    "rm": LocalRule(),
    "rm+": LocalRule(plus=True),
    "drm": LocalRule(alpha=DRM_ALPHA, beta=DRM_BETA),
    "prm+": PRM_PLUS,
    "drm+": LocalRule(plus=True, alpha=DRM_PLUS_ALPHA),
    "pdrm+": LocalRule(plus=True, alpha=PDRM_PLUS_ALPHA, predictive=True),
    "mwu": LocalRule(entropy=True),
    "omwu": LocalRule(entropy=True, predictive=True),
}


def as_rule(local: str | LocalRule) -> LocalRule:
    """``local`` itself, or the rule of that name in :data:`LOCAL_MINIMISERS`."""
    if isinstance(local, LocalRule):
        return local
    if local not in LOCAL_MINIMISERS:
        raise RegretError(f"unknown local regret minimiser {local!r} (choose from {sorted(LOCAL_MINIMISERS)})")
    return LOCAL_MINIMISERS[local]


def local_minimiser(name: str | LocalRule, space: Space, *, eta: float = DEFAULT_ETA) -> RegretMinimiser:
    """A simplex minimiser of a rule, or of its name in :data:`LOCAL_MINIMISERS`, over ``space`` (a size or Segments).

    The names are ``rm``, ``rm+``, ``drm``, ``prm+``, ``drm+``, ``pdrm+``, ``mwu`` and ``omwu``.
    """
    return as_rule(name).build(space, eta=eta)
