"""Equilibrium refinements of zero-sum sequence-form games: the quasi-perfect equilibrium, exactly.

A Nash LP (:mod:`gamelp.models.nash`) leaves a player's play arbitrary at an
information set that the equilibrium never reaches: any play there that keeps
the opponent from profiting is optimal, even one that throws away payoff once
the set is reached.  A quasi-perfect equilibrium (van Damme 1984) plays, at
every information set, a best response to slightly trembling opponents.  This
module computes one, both players' strategies and the value exactly, with a
behavioural strategy at every information set, reached or not.

The perturbed LP (Miltersen and Sørensen 2010, "Computing a quasi-perfect
equilibrium of a two-player game", Economic Theory 42, Section 3).  Each
player's sequences get lower bounds ``x_s >= eps^|s|``, ``|s|`` the number of
the player's own actions in ``s`` (none for the empty sequence): a perturbed
game in which every sequence is played a little, deeper ones less.  Its
equilibria tend, as ``eps -> 0``, to a quasi-perfect equilibrium of the game
(their Section 3's main theorem).  With ``l_1(eps)``, ``l_2(eps)`` the bounds
and player 1's Nash LP of von Stengel (1996, Section 4; Koller, Megiddo and von
Stengel 1996), substituting ``y = l_2 + z`` with ``z >= 0`` in the inner
minimisation gives player 1's perturbed LP::

    max  (f_2 - F_2 l_2(eps))^T v  +  (A l_2(eps))^T x
    s.t. A^T x - F_2^T v >= 0          (best_response; duals -z = -(y - l_2))
         F_1 x = f_1,   x >= l_1(eps),   v free

Its dual is player 2's perturbed LP, so one LP gives both players' perturbed
equilibrium strategies: ``x`` and ``y = l_2 - w`` with ``w`` the duals of the
best-response rows.  ``eps`` enters only the bounds and the costs, never the
constraint matrix.

The limit, exactly (the symbolic treatment Farina, Gatti and Sandholm 2018,
"Practical exact algorithm for trembling-hand equilibrium refinements in
games", NeurIPS, Section 4, give for such LPs).  A basis of the LP is optimal
for every small ``eps > 0`` if its basic solution, a polynomial in ``eps``,
is primal and dual feasible for every small ``eps``.  Because the basis matrix
``K`` does not depend on ``eps``, the basic solution is
``z_B(eps) = sum_k eps^k K^{-1} r_k`` and the duals ``w(eps) = sum_k eps^k
K^{-T} c_k``: one exact solve per power (the rational basis solves of
:class:`gamelp.models.exact.OptimalBasis`).  A polynomial is non-negative for
every small ``eps > 0`` exactly when its lowest-order nonzero coefficient is
positive (or it is zero): feasibility is checked lexicographically, in
rational arithmetic.  The algorithm: solve the LP on HiGHS at
``eps = 1 / (4 n)`` (``n`` the most actions at a decision point, so the
perturbed polytope has an interior), take its optimal basis and check it
symbolically.  A basis feasible for small ``eps`` but not optimal is improved
by exact primal simplex steps on the polynomial solution (entering: a column
or row whose reduced cost or dual has the wrong lowest-order sign; leaving:
the lexicographically first bound met; Bland's rule among equals, so it cannot
cycle), the lexicographic simplex method of Dantzig, Orden and Wolfe (1955).
A basis infeasible for small ``eps`` sends the search back to HiGHS with
``eps`` divided by 4.  (Solving at a tiny ``eps`` alone fails on deep games:
on Leduc, whose sequences are four actions deep, the last change of optimal
basis lies below ``eps = 1/800``, where ``eps^4`` is under HiGHS's
tolerances; from HiGHS's basis at ``eps = 1/48``, 24 exact steps reach it.)
A basis that passes is optimal on an interval ``(0, eps_0)``, so its
polynomials are the perturbed equilibria there and their constant terms are
the limit: the quasi-perfect strategies, verified once more to be a Nash
equilibrium of the unperturbed game
(:func:`gamelp.models.exact.verify_equilibrium`), which also gives the value
as a fraction.  The polynomials themselves are kept
(:attr:`RefinedEquilibrium.perturbed`): they are the trembles against which
each limit strategy is a best response at every information set, the
definition of quasi-perfection, which the tests check by an independent walk
of the trees.

Behavioural strategies everywhere.  At a decision point ``j`` with parent
sequence ``p``, the probability of action ``a`` is the limit of the perturbed
ratio ``x_ja(eps) / x_p(eps)``: the quotient of the two polynomials'
coefficients at the lowest power where ``x_p`` is nonzero (``x_p(eps) >= eps^|p|``,
so there is one).  At a set the equilibrium reaches this is the usual ratio of
the limit; at one it never reaches, it is the play the perturbed equilibria
converge to there.

Payoffs are read as rationals by :data:`gamelp.models.exact.PAYOFF_RULE`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from gamelp.display import Raw, Summarised, result_summary, shape_text
from gamelp.errors import ModelError, SolveError, did_you_mean
from gamelp.game import SequenceFormGame
from gamelp.model import Model
from gamelp.models.exact import (
    Certificate,
    CertificateError,
    ExactMatrix,
    OptimalBasis,
    rational_payoffs,
    verify_equilibrium,
)
from gamelp.models.nash import sequence_form_lp
from gamelp.solution import Solution
from gamelp.treeplex import Treeplex

REFINEMENTS = ("quasi-perfect", "proper")
log = logging.getLogger(__name__)
BACKENDS = ("auto", "highs")  # the symbolic check reads HiGHS's optimal basis
# eps is divided by this after a basis fails the symbolic check, at most MAX_TRIES times in all.
SHRINK, MAX_TRIES = 4, 8
# Exact simplex steps tried on a basis that is feasible for small eps but not optimal, before eps shrinks.
MAX_PIVOTS = 200

Polynomial = list  # coefficient vectors (object arrays of Fractions) of eps^0, eps^1, ...


def check_refinement(refinement: str) -> str:
    """``refinement`` if gamelp computes it, else :class:`ModelError` naming the ones it does."""
    if refinement not in REFINEMENTS:
        known = ", ".join(REFINEMENTS)
        raise ModelError(f"unknown refinement {refinement!r}{did_you_mean(refinement, REFINEMENTS)} (known: {known})")
    return refinement


def sequence_depths(treeplex: Treeplex) -> np.ndarray:
    """The number of the player's own actions in each sequence (0 for the empty sequence)."""
    depth = np.zeros(treeplex.num_sequences, dtype=np.int64)
    for j in range(treeplex.num_decision_points):  # top-down: a parent sequence's depth is set before its children
        depth[treeplex.starts[j] : treeplex.ends[j]] = depth[treeplex.parents[j]] + 1
    return depth


