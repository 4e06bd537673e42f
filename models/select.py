"""Selecting one equilibrium strategy: the same point of the optimal face on every backend.

A player's optimal strategies in a zero-sum game form a face of its strategy
polytope, often more than a point (Kuhn: player 1's is a one-parameter
family).  Which point an LP solver returns depends on its algorithm (a simplex
vertex, an interior-point near-centre), so HiGHS, Gurobi, Clarabel and SCS
return four different optimal strategies of Kuhn.  ``select="min-norm"``
returns instead the one point that a strictly convex rule picks.

The rule ``min-norm``.  For player ``p`` with the Nash LP of
:func:`gamelp.models.nash.sequence_form_lp` (``max f_o^T v`` s.t.
``M^T x - F_o^T v >= 0``, ``F_p x = f_p``, ``x >= 0``) and its value ``v*``,
the selected strategy is the minimiser of ``1/2 ||x||_2^2`` over the optimal
face ``{x : (x, v) feasible, f_o^T v >= v*}``.  The objective is strictly
convex in ``x``, so the minimiser is unique (``v`` need not be: only ``x`` is
reported).  A matrix game's row player is the same with the simplex:
``min 1/2 ||p||^2`` s.t. ``C^T p >= v* e``, ``e^T p = 1``, ``p >= 0`` (the
column player's: ``C q <= v* e``); on the simplex ``||p - e/n||^2 = ||p||^2 -
1/n``, so the selected mix is the optimal mix nearest the uniform one.  In the
sequence form, for a fixed weight ``x_s`` of the sequence leading to an
information set, ``sum_a x_sa^2`` is least when that weight is spread as
evenly over the actions as the face allows: the rule prefers mixing evenly
among equally good actions, at every information set, weighting each set by
how often the player's own choices reach it.

How it is computed: an approximate minimiser, then an exact active-set step.

1.  ``v*``: the LP, on the backend asked for.
2.  An approximate minimiser: the QP ``min 1/2 ||x||^2`` over the face
    relaxed to ``f_o^T v >= v* - eps`` (``eps = 1e-9 (1 + |v*|)``), on the
    backend asked for when it takes QPs (``QP`` in ``gamelp backends``) and
    the model, then, when it cannot or its point is missing or too far for
    step 3 (SCS on Leduc: "optimal_inaccurate", or 4e-3 away), on each
    installed backend of :data:`FALLBACK_QP_BACKENDS` in turn (HiGHS, then
    Clarabel).  HiGHS's active-set QP solver (1.16) ends Leduc's face QP with
    primal infeasibilities of about 8e-5, which at its default tolerance
    (1e-7) it reports as a solve error; the point only seeds step 3, so HiGHS
    is given :data:`APPROXIMATE_QP_OPTIONS` (a feasibility tolerance of 1e-4,
    and an iteration limit against the stalls seen on ``leduc:13x4``).
    This point is only approximate: the face is a thin slab, and
    the minimiser moves Lipschitz-continuously with its right-hand side
    (Hoffman's bound) by ``L eps`` plus the QP solver's own tolerance times
    ``L``; ``L`` is about 18 on Kuhn but 2e4 on Leduc, where backends' QP
    answers differ by 5e-5.
3.  The exact step (the same on every backend).  The minimiser of a convex QP
    is the minimiser of the equality-constrained QP on its active set
    (Nocedal and Wright 2006, Numerical Optimization, Section 16.5: the
    active-set methods' subproblem).  From the approximate point, gamelp
    reads the active set: the zero sequences ``Z`` (``x_s <= theta``) and
    the opponent's sequences ``T`` whose rows are tight (slack ``<= theta``)
    at the opponent's exact best-response values ``v(x)`` (bottom-up).
    Then it solves ``min 1/2 ||x||^2`` s.t. ``F_p x = f_p``, ``x_Z = 0``,
    ``(M^T x - F_o^T v)_T = 0`` through its KKT system: a sparse LU of the
    regularised (quasi-definite) system, iteratively refined on the system
    itself, which may be singular (its ``x`` is unique, its multipliers
    need not be).  ``v*`` appears nowhere in it: when ``T`` holds the
    support of an opponent equilibrium ``y*`` and ``Z`` the sequences where
    ``y*`` leaves slack, complementary slackness (von Stengel 1996, Section
    4) fixes ``f_o^T v = v*`` on that affine set exactly, so the face's
    value row is implied and the answer does not inherit the LP's rounding.
4.  Verification, without the solver: the point is a sequence-form strategy
    (``x >= -1e-12``, ``F_p x = f_p`` to 1e-9), optimal (its guaranteed value,
    by an exact best response, is ``v*`` to ``1e-7 (1 + |v*|)``), and the
    minimiser: the KKT conditions of step 2's QP hold with multipliers of the
    right signs (``>= 0`` on the tight rows, the zero bounds and the value
    row), found by a feasibility LP (``scipy.optimize.linprog``, HiGHS) when
    the KKT solve's own minimum-norm multipliers have a wrong sign.
    Thresholds ``theta`` from :data:`THRESHOLDS` are tried in turn; the first
    verified point is the answer.  Two verified points are the same point (the
    minimiser is unique), so every backend whose approximate point leads to
    a verified one returns the same strategy to rounding (1e-12).  If none
    verifies, the approximate point is returned and the result says so
    (:class:`Selection`'s ``polished`` is False, with the reason).
5.  In rationals, on request (``exact=True``): :func:`exact_strategy` solves
    the verified point's active-set system in rational arithmetic, made
    square by a maximal set of independent rows and of independent ``v``
    columns, and :mod:`gamelp.models.exact` certifies the pair exactly
    (optimal; the rule's KKT conditions stay step 4's, in floating point).

Measured (``scripts/bench/bench_select.py``, ``tests/models/test_select.py``):
on Kuhn, Leduc and the Esche deck game every installed backend's selection is
verified, HiGHS's included, and all are equal to the last bit.  SCS's own QP
point on Leduc is too far for step 3 (or missing), so there the point comes
from HiGHS.  On Leduc 13x4 (6,007 sequences a player) no QP solver gives a
point the exact step verifies (HiGHS's stalls, Clarabel stops with an error on
player 2's), so the selection fails there, and it stays off by default.

Cost: one LP, and per player selected one QP and the exact step
(:func:`solve_equilibrium <gamelp.models.nash.solve_equilibrium>` with a rule:
one LP, two QPs, two exact steps).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from gamelp.backends import check
from gamelp.display import Raw, Summarised
from gamelp.errors import BackendError, MissingDependency, ModelError, SolveError, did_you_mean
from gamelp.form import MatrixForm
from gamelp.game import SequenceFormGame
from gamelp.matrix import MatrixGame
from gamelp.model import Model
from gamelp.solution import Solution

SELECT_RULES = ("min-norm",)
# The optimal face is relaxed by this much, relative to 1 + |v*|, for the approximate QP (see the module docstring).
FACE_TOLERANCE = 1e-9
# Active-set thresholds tried in turn on the approximate point (weights in [0, 1]; slacks in payoff units).
THRESHOLDS = (1e-5, 1e-6, 1e-4, 1e-7, 1e-8)
# The KKT system's regularisation and the refinement steps on it (see _kkt_solve).
REGULARISATION = 1e-9
REFINEMENTS = 60
# Verification: the strategy's guaranteed value within this of v* (relative to 1 + |v*|); KKT residuals and
# multiplier signs within this relative to 1 + the largest weight.
VALUE_TOLERANCE = 1e-7
KKT_TOLERANCE = 1e-8
# exact_strategy: a pivoted QR's diagonal entry below this (relative to the largest) ends the independent set.
RANK_TOLERANCE = 1e-9
# Where the QP goes, in turn, when the backend asked for cannot take it or its point does not verify (installed).
FALLBACK_QP_BACKENDS = ("highs", "cvxpy:CLARABEL")
# Options the approximate QP gets on a backend (its point only seeds the exact step; see the module docstring):
# HiGHS's QP solver takes tens to hundreds of iterations on these faces (Leduc: 29-240), so an iteration limit of
# a few per column stops a stall (leduc:13x4: 155,000 iterations in 60 s without progress).
APPROXIMATE_QP_OPTIONS = {"highs": {"primal_feasibility_tolerance": 1e-4}}
QP_ITERATIONS_PER_COLUMN = 2
QP_ITERATIONS = 1000


def check_rule(select: str | None) -> str | None:
    """``select`` if it names a rule (None: no selection), else a ``ModelError`` with a did-you-mean."""
    if select is None or select in SELECT_RULES:
        return select
    hint = did_you_mean(str(select), SELECT_RULES)
    raise ModelError(f"unknown selection rule {select!r}" + (hint or f"; use one of {', '.join(SELECT_RULES)}"))


def face_tolerance(value: float) -> float:
    """``eps``: how far below the value ``v*`` the approximate QP's face is relaxed (see the module)."""
    return FACE_TOLERANCE * (1.0 + abs(value))


