"""The Lagrangian envelope of the k-determinism sweep: one bound line per multiplier, for every ``k`` at once.

``P(k)`` (:mod:`gamelp.models.determinism`) is the best strategy deterministic
at ``k`` or more decision points.  Moving its "at least k" row into the
objective with a multiplier ``lam >= 0`` gives the Lagrangian (Fisher 1981,
Section 3; Geoffrion 1974)::

    L(lam) = max  f_o^T v + lam * sum z
             s.t. the rows of P(k) but "at least k"     (x, v, z; z binary)

For every ``k`` and every ``lam >= 0``, any feasible point of ``P(k)`` has
``sum z >= k``, so ``V(k) <= L(lam) - lam * k``; any upper bound ``U(lam)`` on
``L(lam)`` (a MIP stopped early proves one) gives the line
``V(k) <= U(lam) - lam * k``.  The minimum over the multipliers solved is the
envelope bound; with every ``L(lam)`` solved exactly it is the concave upper
hull of the points ``(k, V(k))`` (the Lagrangian dual equals the LP over the
convex hull of the relaxed set, Geoffrion 1974, Theorem 1), which is ``V``
itself wherever ``V`` is concave.

Every strategy a solve of ``L(lam)`` returns, deterministic at ``d`` points
and guaranteeing ``w`` (against a best response, computed from the strategy, not
taken from the solver), is an incumbent ``V(k) >= w`` for every ``k <= d``.

The multipliers are chosen by the parametric search over the breakpoints of
the upper hull (Eisner and Severance 1976): start from the Nash LP
(``lam = 0``) and the deterministic ILP (``lam`` large), and solve ``L`` at the
slope of an edge ``(d1, w1)``-``(d2, w2)`` of the upper hull of the points found,
``lam = (w1 - w2) / (d2 - d1)``, once per edge; a strategy above the edge
becomes a corner and the hull changes; an edge whose solve found none stays
(an exact solve proves it an edge of the hull of every strategy; one stopped by
its time limit leaves it open).  Strategies known beforehand (a
greedy dive's) seed the first hull.

The LP relaxation of ``L(lam)`` is the Nash LP plus ``lam * |J|`` (the
relaxed ``z`` of any strategy sum to one per decision point), so a MIP solver
proves ``U(lam)`` by branching alone: on Leduc, HiGHS stopped after tens of
seconds leaves lines below the Nash value only at the last few ``k``, and by little.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from math import isclose

import numpy as np

from gamelp.backends import DEFAULT_BACKEND
from gamelp.display import Raw, Summarised
from gamelp.errors import SolveError
from gamelp.game import SequenceFormGame
from gamelp.models.determinism import determinism, kdet_mip, solve_deterministic
from gamelp.models.nash import solve_nash
from gamelp.solution import OPTIMAL, TIME_LIMIT
from gamelp.units import normalised

# Every solve runs on HiGHS, whose MIP reports the proven dual bound the lines are made of.


@dataclass(repr=False)
class EnvelopePoint(Summarised):
    """A strategy found on the way: its value, its determinism, and the strategy ``x`` (sequence form)."""

    value: float
    determinism: int
    x: np.ndarray

    def _summary(self) -> dict:
        return {"value": self.value, "determinism": self.determinism, "sequences": self.x.size}


@dataclass(repr=False)
class Envelope(Summarised):
    """The lines ``V(k) <= upper - lam * k`` proved, and the strategies found, in the game's units."""

    player: int
    total: int  # the player's decision points
    lines: list[tuple[float, float]]  # (lam, upper bound on L(lam))
    points: list[EnvelopePoint]
    solves: int  # MIPs (and the Nash LP) solved
    wall_time: float

    def _summary(self) -> dict:
        return {
            "player": self.player,
            "k": Raw(f"0..{self.total}"),
            "lines": len(self.lines),
            "points": len(self.points),
            "solves": self.solves,
            "wall_time": Raw(f"{self.wall_time:.3g}"),
        }

    def bounds(self) -> np.ndarray:
        """Per ``k = 0..total``, the smallest ``upper - lam * k`` over the lines (infinity without a line)."""
        k = np.arange(self.total + 1)
        if not self.lines:
            return np.full(k.size, np.inf)
        lam, upper = np.array(self.lines).T
        return (upper[:, None] - lam[:, None] * k[None, :]).min(axis=0)

    def incumbents(self) -> np.ndarray:
        """Per ``k``, the best value of a strategy found that is deterministic at ``k`` or more points."""
        best = np.full(self.total + 1, -np.inf)
        for point in self.points:
            best[: point.determinism + 1] = np.maximum(best[: point.determinism + 1], point.value)
        return best