def _fractions(values) -> np.ndarray:
    return np.array([Fraction(v) for v in values] + [None], dtype=object)[:-1]


def _zeros(n: int) -> np.ndarray:
    return _fractions([0] * n)


def _powers(depth: np.ndarray) -> Polynomial:
    """The bounds ``eps^depth`` (0 where ``depth`` is 0) as a polynomial: one indicator vector per power."""
    return [
        _fractions((depth == k).astype(int).tolist()) if k else _zeros(depth.size) for k in range(int(depth.max()) + 1)
    ]


def lexicographic_sign(coefficients) -> int:
    """The sign of a polynomial in ``eps`` for every small ``eps > 0``: that of its lowest-order nonzero coefficient."""
    for c in coefficients:
        if c:
            return 1 if c > 0 else -1
    return 0


def _column(poly: Polynomial, i: int) -> list[Fraction]:
    return [coefficients[i] for coefficients in poly]


def _padded(poly: Polynomial, degree: int, n: int) -> Polynomial:
    return poly + [_zeros(n)] * (degree + 1 - len(poly))


@dataclass(frozen=True, repr=False)
class ExactLP(Summarised):
    """A maximisation LP with its exact data, for the exact simplex steps of :func:`symbolic_solution`.

    Bounds and costs are polynomials in ``eps`` (one power for an LP without ``eps``), the right-hand sides
    fractions; the constraint matrix is the model's, read by :data:`gamelp.models.exact.PAYOFF_RULE`.
    ``lower`` and ``costs`` are over all the model's columns; ``bounded`` marks those with a lower bound (the
    others are free); ``rhs`` is over all its rows.
    """

    model: Model
    lower: Polynomial
    bounded: np.ndarray
    costs: Polynomial
    rhs: np.ndarray

    def _summary(self) -> dict:
        return {"model": self.model.name, "shape": Raw(shape_text(self.model.matrix_form().A.shape))}

    @cached_property
    def matrix(self) -> ExactMatrix:
        """The constraint matrix, exact, read once (every basis and step takes rows of it)."""
        return ExactMatrix.from_floats(self.model.matrix_form().A)

    def rows(self, rows: np.ndarray) -> ExactMatrix:
        """The exact constraint matrix's rows ``rows``, in that order."""
        indptr = self.matrix.floats.indptr
        taken = [np.arange(indptr[r], indptr[r + 1]) for r in rows]
        entries = np.concatenate(taken) if taken else np.zeros(0, dtype=np.int64)
        floats = sp.csr_array(self.matrix.floats[np.asarray(rows, dtype=np.int64)])
        return ExactMatrix(floats, self.matrix.numerators[entries], self.matrix.denominator, self.matrix.binary)