def qp_backends(model: Model, backend: str) -> list[str]:
    """The backends to try the selection's QP of the Nash LP ``model`` on, in turn (``model`` itself unchanged).

    ``backend`` (``auto`` resolved) if it takes the QP, then those of :data:`FALLBACK_QP_BACKENDS` installed.
    With none, a ``BackendError`` naming the backends that would.
    """
    qp = face_qp(copy.deepcopy(model), 0.0, 0.0)
    takers = []
    for candidate in (backend, *FALLBACK_QP_BACKENDS):
        try:
            takers.append(check(qp, candidate))
        except (BackendError, MissingDependency):
            continue
    if not takers:
        raise BackendError(f"select needs a backend that takes QPs: {' or '.join(FALLBACK_QP_BACKENDS)}")
    return list(dict.fromkeys(takers))


def approximate_qp_options(backend: str, form: MatrixForm) -> dict:
    """The options of the approximate QP on ``backend`` (:data:`APPROXIMATE_QP_OPTIONS`) over ``form``'s columns."""
    options = dict(APPROXIMATE_QP_OPTIONS.get(backend, {}))
    if backend == "highs":
        options["qp_iteration_limit"] = QP_ITERATIONS + QP_ITERATIONS_PER_COLUMN * form.c.size
    return options


def face_qp(model: Model, value: float, tolerance: float, strategy: str = "x") -> Model:
    """``model`` (a Nash LP, changed in place) as the min-norm QP over its optimal face relaxed by ``tolerance``.

    The LP's objective (in its value variables) becomes the row ``objective >= value - tolerance`` (``<=
    value + tolerance`` when it was minimised) and the objective ``1/2 ||strategy||^2``.
    """
    if not model.objective:
        raise ModelError(f"model {model.name!r} has no objective: its optimal face is not defined")
    maximised = model.sense == "max"
    rows = {block: np.asarray(coefficients)[None, :] for block, coefficients in model.objective.items()}
    bound = value - model.objective_constant + (-tolerance if maximised else tolerance)
    model.add_constraints("optimal_value", rows, ">=" if maximised else "<=", bound, labels=("value",))
    model.set_objective({}, sense="min", quadratic={strategy: 1.0})
    model.name = f"{model.name}_min_norm"
    return model


