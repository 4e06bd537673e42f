"""Deterministic strategies and controlled determinism in sequence-form games.

The deterministic ILP is the Nash LP of :mod:`gamelp.models.nash` with the
strategy ``x`` binary.  The k-determinism MIP ``P_p(k)`` (seed 004, problem
2.3) adds a binary ``z[ja]`` per sequence, with ``z[ja] = 1`` allowed only if
decision point ``j`` plays ``a`` whenever it is reached::

    x[ja] >= x[p_j] + z[ja] - 1     for every sequence ja   (determinism_link;
                                    at a root point x[p_j] = x[empty] = 1, so
                                    this is the homework's x[ja] >= z[ja])
    sum_a z[ja] <= 1                 for every decision point j (one_action)
    sum z >= k                                                (at_least_k)

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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from gamelp.backends import DEFAULT_BACKEND
from gamelp.game import SequenceFormGame
from gamelp.model import Model
from gamelp.models.nash import NashResult, sequence_form_lp, solve_model
from gamelp.errors import SolveError
from gamelp.solution import OPTIMAL, TIME_LIMIT

# Numerical slack when reading determinism off a solution or holding a value level.
DETERMINISM_TOL = 1e-7


def deterministic_ilp(game: SequenceFormGame, player: int = 1) -> Model:
    """The Nash model with binary ``x``: the best pure (deterministic) strategy."""
    return sequence_form_lp(game, player, deterministic=True)


def solve_deterministic(game: SequenceFormGame, player: int = 1, backend: str = DEFAULT_BACKEND,
                        **options) -> NashResult:
    return solve_model(game, player, deterministic_ilp(game, player), backend, **options)


def kdet_mip(game: SequenceFormGame, player: int, k: int) -> Model:
    """``P_player(k)``: the Nash LP plus binary ``z`` forcing determinism at ``k`` or more points."""
    model = sequence_form_lp(game, player)
    model.name = f"{game.name}_kdet{k}_pl{player}"
    _add_determinism(model, game.player(player))
    model.constraints["at_least_k"].rhs[:] = k
    return model


def _add_determinism(model: Model, own) -> None:
    """Add ``z`` and the determinism constraints (``at_least_k`` with rhs 0) to a Nash model."""
    n = own.num_sequences
    seq = np.arange(1, n)
    owner = own.decision_point_of[seq]
    rows = np.arange(n - 1)
    link_x = sp.csr_matrix((np.ones(n - 1), (rows, seq)), shape=(n - 1, n)) \
        - sp.csr_matrix((np.ones(n - 1), (rows, own.parents[owner])), shape=(n - 1, n))
    z = model.add_variables("z", n - 1, kind="binary", labels=own.labels[1:])
    model.add_constraints("determinism_link", {"x": link_x, z: -sp.identity(n - 1)}, ">=", -1.0)
    model.add_constraints("one_action", {z: sp.csr_matrix((np.ones(n - 1), (owner, rows)),
                                                          shape=(own.num_decision_points, n - 1))}, "<=", 1.0)
    model.add_constraints("at_least_k", {z: np.ones((1, n - 1))}, ">=", 0.0)


def deterministic_choices(own, x: np.ndarray, tol: float = DETERMINISM_TOL) -> np.ndarray:
    """The ``z`` of ``P(k)`` read off ``x``: 1 for one action per point played whenever the point is reached.

    Unreached points count (``P(k)`` may set their ``z`` freely): their first action is marked.
    """
    x = np.asarray(x, dtype=float)
    pure = x[1:] >= x[own.parents[own.decision_point_of[1:]]] - tol
    z = np.zeros(own.num_sequences - 1)
    for j in range(own.num_decision_points):
        hits = np.flatnonzero(pure[own.starts[j] - 1: own.ends[j] - 1])
        if hits.size:
            z[own.starts[j] - 1 + hits[0]] = 1.0
    return z


def determinism(own, x: np.ndarray, tol: float = DETERMINISM_TOL) -> int:
    """Number of decision points where ``x`` plays one action whenever the point is reached."""
    return int(deterministic_choices(own, x, tol).sum())


@dataclass
class SweepPoint:
    """One ``k`` of the sweep: the value (best incumbent), its upper bound, and the MIP relative gap."""

    k: int
    value: float
    bound: float
    solved: bool  # a MIP was solved at this k (False: implied by a neighbour)

    @property
    def mip_gap(self) -> float:
        return abs(self.bound - self.value) / max(abs(self.value), 1e-10)

    def as_dict(self) -> dict:
        return {"k": self.k, "value": self.value, "bound": self.bound, "mip_gap": self.mip_gap,
                "solved": self.solved}


@dataclass
class KSweep:
    """The whole curve ``V(k), k = 0..|J|`` for one player, with the work it took."""

    player: int
    points: list[SweepPoint]
    mips_solved: int
    wall_time: float

    @property
    def values(self) -> np.ndarray:
        return np.array([p.value for p in self.points])


def solve_kdet(game: SequenceFormGame, player: int, k: int, backend: str = DEFAULT_BACKEND,
               **options) -> NashResult:
    return solve_model(game, player, kdet_mip(game, player, k), backend, **options)


def k_sweep(game: SequenceFormGame, player: int = 1, backend: str = DEFAULT_BACKEND, *,
            mip_gap: float = 1e-6, progress=None, **options) -> KSweep:
    """Value against ``k = 0..|J_player|``, solving as few MIPs as the step structure allows.

    ``P(|J|)`` (the deterministic ILP) is solved first: its strategy is a
    feasible start for every ``k``.  Then per value level: ``P(k)`` at the
    first ``k`` of the level, started from the best known strategy with
    enough determinism; the most determinism that keeps that value (which
    ends the level); and the value of that strategy with its choices fixed.
    With ``time_limit`` a MIP that stops early contributes its incumbent and
    bound, and the point's ``mip_gap`` says how far it got.  ``progress``
    (optional) is called with ``(k_done, k_total)`` after each level.
    """
    own = game.player(player)
    total = own.num_decision_points
    value_model = kdet_mip(game, player, 0)
    level_model = kdet_mip(game, player, 0)
    level_model.name = value_model.name.replace("kdet0", "kdet_level")
    f_opp = value_model.objective["v"]
    keep_value = level_model.add_constraints("keep_value", {"v": f_opp[None, :]}, ">=", -np.inf)
    level_model.set_objective({"z": np.ones(level_model.variables["z"].size)}, sense="max")

    incumbent = np.full(total + 1, -np.inf)
    bound = np.full(total + 1, np.inf)
    solved = np.zeros(total + 1, dtype=bool)
    known: list[tuple[float, int, dict]] = []  # feasible strategies: (value, determinism, values)
    mips, wall = 0, 0.0

    def run(model: Model, start: dict | None = None):
        nonlocal mips, wall
        sol = model.solve(backend, mip_gap=mip_gap, start=start, **options)
        mips += 1
        wall += sol.wall_time
        if not sol.values or sol.status not in (OPTIMAL, TIME_LIMIT):
            raise SolveError(f"{model.name} on {backend}: {sol.status}")
        return sol

    def record(k: int, sol) -> int:
        """Store a P(k) solution: its value holds up to its determinism, its bound from k on."""
        value = sol.objective
        solved[k] = True
        bound[k] = min(bound[k], value + (sol.mip_gap or 0.0) * max(abs(value), 1e-10))
        reached = max(k, determinism(own, sol.values["x"]))
        incumbent[: reached + 1] = np.maximum(incumbent[: reached + 1], value)
        known.append((value, reached, sol.values))
        return reached

    def best_start(k: int) -> dict:
        return max((item for item in known if item[1] >= k), key=lambda item: item[0])[2]

    # The deterministic end first: its solution is a feasible start for every k.
    value_model.constraints["at_least_k"].rhs[:] = total
    record(total, run(value_model))
    k = 0
    while k < total:
        value_model.constraints["at_least_k"].rhs[:] = k
        sol = run(value_model, best_start(k))
        reached = record(k, sol)
        if reached < total:
            keep_value.rhs[:] = sol.objective - DETERMINISM_TOL * max(1.0, abs(sol.objective))
            level = run(level_model, sol.values)
            if determinism(own, level.values["x"]) > reached:
                # The level MIP keeps the value only to a tolerance: re-solve with its choices fixed.
                reached = record(k, _solve_with_fixed_choices(value_model, np.round(level.values["z"]), run))
        if progress:
            progress(min(reached + 1, total), total + 1)
        k = reached + 1
    if progress:
        progress(total + 1, total + 1)
    # Incumbents are feasible for every smaller k, bounds hold for every larger k.
    bound = np.maximum(np.minimum.accumulate(bound), incumbent)
    points = [SweepPoint(k, float(incumbent[k]), float(bound[k]), bool(solved[k])) for k in range(total + 1)]
    return KSweep(player, points, mips, wall)


def _solve_with_fixed_choices(model: Model, z: np.ndarray, run):
    """Solve ``model`` with the determinism choices ``z`` fixed (a MIP with no free binary)."""
    block = model.variables["z"]
    lower, upper = block.lb.copy(), block.ub.copy()
    rhs = model.constraints["at_least_k"].rhs.copy()
    block.lb[:], block.ub[:] = z, z
    model.constraints["at_least_k"].rhs[:] = 0.0
    try:
        return run(model)
    finally:
        block.lb[:], block.ub[:] = lower, upper
        model.constraints["at_least_k"].rhs[:] = rhs