@dataclass(frozen=True, repr=False)
class _PerturbedLP(ExactLP):
    """Player 1's perturbed Nash LP at one ``eps``, and its bounds and costs as exact polynomials in ``eps``."""

    epsilon: Fraction
    opponent_lower: Polynomial  # l_2(eps) over player 2's sequences


def perturbed_lp(game: SequenceFormGame, epsilon: Fraction) -> _PerturbedLP:
    """Player 1's perturbed Nash LP (the module docstring) at ``epsilon``, with its exact polynomial data."""
    model = sequence_form_lp(game, 1)
    model.name = f"{game.name}_quasi_perfect_pl1"
    own_lower, opp_lower = _powers(sequence_depths(game.pl1)), _powers(sequence_depths(game.pl2))
    form = model.matrix_form()
    x, v = form.variable_slices["x"], form.variable_slices["v"]
    n = form.A.shape[1]
    payoffs = ExactMatrix.from_floats(game.A)
    F2 = ExactMatrix.from_floats(sp.csr_array(game.pl2.F))
    f2 = _fractions(game.pl2.f.astype(int).tolist())
    degree = max(len(own_lower), len(opp_lower)) - 1
    lower, costs = [], []
    for k in range(degree + 1):
        bound, cost = _zeros(n), _zeros(n)
        if k < len(own_lower):
            bound[x] = own_lower[k]
        if k < len(opp_lower):
            cost[x] = payoffs.matvec(opp_lower[k])
            cost[v] = (f2 if k == 0 else _zeros(f2.size)) - F2.matvec(opp_lower[k])
        lower.append(bound)
        costs.append(cost)
    bounded = np.zeros(n, dtype=bool)
    bounded[x] = True
    numeric = [float(epsilon) ** k for k in range(degree + 1)]
    model.set_bounds("x", lb=sum(float(e) * np.array([float(q) for q in p[x]]) for e, p in zip(numeric, lower)))
    model.set_objective(
        {
            "x": sum(e * np.array([float(q) for q in c[x]]) for e, c in zip(numeric, costs)),
            "v": sum(e * np.array([float(q) for q in c[v]]) for e, c in zip(numeric, costs)),
        },
        sense="max",
    )
    rhs = _fractions(rational_payoffs(form.rhs)[0])
    return _PerturbedLP(model, lower, bounded, costs, rhs, epsilon, opp_lower)


@dataclass(frozen=True)
class _SymbolicSolution:
    """A basis's primal values (by column) and row duals as polynomials in ``eps``, both feasible near 0."""

    values: Polynomial
    duals: Polynomial
    pivots: int  # exact simplex steps from HiGHS's basis