# ------------------------------------------------------------------ the value variables a strategy implies
def sequence_values(game: SequenceFormGame, player: int) -> Callable[[np.ndarray], np.ndarray]:
    """``x -> v(x)``: the opponent's decision-point values of the Nash LP at ``x``, by an exact best response.

    ``v_d = min_a (M^T x)_{da} + sum of the values below (d, a)``: the largest ``v`` feasible with ``x``, so
    every row the best response plays is tight (``v_root`` is ``x``'s guaranteed value).
    """
    opp = game.player(3 - player)
    M = game.payoff_matrix(player)

    def values(x: np.ndarray) -> np.ndarray:
        accumulated = -np.asarray(M.T @ x, dtype=float)  # the opponent's utility of each of its sequences
        opp._bottom_up(accumulated)
        v = np.empty(opp.num_decision_points + 1)
        v[0] = -accumulated[0]
        for j in range(opp.num_decision_points):
            v[j + 1] = -accumulated[opp.starts[j] : opp.ends[j]].max()
        return v

    return values


def matrix_values(game: MatrixGame, player: str) -> Callable[[np.ndarray], np.ndarray]:
    """``p -> (v,)``: the general matrix LP's value variable at a mix, what the mix guarantees (one entry)."""
    C = game.payoffs
    if player == "row":
        return lambda p: np.array([(C.T @ p).min()])
    return lambda q: np.array([(C @ q).max()])