def lagrangian_envelope(
    game: SequenceFormGame,
    player: int,
    *,
    time_limit: float | None = None,
    max_solves: int = 40,  # pragma: no mutate: a work budget (any value gives valid lines)
    tol: float = 1e-6,
    strategies: Sequence[np.ndarray] = (),
    backend: str = DEFAULT_BACKEND,
) -> Envelope:
    """The parametric search over ``L(lam)`` (module docstring); ``time_limit`` is per MIP, in seconds.

    ``strategies`` (sequence-form strategies of ``player``, e.g. a greedy dive's) seed the search:
    the first edges searched are those of the upper hull of their points ``(determinism, value)``
    with the Nash LP's and the deterministic ILP's, so the first multipliers are their slopes.
    ``max_solves`` counts the Nash LP, the deterministic ILP and every Lagrangian MIP.
    The MIPs run on the payoffs divided by their range (:func:`gamelp.units.normalised`); the lines'
    multipliers and bounds and the points' values are multiplied back.  ``tol`` (relative to the
    payoff range) is how far above the hull a strategy must lie to be one of its corners.  ``backend``
    solves the LP and the MIPs (``auto``, as every model function: HiGHS).
    """
    began = time.perf_counter()
    game, unit = normalised(game)
    own = game.player(player)
    nash = solve_nash(game, player, backend)
    lines = [(0.0, nash.value)]  # L(0) is the Nash LP
    # The relaxed set: every row of P(k) with k = 0, where "at least k" binds nothing.
    model = kdet_mip(game, player, 0)  # pragma: no mutate: at k = 1 every hull slope's optimum is still attained
    f_opp = model.objective["v"]
    size = model.variables["z"].size

    def point(x: np.ndarray) -> EnvelopePoint:  # the value x guarantees (a best response), not a solver's
        return EnvelopePoint(game.guaranteed_value(player, x), determinism(own, x), x)

    points = [point(nash.strategy)]  # every strategy found: the incumbents
    solves = 2  # the Nash LP and the deterministic ILP
    with contextlib.suppress(SolveError):  # the ILP stopped before any strategy: no point at the top
        points.append(point(solve_deterministic(game, player, backend, mip_gap=1e-9, time_limit=time_limit).strategy))
    points += [point(np.asarray(x, dtype=float)) for x in strategies]
    total = own.num_decision_points
    while solves < max_solves:
        slopes = [(a.value - b.value) / (b.determinism - a.determinism) for a, b in pairwise(_upper_hull(points, tol))]
        # An edge whose slope was solved already is final: every maximiser of L at its slope lies on its line.
        # Slopes closer than tol / |J| give lines within tol of each other over k = 0..|J|.
        solved = [done for done, _ in lines[1:]]
        unsolved = [lam for lam in slopes if not any(isclose(lam, done, abs_tol=tol / total) for done in solved)]
        if not unsolved:
            break  # every edge of the hull searched
        lam = unsolved[0]
        model.set_objective({"v": f_opp, "z": np.full(size, lam)}, sense="max")
        # No MIP start: given a feasible start, HiGHS 1.16 can stop at once as "optimal" with an
        # objective that is not the start's (the strategies found are points already).
        sol = model.solve(backend, mip_gap=1e-9, time_limit=time_limit)
        solves += 1
        if sol.status not in (OPTIMAL, TIME_LIMIT):
            raise SolveError(f"{model.name}: the Lagrangian at lam = {lam:.3g} ended {sol.status}")
        # HiGHS's proven bound on L(lam) (its dual bound; none proven: a line that bounds nothing)
        lines.append((lam, sol.objective_bound if sol.objective_bound is not None else np.inf))
        if sol.values:  # a point above the edge is a corner of the next hull
            points.append(point(sol.values["x"]))
    for found in points:
        found.value *= unit
    lines = [(lam * unit, upper * unit) for lam, upper in lines]
    return Envelope(player, total, lines, points, solves, time.perf_counter() - began)


def _upper_hull(points: list[EnvelopePoint], tol: float) -> list[EnvelopePoint]:
    """The corners of the upper concave hull of ``(determinism, value)`` from the best value on, by determinism.

    Andrew's monotone chain.  A point at most ``tol`` above the chord of its neighbours is not a corner, nor is
    one at most ``tol`` better than a more deterministic point or an earlier one as deterministic: a solver's
    tolerances and rounding make no edge, and no multiplier near zero.
    """
    best_at: dict[int, EnvelopePoint] = {}  # per determinism, the first point found of the best value
    for q in points:
        if q.determinism not in best_at or q.value > best_at[q.determinism].value + tol:
            best_at[q.determinism] = q
    hull: list[EnvelopePoint] = []
    for p in sorted(best_at.values(), key=lambda q: q.determinism):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            chord = a.value + (p.value - a.value) * (b.determinism - a.determinism) / (p.determinism - a.determinism)
            if b.value > chord + tol:
                break
            hull.pop()  # b is not above the chord from a to p
        hull.append(p)
    best = max(q.value for q in hull) - tol
    return hull[max(i for i, q in enumerate(hull) if q.value >= best) :]  # the points before are dominated