def _primal(lp: ExactLP, basis: OptimalBasis) -> Polynomial:
    """The basic solution's column values as polynomials.

    Nonbasic ``x`` sit at ``l_1(eps)`` and ``v`` at 0; the basic columns solve ``K z_B = r_k`` power by power
    (the nonbasic rows at their right-hand sides).
    """
    form, name, columns = basis.form, lp.model.name, basis.columns
    n, degree = form.A.shape[1], len(lp.lower) - 1
    fixed = [_zeros(n) for _ in range(degree + 1)]
    for j in np.setdiff1d(np.arange(n), basis.basic):
        if columns[j] == "kZero" and not lp.bounded[j]:
            continue  # a free nonbasic column (v) sits at 0
        if columns[j] != "kLower" or not lp.bounded[j]:
            raise CertificateError(f"{name}: column {j} is nonbasic at {columns[j]}, not at its lower bound")
        for k in range(degree + 1):
            fixed[k][j] = lp.lower[k][j]
    rhs = lp.rhs[basis.active]
    rows = lp.rows(basis.active)
    values = []
    for k in range(degree + 1):
        right = (rhs if k == 0 else _zeros(rhs.size)) - rows.matvec(fixed[k])
        z = fixed[k].copy()
        z[basis.basic] = basis.solve(right, f"primal (eps^{k})") if any(right) else _zeros(basis.basic.size)
        values.append(z)
    return values


def _slacks(lp: ExactLP, basis: OptimalBasis, values: Polynomial) -> tuple[np.ndarray, Polynomial]:
    """The rows off their bounds (basic rows) and their activity minus right-hand side, as polynomials."""
    form = basis.form
    inactive = np.setdiff1d(np.arange(form.A.shape[0]), basis.active)
    rows = lp.rows(inactive)
    rhs = lp.rhs[inactive]
    return inactive, [rows.matvec(z) - (rhs if k == 0 else 0) for k, z in enumerate(values)]


def _infeasible(lp: ExactLP, basis: OptimalBasis, values: Polynomial) -> tuple[str, int, int, str] | None:
    """The first basic column below its lower bound, or else row violated, for small ``eps``.

    Returned as (``"column"`` or ``"row"``, index, the direction that mends it, why).
    """
    for j in basis.basic[lp.bounded[basis.basic]]:
        if lexicographic_sign([z - b for z, b in zip(_column(values, j), _column(lp.lower, j))]) < 0:
            return "column", int(j), 1, f"basic column {j} falls below its lower bound for small eps"
    inactive, slacks = _slacks(lp, basis, values)
    for position, i in enumerate(inactive):
        sign = lexicographic_sign(_column(slacks, position))
        if sign < 0 or (basis.form.row_sense[i] == "=" and sign != 0):
            return "row", int(i), -sign, f"row {i} is violated for small eps"
    return None


def _duals(lp: ExactLP, basis: OptimalBasis) -> tuple[Polynomial, Polynomial]:
    """The row duals ``K^T w = c_B`` and the reduced costs ``c - A^T w`` of every column, power by power."""
    form = basis.form
    A = lp.rows(basis.active)
    duals, reduced = [], []
    for k, costs in enumerate(lp.costs):
        w = _zeros(form.A.shape[0])
        if any(costs[basis.basic]):
            w[basis.active] = basis.solve_transposed(costs[basis.basic], f"duals (eps^{k})")
        duals.append(w)
        reduced.append(costs - A.T.matvec(w[basis.active]))
    return duals, reduced


def _improving(basis: OptimalBasis, duals: Polynomial, reduced: Polynomial) -> tuple[str, int, int] | None:
    """The first nonbasic column or row whose move improves the maximum for small ``eps`` (Bland's rule), or None.

    A column at its lower bound improves with a positive reduced cost, a free one at 0 with a nonzero one (moving
    its way); a ``>=`` row at its bound with a positive dual (raising its activity).  Returned as (``"column"`` or
    ``"row"``, index, direction).
    """
    for j in np.setdiff1d(np.arange(basis.form.A.shape[1]), basis.basic):
        sign = lexicographic_sign(_column(reduced, j))
        if sign > 0 or (basis.columns[j] == "kZero" and sign != 0):
            return "column", int(j), sign
    for i in basis.active:
        if basis.form.row_sense[i] == ">" and lexicographic_sign(_column(duals, i)) > 0:
            return "row", int(i), 1
    return None