# ------------------------------------------------------------------ the exact step
@dataclass(repr=False)
class Selection(Summarised):
    """A selected strategy: the approximate QP's solution and whether the exact step verified the point.

    ``strategy`` is the selected ``x``; ``polished`` says whether it is the verified solution of the active
    set's KKT system (else it is the QP's point, and ``note`` says why); ``zeros`` and ``tight`` count the
    active set; ``polish_time`` is the exact step's seconds.
    """

    rule: str
    strategy: np.ndarray
    solution: Solution
    polished: bool
    note: str
    polish_time: float = 0.0
    zeros: int = 0
    tight: int = 0
    active: ActiveSet | None = None  # the verified point's active set (polished), for exact_strategy

    @property
    def wall_time(self) -> float:
        """The QP's seconds and the exact step's."""
        return self.solution.wall_time + self.polish_time

    @property
    def qp_backend(self) -> str:
        """The backend that solved the approximate QP."""
        return self.solution.backend

    def _summary(self) -> dict:
        return {
            "rule": self.rule,
            "qp_backend": self.qp_backend,
            "polished": self.polished,
            "note": self.note,
            "wall_time": Raw(f"{self.wall_time:.3g}"),
        }

    def to_dict(self) -> dict:
        """JSON-ready: the rule, the QP's backend, whether the point was verified, and why not."""
        return {
            "rule": self.rule,
            "qp_backend": self.qp_backend,
            "polished": self.polished,
            "note": self.note,
            "zeros": self.zeros,
            "tight": self.tight,
        }


def selection_section(selections) -> dict:
    """``{"selection": [...]}``, each selection's JSON (:meth:`Selection.to_dict`), or nothing without any."""
    return {"selection": [selection.to_dict() for selection in selections]} if selections else {}


@dataclass(frozen=True, repr=False)
class ActiveSet(Summarised):
    """The exact step's active set: the Nash LP's ``form``, its ``zero`` columns and its ``rows`` held tight."""

    form: MatrixForm
    zero: np.ndarray
    rows: np.ndarray

    def _summary(self) -> dict:
        return {"form": self.form.name, "zero": int(self.zero.sum()), "rows": int(self.rows.sum())}


@dataclass
class _Step:
    """One try of the exact step: the point, or why not; and the active set."""

    x: np.ndarray | None
    why: str
    zeros: int
    tight: int
    active: ActiveSet | None = None


def _slack(form: MatrixForm, z: np.ndarray) -> np.ndarray:
    """Each row's slack at ``z`` (``>= 0`` when satisfied; equality rows: 0)."""
    activity = form.A @ z - form.rhs
    return np.where(form.row_sense == ">", activity, np.where(form.row_sense == "<", -activity, 0.0))


def _value_row(form: MatrixForm) -> np.ndarray:
    """The LP objective as a constraint's gradient, oriented so that the face is ``gradient . z >= bound``."""
    return form.c if form.maximize else -form.c


def _verify(form: MatrixForm, x: np.ndarray, values, value: float, zero: np.ndarray, rows: np.ndarray, m) -> str:
    """Why ``x`` is not the face's minimiser, or ``""`` (see the module docstring, step 4)."""
    xs = form.variable_slices["x"]
    if x.min() < -1e-12:
        return f"a zero-weight sequence left out of the active set (weight {x.min():.1e})"
    x = np.clip(x, 0.0, None)
    z = form.full_vector({"x": x, "v": values(x)})
    equality = form.row_sense == "="
    if np.abs(form.A[equality] @ z - form.rhs[equality]).max(initial=0.0) > 1e-9:
        return "not a strategy (the polytope's rows)"
    if _slack(form, z).min(initial=0.0) < -1e-9:
        return "infeasible rows at its own best-response values"
    guaranteed = float(form.c @ z) + form.objective_constant
    if abs(guaranteed - value) > VALUE_TOLERANCE * (1.0 + abs(value)):
        return f"not optimal (guarantees {guaranteed:.10g}, the LP {value:.10g})"
    # KKT: grad = sum over the active constraints of multiplier * gradient, the inequalities' multipliers >= 0.
    n = z.size
    gradient = np.zeros(n)
    gradient[xs] = x
    sense = form.row_sense[rows]
    orient = np.where(sense == "<", -1.0, 1.0)
    columns = [
        (form.A[rows].T @ sp.diags(orient)).tocsc(),
        sp.eye(n, format="csc")[:, np.flatnonzero(zero)],
        sp.csc_matrix(_value_row(form)[:, None]),
    ]
    lower = np.concatenate([np.where(sense == "=", -np.inf, 0.0), np.zeros(int(zero.sum())), [0.0]])
    scale = KKT_TOLERANCE * (1.0 + float(np.abs(x).max()))
    # The KKT solve's own multipliers first (min-norm ones: degenerate faces have many), then a bounded search.
    if m is not None:
        on_rows = -m * orient
        on_bounds = (gradient - columns[0] @ on_rows)[zero]
        if (np.concatenate([on_rows, on_bounds, [0.0]]) >= lower - scale).all():
            return ""
    # A feasibility LP (HiGHS, through scipy): multipliers of those signs that make the gradient exactly.
    from scipy.optimize import linprog  # only where a selection runs: gamelp's start-up stays off it

    stacked = sp.hstack(columns, format="csc")
    found = linprog(
        np.zeros(stacked.shape[1]),
        A_eq=stacked,
        b_eq=gradient,
        bounds=[(None if low == -np.inf else float(low), None) for low in lower],
        method="highs",
    )
    if found.status != 0:
        return "not the minimiser (no KKT multipliers of the right signs)"
    return ""


