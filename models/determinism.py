"""Deterministic strategies and controlled determinism in sequence-form games.

The deterministic ILP is the Nash LP of :mod:`gamelp.models.nash` with the
strategy ``x`` binary.  The k-determinism MIP ``P_p(k)`` (CMU 15-888
Homework 2 (Fall 2021), problem 2.3) adds a binary ``z[ja]`` per sequence, with ``z[ja] = 1`` allowed only if
decision point ``j`` plays ``a`` whenever it is reached::

    x[ja] >= x[p_j] + z[ja] - 1     for every sequence ja   (determinism_link;
                                    at a root point x[p_j] = x[empty] = 1, so
                                    this is the homework's x[ja] >= z[ja])
    sum_a z[ja] <= 1                 for every decision point j (one_action)
    sum z >= k                                                (at_least_k)

The deterministic ILP counts its value in grains.  Every entry of the payoff
matrix is a whole multiple of a grain ``g`` (:func:`value_grain`; Kuhn's 1/6,
the homework's Leduc 1/30, OpenSpiel's Leduc 1/120: payoffs in chips times
chance probabilities), and a pure strategy's value against a pure best
response is ``x^T A y`` with 0/1 vectors, a sum of entries: a whole multiple
of ``g``.  So the model maximises ``g * w`` with ``w`` integer and
``g * w <= f_o^T v``::

    max  g w
    s.t. M^T x - F_o^T v >= 0,  F_p x = f_p,  g w - f_o^T v <= 0   (value_grains)
         x binary,  v free,  w integer

The LP relaxation is still the Nash LP, and no formulation can close the
whole gap: the best pure maximin strategy of a game with chance moves is
NP-hard to find (D. Koller and N. Megiddo, "The complexity of two-person
zero-sum games in extensive form", Games and Economic Behavior 4, 1992), so
branch-and-bound must prove the bound.  What the grain buys is the end of that
proof: a solver that detects an integral objective (HiGHS logs "Objective
function is integral with scale 120"; Gurobi and SCIP detect it too) rounds
every node's bound down to a whole grain and stops once the bound is less than
one grain above the incumbent, where a plain objective ``f_o^T v`` waits for
the bound to meet the incumbent.  It shortens the proof's end, not its bulk:
on OpenSpiel's Leduc (player 2: Nash value 0.0856, best pure value -1/6, found
within seconds) the bound must still fall from the root's -0.03 to -1/6 + 1/120
(``scripts/bench/bench_det_ilp.py`` measures both formulations).  Games whose entries have
no grain (:func:`value_grain` returns None), or one in units far from 1, keep the plain objective.

The value ``V(k)`` is a non-increasing step function from the LP value
(``k = 0``) to the deterministic ILP value (``k = |J_p|``).  :func:`k_sweep`
exploits that instead of solving ``|J_p| + 1`` independent MIPs:

* an optimum of ``P(k)`` that happens to be deterministic at ``d >= k``
  points is optimal for every ``k' <= d`` (it is feasible there and
  ``V(k') <= V(k)``), so those ``k'`` are skipped;
* at each value level a second MIP maximises the number of deterministic
  points subject to keeping the value, which jumps to the end of the level;
* every incumbent of ``P(k)`` is feasible for all ``k' <= k`` and every
  bound of ``P(k)`` bounds all ``k' >= k``, so with a MIP gap the recorded
  curve takes the best incumbent from the right and the best bound from the
  left, which keeps it non-increasing and tightens each point's gap.

Every point of a sweep, by either method (this module's MIPs or the search of
:mod:`gamelp.models.kdet_search`), carries the same flags (:class:`SweepPoint`):
``solved`` (a solve ran at this ``k``), ``proven`` (its bound is within the
sweep's gap of its value), ``status`` (the two together: ``optimal``,
``implied``, ``time_limit`` or ``open``), ``source`` (the ``k`` whose solve
proved the bound) and ``seconds`` (the time spent at this ``k``, 0 where no
solve ran).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp

from gamelp.backends import DEFAULT_BACKEND
from gamelp.display import Raw, Summarised, frame
from gamelp.errors import ModelError, SolveError
from gamelp.game import SequenceFormGame
from gamelp.model import Model
from gamelp.models.nash import NashResult, sequence_form_lp, solve_model
from gamelp.solution import OPTIMAL, TIME_LIMIT, Solution
from gamelp.units import normalised

# Numerical slack when reading determinism off a solution or holding a value level.
DETERMINISM_TOL = 1e-7
# The absolute gap (relative to the payoff range) a MIP sweep's point is proven within when no --abs-gap is
# given: HiGHS's default mip_abs_gap, the largest default of the supported solvers (Gurobi's is 1e-10, SCIP's 0).
SOLVER_ABS_GAP = 1e-6
# Strategies whose values differ by less than this (on payoffs divided by their range) count as equally good.
VALUE_TIE = 1e-12
STATUSES = ("optimal", "implied", "time_limit", "open")
# value_grain: the largest denominator read off an entry, the relative error allowed in that reading, and the
# most grains the largest entry may span.
GRAIN_DENOMINATOR = 10**6
GRAIN_TOLERANCE = 1e-12
GRAIN_STEPS = 1e6
# The grains deterministic_ilp counts in: HiGHS failed on Kuhn's ILP with payoffs times 1e-12 (a grain of 1.7e-13).
GRAIN_LIMITS = (1e-6, 1e6)


def value_grain(game: SequenceFormGame, player: int = 1) -> float | None:
    """The grain ``g`` of pure values: every payoff-matrix entry is a whole multiple of ``g``; None if none is found.

    Each entry divided by the largest, read as a fraction of denominator at most :data:`GRAIN_DENOMINATOR`, must
    be its float to :data:`GRAIN_TOLERANCE` (relative); ``g`` is their greatest common divisor times the largest
    entry.  None also when the fractions' common denominator exceeds :data:`GRAIN_DENOMINATOR` squared, or the
    largest entry spans more than :data:`GRAIN_STEPS` grains (an integer value that fine would prune nothing).
    """
    entries = np.unique(np.abs(game.payoff_matrix(player).data))
    entries = entries[entries > 0]
    if not entries.size:
        return None
    unit = float(entries[-1])  # read relative to the largest entry, so that the payoffs' units do not matter
    grain = Fraction(0)
    for entry in (entries / unit).tolist():
        fraction = Fraction(entry).limit_denominator(GRAIN_DENOMINATOR)
        if abs(float(fraction) - entry) > GRAIN_TOLERANCE * entry:
            return None
        grain = Fraction(
            math.gcd(grain.numerator * fraction.denominator, fraction.numerator * grain.denominator),
            grain.denominator * fraction.denominator,
        )
        if grain.denominator > GRAIN_DENOMINATOR**2:
            return None
    if 1 / grain > GRAIN_STEPS:
        return None
    return float(grain) * unit


def deterministic_ilp(game: SequenceFormGame, player: int = 1) -> Model:
    """The Nash model with binary ``x``, its value counted in grains: the best pure (deterministic) strategy.

    With a grain ``g`` (:func:`value_grain`) the objective is ``g * w``, ``w`` integer, ``g * w <= f_o^T v``
    (rows ``value_grains``): the module docstring says why.  A grain outside :data:`GRAIN_LIMITS` (payoffs in
    units far from 1) keeps the plain objective: the integer column is never scaled (:mod:`gamelp.backends.scaling`),
    so its coefficient must be one the solvers resolve as it is.
    """
    model = sequence_form_lp(game, player, deterministic=True)
    grain = value_grain(game, player)
    if grain is not None and GRAIN_LIMITS[0] <= grain <= GRAIN_LIMITS[1]:
        w = model.add_variables("grains", 1, lb=-np.inf, kind="integer", labels=("value",))
        value = model.objective["v"][None, :]
        model.add_constraints("value_grains", {"v": -value, w: np.array([[grain]])}, "<=", 0.0)
        model.set_objective({w: np.array([grain])}, sense="max")
    return model


def solve_deterministic(
    game: SequenceFormGame, player: int = 1, backend: str = DEFAULT_BACKEND, **options
) -> NashResult:
    """Solve the deterministic ILP: the best pure strategy of ``player`` and its value."""
    return solve_model(game, player, deterministic_ilp(game, player), backend, **options)


def check_k(game: SequenceFormGame, player: int, k: int) -> None:
    """Refuse a ``k`` outside ``0 .. |J_player|``: no strategy is deterministic at more points than the player has.

    The one check of every ``k`` given (``gamelp kdet --k``, ``gamelp export --model kdet --k``, :func:`kdet_mip`).
    """
    total = game.player(player).num_decision_points
    if not 0 <= k <= total:
        raise ModelError(f"k must be between 0 and {total} (player {player}'s decision points), got {k}")


def kdet_mip(game: SequenceFormGame, player: int, k: int) -> Model:
    """``P_player(k)``: the Nash LP plus binary ``z`` forcing determinism at ``k`` or more points."""
    check_k(game, player, k)
    model = sequence_form_lp(game, player)
    model.name = f"{game.name}_kdet{k}_pl{player}"
    _add_determinism(model, game.player(player), k)
    return model


def _add_determinism(model: Model, own, k: int) -> None:
    """Add ``z`` and the determinism constraints (``at_least_k``: ``sum z >= k``) to a Nash model."""
    n = own.num_sequences
    seq = np.arange(1, n)
    owner = own.decision_point_of[seq]
    rows = np.arange(n - 1)
    link_x = sp.csr_matrix((np.ones(n - 1), (rows, seq)), shape=(n - 1, n)) - sp.csr_matrix(
        (np.ones(n - 1), (rows, own.parents[owner])), shape=(n - 1, n)
    )
    z = model.add_variables("z", n - 1, kind="binary", labels=own.labels[1:])
    model.add_constraints("determinism_link", {"x": link_x, z: -sp.identity(n - 1)}, ">=", -1.0)
    model.add_constraints(
        "one_action",
        {z: sp.csr_matrix((np.ones(n - 1), (owner, rows)), shape=(own.num_decision_points, n - 1))},
        "<=",
        1.0,
    )
    model.add_constraints("at_least_k", {z: np.ones((1, n - 1))}, ">=", float(k))


def deterministic_choices(own, x: np.ndarray, tol: float = DETERMINISM_TOL) -> np.ndarray:
    """The ``z`` of ``P(k)`` read off ``x``: 1 for one action per point played whenever the point is reached.

    Unreached points count (``P(k)`` may set their ``z`` freely): their first action is marked.
    """
    x = np.asarray(x, dtype=float)
    z = np.zeros(own.num_sequences)  # by sequence; the empty one (index 0) is dropped at the end
    for start, end, parent in zip(own.starts, own.ends, own.parents):
        hits = np.flatnonzero(x[start:end] >= x[parent] - tol)
        if hits.size:
            z[start + hits[0]] = 1.0
    return z[1:]


def determinism(own, x: np.ndarray, tol: float = DETERMINISM_TOL) -> int:
    """Number of decision points where ``x`` plays one action whenever the point is reached."""
    return int(deterministic_choices(own, x, tol).sum())


@dataclass(repr=False)
class SweepPoint(Summarised):
    """One ``k`` of the sweep: the value, its upper bound, and the strategy that guarantees the value.

    ``determinism`` is the number of decision points ``strategy`` (sequence
    label -> probability) plays deterministically, at least ``k``: that of the
    strategy the point carries, not ``k`` itself.

    The flags mean the same for both sweep methods:

    * ``solved``: a solve ran at this ``k``: a MIP of ``P(k)`` (with the MIP sweep's
      level MIP and greedy LPs), a search of ``P(k)``, the Nash LP at ``k = 0``
      (``P(0)`` is the Nash LP) or the deterministic ILP at ``k = |J|``;
    * ``proven``: the bound is within the sweep's gap of the value (:meth:`within`
      with the sweep's relative and absolute gaps; a MIP sweep without an
      absolute gap uses :data:`SOLVER_ABS_GAP`);
    * ``status``: ``optimal`` (solved here and proven), ``implied`` (proven by
      another ``k``'s solve, ``source``), ``time_limit`` (solved here, but the
      solve stopped before the gap closed), ``open`` (not solved here and not
      proven: a search skipped by ``patience``, or a neighbour stopped early);
    * ``source``: the ``k`` whose solve proved the bound in effect here (this
      ``k`` when its own solve did); None when no solve bounds it (or the
      Lagrangian envelope does);
    * ``seconds``: the time spent at this ``k``, 0 where no solve ran.
    """

    k: int
    value: float
    bound: float
    solved: bool  # a solve ran at this k (False: implied by another k, or left open)
    determinism: int
    strategy: dict[str, float]
    unit: float = 1.0  # the payoff range the sweep ran in (gamelp.units): absolute floors are relative to it
    seconds: float = 0.0  # seconds the sweep spent solving at this k (0 where no solve ran)
    proven: bool = False  # the bound is within the sweep's gap of the value
    source: int | None = None  # the k whose solve proved the bound

    @property
    def status(self) -> str:
        """``optimal``, ``implied``, ``time_limit`` or ``open``: ``solved`` and ``proven`` together."""
        if self.proven:
            return "optimal" if self.solved else "implied"
        return "time_limit" if self.solved else "open"

    @property
    def mip_gap(self) -> float:
        """The relative gap between the bound and the value (values near 0: relative to the payoff range)."""
        return abs(self.bound - self.value) / max(abs(self.value), 1e-10 * self.unit)

    def within(self, rel_gap: float, abs_gap: float = 0.0) -> bool:
        """Whether the bound is within ``rel_gap`` of the value, or within ``abs_gap`` times the payoff range.

        A bound set to exactly the gap (a search's cutoff) counts as within, up to rounding.
        """
        return self.bound - self.value <= max(rel_gap * abs(self.value), abs_gap * self.unit) * (1 + 1e-9)

    def _summary(self) -> dict:
        return {
            "k": self.k,
            "value": self.value,
            "bound": self.bound,
            "status": self.status,
            "determinism": self.determinism,
            "strategy": Raw(f"{len(self.strategy)} sequences"),
        }

    def to_dict(self) -> dict:
        """The point as a JSON-ready dictionary; the flags are the class docstring's, the same for both methods."""
        return {
            "k": self.k,
            "value": self.value,
            "bound": self.bound,
            "mip_gap": self.mip_gap,
            "status": self.status,
            "solved": self.solved,
            "proven": self.proven,
            "source": self.source,
            "seconds": self.seconds,
            "determinism": self.determinism,
            "strategy": self.strategy,
        }


@dataclass(repr=False)
class KSweep(Summarised):
    """The whole curve ``V(k), k = 0..|J|`` for one player, with the work it took."""

    player: int
    points: list[SweepPoint]
    mips_solved: int  # searches, for search_sweep
    lps_solved: int
    wall_time: float
    nodes: int = 0  # branch-and-bound nodes (search_sweep only)
    backend: str = ""  # the backend that solved the MIPs and LPs
    solver_version: str = ""  # its solver's version ("highspy 1.16.0")

    def rescaled(self, unit: float) -> KSweep:
        """This sweep of a game whose payoffs were divided by ``unit``, with values and bounds multiplied back."""
        if unit != 1.0:
            self.points = [
                replace(p, value=p.value * unit, bound=p.bound * unit, unit=p.unit * unit) for p in self.points
            ]
        return self

    @property
    def values(self) -> np.ndarray:
        """The values of the points, in the order of ``k``."""
        return np.array([p.value for p in self.points])

    def _summary(self) -> dict:
        values = self.values
        return {
            "player": self.player,
            "k": Raw(f"0..{len(self.points) - 1}"),
            "values": Raw(f"{values[0]:.6g}..{values[-1]:.6g}") if values.size else None,
            "mips_solved": self.mips_solved,
            "lps_solved": self.lps_solved,
            "nodes": self.nodes or None,
            "wall_time": Raw(f"{self.wall_time:.3g}"),
            "backend": self.backend,
        }

    def _entries(self):
        return "value by k", ((f"k = {p.k}", p.value) for p in self.points)

    def to_frame(self):
        """One row per ``k`` as a pandas DataFrame: k, value, bound, gap, status, source, seconds, determinism.

        ``status``, ``source`` and ``seconds`` are :class:`SweepPoint`'s (``optimal`` where a solve at that ``k``
        proved it, ``implied`` where the solve at ``source`` did); ``gap`` is :attr:`SweepPoint.mip_gap`.
        """
        rows = [(p.k, p.value, p.bound, p.mip_gap, p.status, p.source, p.seconds, p.determinism) for p in self.points]
        columns = ["k", "value", "bound", "gap", "status", "source", "seconds", "determinism"]
        return frame(rows, "a k-sweep table", columns=columns)

    def to_dict(self) -> dict:
        """JSON-ready summary: the player, one row per ``k`` and the work the sweep took."""
        return {
            "player": self.player,
            "points": [p.to_dict() for p in self.points],
            "mips_solved": self.mips_solved,
            "lps_solved": self.lps_solved,
            "nodes": self.nodes,
            "wall_time": self.wall_time,
            "backend": self.backend,
            "solver_version": self.solver_version,
        }


@dataclass(repr=False)
class KdetResult(NashResult):
    """The k-determinism MIP solved at one ``k``."""

    k: int

    def _summary(self) -> dict:
        return {"k": self.k, **super()._summary()}

    def to_dict(self) -> dict:
        """The Nash summary with ``k`` and the MIP gap, the keys a sweep point's row starts with."""
        return {"k": self.k, "mip_gap": self.solution.mip_gap, **super().to_dict()}


def solve_kdet(game: SequenceFormGame, player: int, k: int, backend: str = DEFAULT_BACKEND, **options) -> KdetResult:
    """Solve ``P_player(k)``: the best strategy deterministic at ``k`` or more decision points, and its value."""
    result = solve_model(game, player, kdet_mip(game, player, k), backend, **options)
    return KdetResult(**vars(result), k=k)


def k_sweep(
    game: SequenceFormGame,
    player: int = 1,
    backend: str = DEFAULT_BACKEND,
    *,
    mip_gap: float = 1e-6,
    abs_gap: float | None = None,
    progress: Callable[[int, int], object] | None = None,
    persistent: bool = True,  # pragma: no mutate: reusing the solver's model changes no result
    **options: Any,
) -> KSweep:
    """Value against ``k = 0..|J_player|``, solving as few MIPs as the step structure allows.

    ``P(|J|)`` is solved first, as the deterministic ILP (:func:`deterministic_ilp`, its value in grains): its
    strategy is a feasible start for every ``k``.  Then per value level: ``P(k)`` at the
    first ``k`` of the level, started from the better of the best known
    strategy with enough determinism and a greedy step from the previous
    level (:func:`_greedy_step`, LPs only, re-solved by changing the
    right-hand sides of one persistent model); the most determinism that keeps
    that value (which ends the level; skipped when ``P(k)`` stopped at its
    time limit, since the level is then unknown); and the value of that
    strategy with its choices fixed.  With ``time_limit`` a MIP that stops
    early contributes its incumbent and bound, and the point's ``mip_gap``
    says how far it got.  ``abs_gap`` (relative to the payoff range; default: the solver's own) also ends a
    MIP of ``P(k)`` whose bound is that close to its incumbent: the gap that counts near a value of 0,
    where a relative gap asks for the exact optimum.  ``persistent=False`` builds every LP afresh.
    ``progress`` (optional) is called with ``(k_done, k_total)`` after each level.
    The MIPs are built on the payoffs divided by their range (:func:`gamelp.units.normalised`)
    and the values and bounds multiplied back, so the curve does not depend on the payoffs' units.
    """
    game, unit = normalised(game)
    sweep = _Sweep(game, player, backend, (mip_gap, abs_gap), persistent, options)
    total = sweep.total
    sweep.record(total, sweep.run(deterministic_ilp(game, player)))  # P(|J|): the deterministic ILP, in grains
    sweep.time_at[total] = sweep.wall  # the deterministic ILP, solved first
    k = 0
    while k < total:
        reached = sweep.level(k)
        if progress:
            progress(min(reached + 1, total), total + 1)
        k = reached + 1
    if progress:
        progress(total + 1, total + 1)
    return sweep.result().rescaled(unit)


class _Sweep:
    """One k-sweep in steps: its models, the curve's incumbents and bounds, the strategies found, the work done.

    ``incumbent[k]`` is the best value known feasible for ``P(k)``, ``bound[k]``
    the best proved bound of ``P(k)`` itself; :meth:`result` spreads both
    along ``k`` (incumbents to smaller ``k``, bounds to larger).
    """

    def __init__(
        self,
        game: SequenceFormGame,
        player: int,
        backend: str,
        gaps: tuple[float, float | None],
        persistent: bool,
        options: dict[str, Any],
    ):
        self.player, self.backend, self.persistent, self.options = player, backend, persistent, options
        self.mip_gap, self.abs_gap = gaps  # relative; absolute on the normalised payoffs (P(k) only)
        self.own = game.player(player)
        self.total = self.own.num_decision_points
        self.value_model = kdet_mip(game, player, 0)  # pragma: no mutate: k is set before each solve
        self.level_model = kdet_mip(game, player, 0)
        self.level_model.name = self.value_model.name.replace("kdet0", "kdet_level")
        f_opp = self.value_model.objective["v"]
        keep = {"v": f_opp[None, :]}
        self.level_model.add_constraints("keep_value", keep, ">=", -np.inf)  # pragma: no mutate: set before each solve
        self.level_model.set_objective({"z": np.ones(self.level_model.variables["z"].size)}, sense="max")
        self.choice_lp = _choice_lp(game, player)
        ks = self.total + 1  # k = 0 .. |J|
        self.incumbent = np.full(ks, -np.inf)
        self.bound = np.full(ks, np.inf)
        self.solved = np.zeros(ks, dtype=bool)
        self.known: list[tuple[float, int, dict]] = []  # feasible strategies: (value, determinism, values)
        self.mips = self.lps = 0
        self.wall = 0.0
        self.time_at = np.zeros(ks)  # solver seconds spent at each k
        self.solver_backend = self.solver_version = ""  # as the solutions report them

    def run(self, model: Model, start: dict | None = None) -> Solution:
        """Solve ``model`` (from ``start``), count the work; refuse a solve that found no strategy."""
        # The greedy step's LPs differ by a few right-hand sides: one persistent model, warm-started.
        sol = model.solve(
            self.backend,
            mip_gap=self.mip_gap,
            mip_abs_gap=None if model is self.level_model else self.abs_gap,  # P(k)'s gap, the ILP's included
            start=start,
            persistent=self.persistent and not model.is_mip,
            **self.options,
        )
        if model.is_mip:
            self.mips += 1
        else:
            self.lps += 1
        self.wall += sol.wall_time
        self.solver_backend, self.solver_version = sol.backend, sol.solver_version
        if not sol.values or sol.status not in (OPTIMAL, TIME_LIMIT):
            raise SolveError(f"{model.name} on {self.backend}: {sol.status}")
        return sol

    def remember(self, value: float, x: np.ndarray, v: np.ndarray) -> int:
        """A feasible strategy: its value holds for every k up to its determinism."""
        reached = determinism(self.own, x)
        self.incumbent[: reached + 1] = np.maximum(self.incumbent[: reached + 1], value)
        self.known.append((value, reached, {"x": x, "v": v, "z": deterministic_choices(self.own, x)}))
        return reached

    def record(self, k: int, sol: Solution) -> int:
        """A solution of P(k): an incumbent, and a bound for k and beyond."""
        self.solved[k] = True
        value = _objective(sol)
        if sol.objective_bound is not None:
            proven = max(sol.objective_bound, value)
        else:  # an optimum proves its own value; a MIP stopped before any bound proves nothing
            proven = value if sol.status == OPTIMAL else np.inf
        self.bound[k] = min(self.bound[k], proven)
        return max(k, self.remember(value, sol.values["x"], sol.values["v"]))

    def best_known(self, k: int) -> tuple[float, int, dict]:
        """The best known strategy deterministic at ``k`` or more points; of equally good ones, the most deterministic.

        Values within :data:`VALUE_TIE` count as equal, so that rounding in the last digits does not decide.
        """
        candidates = [item for item in self.known if item[1] >= k]
        best = max(item[0] for item in candidates)
        return max((item for item in candidates if item[0] >= best - VALUE_TIE), key=lambda item: item[1])

    def level(self, k: int) -> int:
        """Solve ``P(k)`` at the first ``k`` of a value level; returns the last ``k`` the level is known to hold."""
        own, began = self.own, self.wall
        # Every known strategy has determinism >= 0, so the greedy step runs from k = 1 on.
        if self.best_known(k - 1)[1] < k:  # pragma: no mutate: the greedy step only offers a start
            step = _greedy_step(self.choice_lp, own, self.best_known(k - 1)[2]["x"], self.run)
            if step is not None:
                self.remember(step.objective, step.values["x"], step.values["v"])
        self.value_model.set_rhs("at_least_k", k)
        sol = self.run(self.value_model, self.best_known(k)[2])
        reached = self.record(k, sol)
        if reached < self.total and sol.status == OPTIMAL:  # a value level is known only at an optimum
            value = _objective(sol)
            # k_sweep divides the payoffs by their range, so |value| <= 1 and the tolerance is absolute.
            self.level_model.set_rhs("keep_value", value - DETERMINISM_TOL)
            level = self.run(self.level_model, sol.values)
            if determinism(own, level.values["x"]) > reached:
                # The level MIP keeps the value only to a tolerance: re-solve with its choices fixed.
                polished = _solve_with_choices(self.choice_lp, level.values["z"], self.run)
                reached = max(reached, self.remember(polished.objective, polished.values["x"], polished.values["v"]))
        self.time_at[k] += self.wall - began
        return reached

    def result(self) -> KSweep:
        """The curve: incumbents hold for every smaller k (see remember), bounds for every larger k."""
        bound = np.maximum(np.minimum.accumulate(self.bound), self.incumbent)
        sources = bound_sources(self.bound)
        abs_gap = SOLVER_ABS_GAP if self.abs_gap is None else self.abs_gap
        points = []
        for k in range(self.total + 1):
            x = self.best_known(k)[2]["x"]
            point = SweepPoint(
                k,
                float(self.incumbent[k]),
                float(bound[k]),
                bool(self.solved[k]),
                determinism(self.own, x),
                dict(zip(self.own.labels, x.tolist())),
                seconds=float(self.time_at[k]),
                source=sources[k],
            )
            point.proven = point.within(self.mip_gap, abs_gap)
            points.append(point)
        return KSweep(
            self.player,
            points,
            self.mips,
            self.lps,
            self.wall,
            backend=self.solver_backend,
            solver_version=self.solver_version,
        )


def bound_sources(bounds: np.ndarray) -> list[int | None]:
    """For each ``k``, the ``k' <= k`` whose own bound (``bounds[k']``, infinite where none) is the least so far.

    A bound proved at ``k'`` bounds every larger ``k``; on a tie the latest ``k'`` is the source; None before
    the first finite bound.
    """
    sources: list[int | None] = []
    best, at = np.inf, None
    for k, bound in enumerate(bounds):
        if bound <= best and np.isfinite(bound):
            best, at = bound, k
        sources.append(at)
    return sources


def _objective(sol: Solution) -> float:
    """The objective of a solution that has a point (:meth:`_Sweep.run` accepts no other)."""
    if sol.objective is None:
        raise SolveError(f"{sol.backend}: a solution with a point but no objective ({sol.status})")
    return sol.objective


def _choice_lp(game: SequenceFormGame, player: int) -> Model:
    """The Nash LP plus ``x[ja] - x[p_j] >= rhs[ja]``: rhs 0 fixes action a at j, rhs -1 leaves it free."""
    model = sequence_form_lp(game, player)
    model.name = model.name.replace("nash", "fixed_choices")
    own = game.player(player)
    n = own.num_sequences
    seq = np.arange(1, n)
    rows = np.arange(n - 1)
    link = sp.csr_matrix((np.ones(n - 1), (rows, seq)), shape=(n - 1, n)) - sp.csr_matrix(
        (np.ones(n - 1), (rows, own.parents[own.decision_point_of[seq]])), shape=(n - 1, n)
    )
    model.add_constraints("fixed_choice", {"x": link}, ">=", -1.0)  # pragma: no mutate: set before each solve
    return model


def _solve_with_choices(choice_lp: Model, z: np.ndarray, run):
    """Best strategy playing the choices ``z`` (1 = that action whenever its point is reached)."""
    choice_lp.set_rhs("fixed_choice", np.where(z == 1, 0.0, -1.0))
    return run(choice_lp)


def _greedy_step(choice_lp: Model, own, x: np.ndarray, run):
    """One more deterministic point than ``x``: keep its choices, try every action at every mixed point.

    One LP per candidate (point, action); returns the best solution, or None if no point is mixed.
    """
    z = deterministic_choices(own, x)
    best = None
    for j in range(own.num_decision_points):
        candidates = range(own.starts[j] - 1, own.ends[j] - 1)
        if z[candidates.start : candidates.stop].any():
            continue
        for s in candidates:
            trial = z.copy()
            trial[s] = 1.0
            sol = _solve_with_choices(choice_lp, trial, run)
            if best is None or sol.objective > best.objective:
                best = sol
    return best