def _pivot(lp: ExactLP, basis: OptimalBasis, values: Polynomial, entering: tuple[str, int, int]) -> OptimalBasis:
    """One primal simplex step on the polynomial solution: ``entering`` moves, the first bound it meets leaves.

    The step is a polynomial in ``eps`` for each blocking bound (a basic ``x`` reaching ``l_1``, a basic ``>=``
    row reaching its right-hand side); the lexicographically least one blocks, the lowest index among equals.
    """
    form, name = basis.form, lp.model.name
    kind, index, direction = entering
    A = sp.csr_array(form.A)
    change = _zeros(form.A.shape[1])
    if kind == "column":
        change[index] = Fraction(direction)
        right = ExactMatrix.from_floats(A[basis.active][:, [index]]).matvec(_fractions([-direction]))
    else:
        right = _fractions((basis.active == index).astype(int).tolist())
    change[basis.basic] = basis.solve(right, "pivot direction")
    blocking = []
    for j in basis.basic[lp.bounded[basis.basic]]:
        if change[j] < 0:
            gap = [z - b for z, b in zip(_column(values, j), _column(lp.lower, j))]
            blocking.append((tuple(g / -change[j] for g in gap), 0, int(j)))
    inactive, slacks = _slacks(lp, basis, values)
    moves = lp.rows(inactive).matvec(change)
    for position, i in enumerate(inactive):
        if moves[position] < 0 and form.row_sense[i] == ">":
            blocking.append((tuple(s / -moves[position] for s in _column(slacks, position)), 1, int(i)))
    if not blocking:
        raise SolveError(f"{name}: the perturbed LP is unbounded along {kind} {index} (it should not be)")
    _, leaving_kind, leaving = min(blocking)
    columns, rows = basis.columns.copy(), basis.rows.copy()
    if kind == "column":
        columns[index] = "kBasic"
    else:
        rows[index] = "kBasic"
    if leaving_kind == 0:
        columns[leaving] = "kLower"
    else:
        rows[leaving] = "kLower"
    return OptimalBasis.from_status(form, columns, rows)


def _dual_pivot(
    lp: ExactLP, basis: OptimalBasis, leaving: tuple[str, int, int], duals: Polynomial, reduced: Polynomial
) -> OptimalBasis:
    """One dual simplex step: ``leaving`` (a basic column or row off its bound) moves to it and leaves.

    ``leaving`` is (kind, index, direction): a column below its bound rises, a row moves by ``direction``
    (up for a ``>=`` row, either way for an equality).

    The entering column or row is the one whose reduced cost or dual reaches 0 first as ``leaving`` rises
    (lexicographically, the lowest index among equals), so the basis stays dual feasible.
    """
    form, name = basis.form, lp.model.name
    kind, index, direction = leaving
    # The leaving quantity is a . z; over the basis it moves by rho . (change of the active rows), K^T rho = a_B.
    a = _zeros(form.A.shape[1])
    if kind == "column":
        a[index] = Fraction(1)
    else:
        a = lp.rows(np.array([index])).T.matvec(_fractions([direction]))
    rho = basis.solve_transposed(a[basis.basic], "dual pivot row")
    rises = a - lp.rows(basis.active).T.matvec(rho)  # each nonbasic column's effect on it, per unit
    candidates = []
    for k in np.setdiff1d(np.arange(form.A.shape[1]), basis.basic):
        if rises[k] > 0 or (basis.columns[k] == "kZero" and rises[k] != 0):
            candidates.append((tuple(-r / abs(rises[k]) for r in _column(reduced, int(k))), 0, int(k)))
    for position, i in enumerate(basis.active):
        if form.row_sense[i] == ">" and rho[position] > 0:
            candidates.append((tuple(-w / rho[position] for w in _column(duals, int(i))), 1, int(i)))
    if not candidates:
        raise CertificateError(f"{name}: {kind} {index} cannot reach its bound: the LP is infeasible")
    _, entering_kind, entering = min(candidates)
    columns, rows = basis.columns.copy(), basis.rows.copy()
    if entering_kind == 0:
        columns[entering] = "kBasic"
    else:
        rows[entering] = "kBasic"
    if kind == "column":
        columns[index] = "kLower"
    else:
        rows[index] = "kLower"
    return OptimalBasis.from_status(form, columns, rows)