def _kkt_solve(kkt: sp.csc_matrix, rhs: np.ndarray, kept: int) -> np.ndarray | None:
    """A solution of the (maybe singular) KKT system ``kkt w = rhs``, or None if it has none.

    The system is regularised to ``kkt + diag(delta I, -delta I)`` (quasi-definite: its sparse LU is stable)
    and that factor iterated on the residual of the system itself (iterative refinement, the proximal-point
    iteration), which converges to an exact solution of a consistent system: ``x`` is unique, the multipliers
    need not be.
    """
    import scipy.sparse.linalg as spla  # only where a selection runs: gamelp's start-up stays off it

    size = kkt.shape[0]
    regularised = (kkt + sp.diags(np.r_[np.full(kept, REGULARISATION), np.full(size - kept, -REGULARISATION)])).tocsc()
    factor = spla.splu(regularised)
    solution = np.zeros(size)
    scale = 1.0 + float(np.abs(rhs).max(initial=0.0))
    for _ in range(REFINEMENTS):
        residual = rhs - kkt @ solution
        if np.abs(residual).max(initial=0.0) <= 1e-13 * scale:
            break
        solution += factor.solve(residual)
    return solution if np.abs(rhs - kkt @ solution).max(initial=0.0) <= 1e-9 * scale else None


def _exact_step(form: MatrixForm, approximate: np.ndarray, values, value: float, theta: float) -> _Step:
    """The active set at threshold ``theta``, its equality QP solved, and the answer verified (step 3 and 4)."""
    xs = form.variable_slices["x"]
    n = form.c.size
    z = form.full_vector({"x": approximate, "v": values(approximate)})
    zero = np.zeros(n, dtype=bool)
    zero[xs] = approximate <= theta
    rows = (form.row_sense == "=") | (_slack(form, z) <= theta)
    keep = ~zero
    A = form.A[rows][:, keep]
    kept, tight = int(keep.sum()), int(rows.sum())
    hessian = np.zeros(n)
    hessian[xs] = 1.0
    kkt = sp.csc_matrix(sp.bmat([[sp.diags(hessian[keep]), A.T], [A, None]]))
    rhs = np.concatenate([np.zeros(kept), form.rhs[rows]])
    solution = _kkt_solve(kkt, rhs, kept)
    if solution is None:
        return _Step(None, "the active set's equations are inconsistent", int(zero.sum()), tight)
    full = np.zeros(n)
    full[keep] = solution[:kept]
    x = full[xs]
    why = _verify(form, x, values, value, zero, rows, solution[kept:])
    if why:
        return _Step(None, why, int(zero.sum()), tight)
    return _Step(np.clip(x, 0.0, None), why, int(zero.sum()), tight, ActiveSet(form, zero, rows))