def symbolic_solution(
    lp: ExactLP, basis: OptimalBasis, max_pivots: int = 0, *, dual_steps: bool = False
) -> _SymbolicSolution:
    """The basic solution of ``basis`` as polynomials, if optimal for every small ``eps > 0``; else CertificateError.

    A basis that is feasible for small ``eps`` but not optimal is improved by up to ``max_pivots`` exact primal
    simplex steps (:func:`_pivot`) on the polynomial solution, Bland's rule choosing.  With ``dual_steps``, one
    that is dual feasible but has a basic column below its bound or a row below its right-hand side (a
    degenerate optimum HiGHS accepts within its tolerance) takes exact dual simplex steps (:func:`_dual_pivot`)
    within the same budget.  One infeasible otherwise, or still not optimal after them, is refused (the message
    says why).
    """
    pivots = 0
    while True:
        values = _primal(lp, basis)
        fault = _infeasible(lp, basis, values)
        if fault is not None and not (dual_steps and pivots < max_pivots):
            raise CertificateError(f"{lp.model.name}: {fault[3]}")
        duals, reduced = _duals(lp, basis)
        entering = _improving(basis, duals, reduced)
        if fault is not None:
            if entering is not None:
                raise CertificateError(f"{lp.model.name}: {fault[3]}")
            basis = _dual_pivot(lp, basis, fault[:3], duals, reduced)
            pivots += 1
            continue
        if entering is None:
            return _SymbolicSolution(values, duals, pivots)
        if pivots == max_pivots:
            kind, index, _ = entering
            raise CertificateError(
                f"{lp.model.name}: {kind} {index} still improves for small eps after {pivots} pivots"
            )
        basis = _pivot(lp, basis, values, entering)
        pivots += 1


def behavioural(treeplex: Treeplex, poly: Polynomial) -> dict[str, dict[str, Fraction]]:
    """The limit of ``x_ja(eps) / x_p(eps)`` at every decision point: the quotient at ``x_p``'s lowest power."""
    out = {}
    for j, point in enumerate(treeplex.decision_points):
        parent = _column(poly, int(treeplex.parents[j]))
        lowest = next((k for k, c in enumerate(parent) if c), None)
        if lowest is None:
            raise SolveError(f"decision point {point!r}: its parent sequence has weight 0 for every small eps")
        local = poly[lowest][treeplex.starts[j] : treeplex.ends[j]]
        out[point] = {a: q / parent[lowest] for a, q in zip(treeplex.actions[point], local)}
    return out


@dataclass(repr=False)
class RefinedEquilibrium(Summarised):
    """Both players' refined equilibrium strategies, exact, with their behavioural form at every decision point.

    ``certificate`` holds the value (player 1's) and the sequence-form strategies as fractions, checked to be a
    Nash equilibrium in rational arithmetic; ``behaviour`` each player's behavioural strategy (player 1's first),
    ``perturbed`` the perturbed equilibria ``x(eps)``, ``y(eps)`` themselves (polynomials, valid near 0: the
    trembles that make the limit quasi-perfect), ``epsilon`` the perturbation HiGHS solved last, ``solution`` its
    answer, ``pivots`` the exact simplex steps from its basis to the one verified optimal for every small ``eps``
    and ``tries`` how many ``epsilon`` were solved.
    """

    game: SequenceFormGame
    refinement: str
    certificate: Certificate
    behaviour: tuple[dict[str, dict[str, Fraction]], dict[str, dict[str, Fraction]]]
    perturbed: tuple[Polynomial, Polynomial] | None  # x(eps), y(eps): the perturbed equilibria near 0 (None: proper)
    epsilon: Fraction | None
    tries: int
    pivots: int
    solution: Solution
    wall_time: float

    @property
    def exact_value(self) -> Fraction:
        """Player 1's value as a fraction."""
        return self.certificate.value

    @property
    def value(self) -> float:
        """Player 1's value."""
        return float(self.certificate.value)

    @property
    def x(self) -> np.ndarray:
        """Player 1's strategy (sequence form, floats)."""
        return self.strategy_of(1)

    @property
    def y(self) -> np.ndarray:
        """Player 2's strategy (sequence form, floats)."""
        return self.strategy_of(2)

    def strategy_of(self, player: int) -> np.ndarray:
        """Player ``player``'s strategy in sequence form, as floats."""
        weights = self.certificate.first if player == 1 else self.certificate.second
        return np.array([float(q) for q in weights])

    def behavioural_of(self, player: int) -> dict[str, dict[str, float]]:
        """Player ``player``'s behavioural strategy as floats, at every decision point."""
        return {point: {a: float(q) for a, q in local.items()} for point, local in self.behaviour[player - 1].items()}

    @property
    def gap(self) -> float:
        """The saddle-point gap of the pair, computed without the solver (0: the exact check passed)."""
        return self.game.saddle_point_gap(self.x, self.y)

    def _summary(self) -> dict:
        return result_summary(
            self,
            self.gap,
            game=self.game.name,
            refinement=self.refinement,
            epsilon=None if self.epsilon is None else Raw(str(self.epsilon)),
            exact_value=Raw(str(self.exact_value)),
        )

    def _entries(self):
        return "player 1's strategy (sequence form)", zip(self.game.pl1.labels, self.x.tolist())

    def to_dict(self, player: int | str = "both", *, exact: bool = False) -> dict:
        """JSON-ready, with the keys of the Nash results' and ``refine``, ``epsilon``, ``lps`` and ``pivots``.

        ``epsilon`` is None for ``proper``; ``lps`` counts the LPs solved on HiGHS, ``pivots`` the exact simplex
        steps after them.  ``player`` 1 or 2: :class:`~gamelp.models.nash.NashResult`'s keys; ``"both"``:
        :class:`~gamelp.models.nash.Equilibrium`'s.  ``exact`` adds the certificate's fractions (``exact``).
        """
        own = 1 if player == "both" else int(player)
        sign = 1 if own == 1 else -1
        labels = self.game.player(own).labels
        out = {
            "value": sign * self.value,
            "status": self.solution.status,
            "backend": self.solution.backend,
            "solver_version": self.solution.solver_version,
            "player": player,
            "deterministic": False,
            "select": None,
            "refine": self.refinement,
            "epsilon": None if self.epsilon is None else str(self.epsilon),
            "lps": self.tries,
            "pivots": self.pivots,
            "guaranteed_value": self.game.guaranteed_value(own, self.strategy_of(own)),
            "gap": self.gap,
            "wall_time": self.wall_time,
            "strategy": dict(zip(labels, np.round(self.strategy_of(own), 12).tolist())),
        }
        if player == "both":
            del out["guaranteed_value"], out["deterministic"]
            out["opponent_strategy"] = dict(zip(self.game.pl2.labels, np.round(self.y, 12).tolist()))
        if exact:
            out["exact"] = self.certificate.to_dict(own - 1)
        return out