def exact_strategy(selection: Selection) -> np.ndarray:
    """The selected strategy in rationals: its active set's KKT system, made square, solved exactly.

    The system of the exact step (:func:`_exact_step`) may be singular (dependent tight rows; value variables
    ``v`` the rows leave free); a maximal set of independent rows and of independent ``v`` columns (pivoted QR,
    the others fixed at 0, which changes no row's activity) makes it square and nonsingular, and
    :func:`gamelp.models.exact.solve_exactly` solves it in rational arithmetic (the payoffs read as the
    certificate reads them).  The caller verifies the answer (a rank misjudged by the floats gives a singular
    system or a point that fails the certificate, never a wrong certificate).  A ``CertificateError`` when the
    selection was not verified by the exact step.
    """
    from gamelp.models.exact import CertificateError, solve_exactly

    active = selection.active
    if active is None:
        raise CertificateError(f"the {selection.rule} selection was not verified exactly: {selection.note}")
    form = active.form
    is_x = np.zeros(form.c.size, dtype=bool)
    is_x[form.variable_slices["x"]] = True
    kept = np.flatnonzero(~active.zero)
    A = form.A[active.rows][:, kept].toarray()
    rows = _independent(A.T)
    A = A[rows]
    value_columns = np.flatnonzero(~is_x[kept])
    columns = np.union1d(np.flatnonzero(is_x[kept]), value_columns[_independent(A[:, value_columns])])
    A = A[:, columns]
    hessian = sp.diags_array(is_x[kept][columns].astype(float))
    kkt = sp.block_array([[hessian, sp.csr_array(A.T)], [sp.csr_array(A), None]], format="csr")
    rhs = np.concatenate([np.zeros(columns.size), form.rhs[active.rows][rows]])
    solution = solve_exactly(kkt, rhs, f"{form.name}: the selected point's active set")
    point = np.full(form.c.size, Fraction(0), dtype=object)
    point[kept[columns]] = solution[: columns.size]
    return point[form.variable_slices["x"]]


def _independent(matrix: np.ndarray) -> np.ndarray:
    """The indices of a maximal set of linearly independent columns of ``matrix`` (pivoted QR), ascending."""
    from scipy.linalg import qr  # only where an exact selection runs: gamelp's start-up stays off it

    if matrix.size == 0:
        return np.zeros(0, dtype=int)
    _, r, pivots = qr(matrix, mode="economic", pivoting=True)
    diagonal = np.abs(np.diag(r))
    rank = int((diagonal > RANK_TOLERANCE * max(float(diagonal[0]), 1.0)).sum())
    return np.sort(pivots[:rank])


def polish(form: MatrixForm, approximate: np.ndarray, values, value: float) -> _Step:
    """The verified exact minimiser near ``approximate`` (``x`` None when no threshold verifies: the last reason).

    ``form`` is the Nash LP's (blocks ``x`` and ``v``), ``values`` maps a strategy to its ``v`` (the
    opponent's best-response values, :func:`sequence_values`, :func:`matrix_values`) and ``value`` is the LP's.
    """
    approximate = np.clip(np.asarray(approximate, dtype=float), 0.0, None)
    step = _Step(None, "no threshold tried", 0, 0)
    for theta in THRESHOLDS:
        step = _exact_step(form, approximate, values, value, theta)
        if step.x is not None:
            return step
    return step


def select_on_face(
    model: Model, value: float, backend: str, rule: str, values: Callable[[np.ndarray], np.ndarray], **options
) -> Selection:
    """``rule``'s point of the optimal face of the Nash LP ``model`` (changed in place), of value ``value``.

    Parameters
    ----------
    model : Model
        A freshly built Nash LP whose strategy block is ``x`` and value block ``v``; it becomes the QP.
    value : float
        The LP's optimum ``v*``, solved on ``backend``.
    backend : str
        The backend asked for; the QP goes to it if it takes it, else to the fallbacks (:func:`qp_backends`).
    rule : str
        One of :data:`SELECT_RULES`.
    values : callable
        A strategy's value variables (:func:`sequence_values`, :func:`matrix_values`).
    **options
        Solver options.

    Returns
    -------
    Selection
        The selected strategy (verified, or the QP's point and why not), and the QP's solution.
    """
    check_rule(rule)
    form = model.matrix_form()
    takers = qp_backends(model, backend)
    face_qp(model, value, face_tolerance(value))
    spent, raw = 0.0, None
    for attempt in takers:
        # The backend's approximate point first; if it gives none, or none the exact step verifies (SCS on
        # Leduc: "optimal_inaccurate", or a point 4e-3 away), the fallbacks'.
        solution = model.solve(attempt, **approximate_qp_options(attempt, form), **options)
        if "x" not in solution.values:
            continue
        began = time.perf_counter()
        step = polish(form, solution.values["x"], values, value)
        spent += time.perf_counter() - began
        if step.x is not None:
            note = f"exact on its active set ({step.zeros} zero sequences, {step.tight} rows tight)"
            return Selection(rule, step.x, solution, True, note, spent, step.zeros, step.tight, step.active)
        raw = Selection(rule, solution.values["x"], solution, False, f"the QP's point: {step.why}", spent)
    if raw is None:
        raise SolveError(f"{model.name} on {', '.join(takers)}: the selection's QP has no optimum ({solution.status})")
    return raw