def solve_refined(
    game: SequenceFormGame,
    refinement: str = "quasi-perfect",
    backend: str = "auto",
    *,
    epsilon: Fraction | None = None,
    max_tries: int = MAX_TRIES,
    max_pivots: int = MAX_PIVOTS,
    **options,
) -> RefinedEquilibrium:
    """A quasi-perfect equilibrium of ``game``: both players' exact limit strategies (the module docstring).

    Parameters
    ----------
    game : SequenceFormGame
        The game.
    refinement : {"quasi-perfect"}
        The refinement.
    backend : {"auto", "highs"}
        The LP solver: HiGHS, whose optimal basis the symbolic check reads.
    epsilon : Fraction, optional
        The first perturbation tried (default ``1 / (4 n)``, ``n`` the most actions at a decision point).
    max_tries : int
        How many perturbations (each the last divided by 4) to solve before giving up.
    max_pivots : int
        Exact simplex steps that may improve a basis feasible for small ``eps`` (:func:`symbolic_solution`).
    **options
        Solver options (``time_limit``, ``verbose``, ...).

    Returns
    -------
    RefinedEquilibrium
        Exact strategies and value, behavioural strategies at every decision point, the verified ``epsilon``.

    Raises
    ------
    SolveError
        No basis passed the symbolic check in ``max_tries`` perturbations (the message says the last failure).
    """
    check_refinement(refinement)
    if backend not in BACKENDS:
        raise ModelError(
            f"refinement {refinement!r} reads HiGHS's optimal basis: backend 'highs' or 'auto', not {backend!r}"
        )
    if refinement == "proper":
        from gamelp.models.proper import solve_proper

        return solve_proper(game, **options)
    most = max(len(acts) for tp in (game.pl1, game.pl2) for acts in tp.actions.values())
    eps = Fraction(1, 4 * most) if epsilon is None else Fraction(epsilon)
    if not 0 < eps * most < 1:
        raise ModelError(f"epsilon must be in (0, 1/{most}) so that the perturbed polytopes are not empty, got {eps}")
    wall, failure = 0.0, ""
    for tries in range(1, max_tries + 1):
        lp = perturbed_lp(game, eps)
        solution = lp.model.solve("highs", persistent=True, **options)
        wall += solution.wall_time
        if not solution.optimal:
            raise SolveError(f"{lp.model.name} on highs at eps={eps}: no optimum ({solution.status})")
        try:
            symbolic = symbolic_solution(lp, OptimalBasis.of(lp.model), max_pivots)
        except CertificateError as error:
            failure = str(error)
            log.info("eps=%s: %s", eps, failure)
            eps /= SHRINK
            continue
        return _limit(game, refinement, lp, symbolic, tries, solution, wall)
    raise SolveError(f"{game.name}: no basis optimal for every small eps in {max_tries} tries; the last: {failure}")


def verified_pair(
    game: SequenceFormGame, x: np.ndarray, y: np.ndarray, recovery: str
) -> tuple[Certificate, ExactMatrix]:
    """The certificate of the exact pair ``x``, ``y`` (found as ``recovery`` says), and the exact payoffs it read.

    The pair is checked to be a Nash equilibrium in rational arithmetic
    (:func:`gamelp.models.exact.verify_equilibrium`).
    """
    payoffs = ExactMatrix.from_floats(game.A)
    value = verify_equilibrium(game, payoffs, x, y)
    labels = (game.pl1.labels, game.pl2.labels)
    return Certificate(value, x, y, labels, recovery, payoffs.nnz, payoffs.binary), payoffs


def _limit(
    game: SequenceFormGame,
    refinement: str,
    lp: _PerturbedLP,
    symbolic: _SymbolicSolution,
    tries: int,
    solution: Solution,
    wall: float,
) -> RefinedEquilibrium:
    """The limit of the verified basic solution: exact strategies checked as an equilibrium, behaviour everywhere."""
    form = lp.model.matrix_form()
    x_poly = [z[form.variable_slices["x"]] for z in symbolic.values]
    rows = form.row_slices["best_response"]
    degree = max(len(symbolic.duals), len(lp.opponent_lower)) - 1
    n2 = game.pl2.num_sequences
    bounds, duals = _padded(lp.opponent_lower, degree, n2), _padded([w[rows] for w in symbolic.duals], degree, n2)
    y_poly = [b - w for b, w in zip(bounds, duals)]
    certificate, _ = verified_pair(
        game,
        x_poly[0],
        y_poly[0],
        "the limit eps -> 0 of a basis of the perturbed LP verified optimal for every small eps > 0",
    )
    behaviour = (behavioural(game.pl1, x_poly), behavioural(game.pl2, y_poly))
    perturbed = (x_poly, y_poly)
    return RefinedEquilibrium(
        game, refinement, certificate, behaviour, perturbed, lp.epsilon, tries, symbolic.pivots, solution, wall
    )
