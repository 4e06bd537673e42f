"""cvxpy: any installed cvxpy solver (CLARABEL, SCS, HIGHS, GUROBI, ...) on a gamelp model.

:func:`build` turns a :class:`~gamelp.model.Model` into a ``cvxpy.Problem``
with one ``cp.Variable`` per variable block (bounds, boolean / integer flags),
one constraint per constraint block (``sum_b M_b @ x_b  <=, >= or ==  rhs``
with the scipy.sparse pieces of the block's matrix) and one ``cp.SOC`` per
cone block; a quadratic objective term is ``1/2 sum(multiply(q, square(x_b)))``
per block, for the solvers that take it as it is (Clarabel, SCS, Gurobi, OSQP, ...).
The problem carries ``var_blocks``, ``constraint_blocks`` and
``cone_blocks`` (name -> cvxpy object) so users can extend it natively::

    prob = model.to_cvxpy()
    x = prob.var_blocks["x"]
    cp.Problem(prob.objective, prob.constraints + [x[0] <= 0.5]).solve(solver="CLARABEL")

cvxpy reports a constraint's dual as a Lagrange multiplier (non-negative for
inequalities); :class:`CvxpyBackend` turns it into d(objective)/d(rhs), and
gives the reduced costs ``c + q x - A^T y`` of models without cones.

Ctrl-C on the main thread stops the solver in place and gives ``interrupted`` (raised by the solve path as
:class:`~gamelp.errors.SolveInterrupted`): cvxpy runs the solver out of gamelp's reach, so for the solve
(:func:`_stops_on`) HiGHS's runs check gamelp's flag in their interrupt callbacks
(:func:`gamelp.backends.highs_interrupt.every_run_stops`; an interrupted MIP keeps its incumbent and bound),
each Clarabel solver checks it in its termination callback, and SCS and ECOS, which catch SIGINT themselves, are read as
interrupted off their own result (cvxpy calls that a solver error); Gurobi catches SIGINT itself and says so.
SCS stopped by its time limit (cvxpy's ``optimal_inaccurate``) is ``time_limit``.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
import warnings
from collections.abc import Iterator

import cvxpy as cp
import cvxpy.settings as cps
import numpy as np
from cvxpy.constraints import SOC
from cvxpy.reductions.solvers.defines import SOLVER_MAP_CONIC, SOLVER_MAP_QP

from gamelp.backends.base import Backend, Capabilities, Options, RawResult, ctrl_c_sets, wrapped_on_main_thread
from gamelp.backends.gurobi_licence import STATUS as GUROBI_STATUS
from gamelp.backends.gurobi_licence import loaded_gurobi_errors
from gamelp.backends.highs_interrupt import every_run_stops
from gamelp.backends.highs_threads import use_threads
from gamelp.backends.quiet import captured
from gamelp.backends.registry import SOLVER_PACKAGES
from gamelp.deps import installed
from gamelp.errors import BackendError
from gamelp.form import MatrixForm
from gamelp.solution import Status

_STATUS = {
    cps.OPTIMAL: Status.OPTIMAL,
    cps.OPTIMAL_INACCURATE: Status.OPTIMAL_INACCURATE,
    cps.INFEASIBLE: Status.INFEASIBLE,
    cps.INFEASIBLE_INACCURATE: Status.INFEASIBLE,
    cps.UNBOUNDED: Status.UNBOUNDED,
    cps.UNBOUNDED_INACCURATE: Status.UNBOUNDED,
    cps.INFEASIBLE_OR_UNBOUNDED: Status.INFEASIBLE_OR_UNBOUNDED,
}
# The solver's own keyword for gamelp's generic options, where known.
_TIME_LIMIT_OPTION = {
    "CLARABEL": "time_limit",
    "SCS": "time_limit_secs",
    "HIGHS": "time_limit",
    "GUROBI": "TimeLimit",
    "COPT": "TimeLimit",
    "CBC": "maximumSeconds",
}
_MIP_GAP_OPTION = {"HIGHS": "mip_rel_gap", "GUROBI": "MIPGap", "COPT": "RelGap", "CBC": "allowableFractionGap"}
_MIP_ABS_GAP_OPTION = {"HIGHS": "mip_abs_gap", "GUROBI": "MIPGapAbs", "COPT": "AbsGap", "CBC": "allowableGap"}
_THREADS_OPTION = {"HIGHS": "threads", "GUROBI": "Threads", "COPT": "Threads"}
# Solvers whose cvxpy interface can re-solve to tell infeasible from unbounded when presolve could not.
_REOPTIMIZE = {"GUROBI", "CPLEX"}
# First-order solvers: optima to about 1e-4, not 1e-7.
_FIRST_ORDER = {"SCS", "OSQP"}
# Attributes of the solver's own result object (cvxpy's extra_stats): (objective, best bound) of a MIP.
_BOUND_ATTRIBUTES = (("objective_function_value", "mip_dual_bound"), ("ObjVal", "ObjBound"))


def _native_read_errors() -> tuple[type[Exception], ...]:
    """What reading a number off a solver's own result object raises when it has none.

    AttributeError: the object has no such attribute (cvxpy's extra_stats is a dict for Clarabel and
    SCS, HiGHS's HighsInfo, or None), or gurobipy's "Unable to retrieve attribute" when a value is not
    available now (gurobipy 13 raises it as an AttributeError); TypeError and ValueError: a value that is
    not a number; gurobipy's own GurobiError, which its other failures raise.
    """
    return (AttributeError, TypeError, ValueError, *loaded_gurobi_errors())


class BlockProblem(cp.Problem):
    """A ``cvxpy.Problem`` built from a model, with its blocks by name (block name -> cvxpy object)."""

    var_blocks: dict[str, cp.Variable]
    constraint_blocks: dict[str, cp.Constraint]
    cone_blocks: dict[str, cp.Constraint]


# ----------------------------------------------------------------------------- building
def _blockwise(matrix, form: MatrixForm, var_blocks: dict) -> cp.Expression:
    """``matrix @ x`` as a sum of per-block sparse products, skipping blocks with no coefficients."""
    matrix = matrix.tocsc()
    terms = [
        matrix[:, block] @ var_blocks[name] for name, block in form.variable_slices.items() if matrix[:, block].nnz
    ]
    if not terms:  # an all-zero row block still needs an expression of the right length
        name, block = next(iter(form.variable_slices.items()))
        terms = [matrix[:, block] @ var_blocks[name]]
    return cp.sum(terms) if len(terms) > 1 else terms[0]


def _variable(form: MatrixForm, name: str, block: slice) -> cp.Variable:
    lb, ub = form.col_lb[block], form.col_ub[block]
    bounded = np.isfinite(lb).any() or np.isfinite(ub).any()
    binary = bool(form.binary[block].any())
    return cp.Variable(
        lb.size,
        name=name,
        boolean=binary,
        integer=bool(form.integer[block].any()) and not binary,
        bounds=[lb, ub] if bounded else None,
    )


_RELATION = {"<": lambda e, r: e <= r, ">": lambda e, r: e >= r, "=": lambda e, r: e == r}


def build(model) -> BlockProblem:
    """A model (or its :class:`MatrixForm`) as a ``cvxpy.Problem``.

    Also returns ``var_blocks``, ``constraint_blocks`` and ``cone_blocks`` (block name -> cvxpy object).
    """
    form = model if isinstance(model, MatrixForm) else model.matrix_form()
    if not form.variable_slices:
        raise BackendError(f"model {form.name!r} has no variables")
    var_blocks = {name: _variable(form, name, block) for name, block in form.variable_slices.items()}
    constraint_blocks = {
        name: _RELATION[form.row_sense[rows.start]](_blockwise(form.A[rows], form, var_blocks), form.rhs[rows])
        for name, rows in form.row_slices.items()
        if rows.stop > rows.start
    }
    cone_blocks = {}
    for cone in form.cones:
        u = _blockwise(cone.matrix, form, var_blocks) + cone.constant
        cone_blocks[cone.name] = SOC(u[0], u[1:]) if cone.matrix.shape[0] > 1 else u[0] >= 0
    objective = cp.Constant(form.objective_constant) + sum(
        form.c[block] @ var_blocks[name] for name, block in form.variable_slices.items() if form.c[block].any()
    )
    if form.quadratic is not None:
        objective = objective + 0.5 * sum(
            cp.sum(cp.multiply(form.quadratic[block], cp.square(var_blocks[name])))
            for name, block in form.variable_slices.items()
            if form.quadratic[block].any()
        )
    problem = BlockProblem(
        cp.Maximize(objective) if form.maximize else cp.Minimize(objective),
        [*constraint_blocks.values(), *cone_blocks.values()],
    )
    problem.var_blocks, problem.constraint_blocks, problem.cone_blocks = var_blocks, constraint_blocks, cone_blocks
    return problem


# ----------------------------------------------------------------------------- the backend
def _solver_class(name: str):
    return SOLVER_MAP_CONIC.get(name) or SOLVER_MAP_QP.get(name)


def _takes_quadratic_objective(solver) -> bool:
    """Whether cvxpy hands ``solver`` a quadratic objective as it is; False where the solver's package is missing.

    cvxpy's answer imports the package; a missing one is refused by name, naming the extra, before any solve.
    """
    try:
        return bool(getattr(solver, "supports_quad_obj", lambda: False)())
    except ImportError:
        return False


def _capabilities(name: str) -> Capabilities:
    solver = _solver_class(name)
    return Capabilities(
        lp=True,
        mip=bool(solver.MIP_CAPABLE),
        soc=SOC in getattr(solver, "SUPPORTED_CONSTRAINTS", ()),
        # Solvers that take a quadratic objective as it is: conic ones given it as cone epigraphs (ECOS) return
        # the minimiser only to the square root of their accuracy (7e-6 on a toy QP), so they are not offered it;
        # nor is HiGHS, whose QP solver (1.16) fails on the equilibrium selection's QPs of Leduc at its default
        # tolerances (gamelp's highs backend takes them with the looser options models/select.py gives it).
        qp=(name in SOLVER_MAP_QP or _takes_quadratic_objective(solver)) and name != "HIGHS",
        duals=True,
        mip_start=name in _REOPTIMIZE,
        time_limit=name in _TIME_LIMIT_OPTION,
        accuracy=1e-4 if name in _FIRST_ORDER else 1e-7,
    )


def _dual_sign(maximize: bool, sense: str) -> float:
    """Factor turning cvxpy's multiplier into d(objective)/d(rhs) (checked by the backend tests)."""
    return (1.0 if maximize else -1.0) * (-1.0 if sense == ">" else 1.0)


def _bound(problem: cp.Problem, maximize: bool) -> float | None:
    """A MIP's best bound from the solver's own result object, when it exposes one (HiGHS, Gurobi).

    cvxpy hands the solver ``min -f`` for ``max f`` and may move constants out, so the bound is mapped
    back through the same affine relation that links the solver's objective to ``problem.value``.
    """
    extra = problem.solver_stats.extra_stats if problem.solver_stats else None
    if extra is None:
        return None
    sign = -1.0 if maximize else 1.0
    for objective_attr, bound_attr in _BOUND_ATTRIBUTES:
        try:
            solver_objective, solver_bound = float(getattr(extra, objective_attr)), float(getattr(extra, bound_attr))
        except _native_read_errors():  # absent, or not available now
            continue
        return sign * solver_bound + (problem.value - sign * solver_objective)
    return None


@contextlib.contextmanager
def _cvxpy_log_to_stdout():
    """Point cvxpy's own log handlers at the current ``sys.stdout`` for a while (inside :func:`captured`, its buffer).

    cvxpy logs through a handler bound to the ``sys.stderr`` of its import, which no file-descriptor or
    ``sys.stderr`` redirection reaches: without this its verbose log reached every run's standard error.
    """
    handlers = [h for h in cps.LOGGER.handlers if isinstance(h, logging.StreamHandler)]
    previous = [h.stream for h in handlers]
    # Assigned, not setStream: that flushes the old stream, which a test harness may have closed.
    for handler in handlers:
        handler.stream = sys.stdout
    try:
        yield
    finally:
        for handler, stream in zip(handlers, previous):
            handler.stream = stream


def _status(problem: cp.Problem, options: Options) -> Status:
    """The status, from the solver's own model or result where cvxpy exposes it (Gurobi, SCS).

    cvxpy folds every Gurobi limit into ``user_limit`` and, without a solution, into
    ``infeasible_inaccurate``; Gurobi's own status says which limit it was.  SCS stopped by its time limit
    says "solved (inaccurate - reached time_limit_secs)", which cvxpy reports as ``optimal_inaccurate``.
    """
    native = getattr(problem.solver_stats, "extra_stats", None) if problem.solver_stats else None
    if native is not None:
        try:
            return GUROBI_STATUS.get(int(native.Status), Status.ERROR)
        except _native_read_errors():  # not a gurobipy model: read cvxpy's status
            pass
    if isinstance(native, dict) and "reached time_limit" in str(native.get("info", {}).get("status", "")):
        return Status.TIME_LIMIT
    if problem.status == cps.USER_LIMIT:
        return Status.TIME_LIMIT if options.time_limit is not None else Status.ITERATION_LIMIT
    return _STATUS.get(problem.status, Status.ERROR)


def _point(form: MatrixForm, problem: BlockProblem) -> np.ndarray:
    """All columns of the solution.

    A block in no constraint and not in the objective (cvxpy leaves it unset) sits at its bound nearest 0.
    """
    return np.concatenate(
        [
            np.clip(0.0, form.col_lb[block], form.col_ub[block])
            if problem.var_blocks[name].value is None
            else np.asarray(problem.var_blocks[name].value, dtype=np.float64).reshape(-1)
            for name, block in form.variable_slices.items()
        ]
    )


# What a solver's own result (what cvxpy's solve_via_data returns) says when it stopped on SIGINT itself.
_STOPPED_ITSELF = {
    "SCS": lambda result: result["info"].get("status_val") == -5,  # SCS_SIGINT
    "ECOS": lambda result: result["info"].get("exitFlag") == -4,  # ECOS_SIGINT
    "HIGHS": lambda result: result.get("model_status") == "kInterrupt",
}
_HIGHS_FEASIBLE = 2  # HiGHS's kSolutionStatusFeasible


def _clarabel_stops(stop: threading.Event) -> contextlib.AbstractContextManager[None]:
    """Every Clarabel solver made in the block checks ``stop`` at each iteration (its termination callback)."""
    import clarabel  # type: ignore[import-untyped]

    def wrap(make):
        def made(*args, **kwargs):
            solver = make(*args, **kwargs)
            solver.set_termination_callback(lambda info: stop.is_set())
            return solver

        return made

    return wrapped_on_main_thread(clarabel, "DefaultSolver", wrap)


@contextlib.contextmanager
def _stops_on(solver: str, stop: threading.Event) -> Iterator[None]:
    """Inside the block, ``solver`` run by cvxpy stops once ``stop`` is set, and sets it if it stopped on SIGINT itself.

    On the main thread: HiGHS checks ``stop`` in its interrupt callbacks
    (:func:`~gamelp.backends.highs_interrupt.every_run_stops`), Clarabel in its termination callback; SCS, ECOS
    and Gurobi catch SIGINT themselves.  cvxpy's ``solve_via_data`` is
    wrapped to read the solver's own result: an interrupted HiGHS MIP's feasible incumbent is handed on as a
    limit's (cvxpy keeps no point of a status it does not know).
    """

    def wrap(solve_via_data):
        def read(self, *args, **kwargs):
            if stop.is_set():  # pressed while cvxpy compiled the problem: no solver run
                raise cp.error.SolverError("interrupted before the solver started")
            result = solve_via_data(self, *args, **kwargs)
            stopped = _STOPPED_ITSELF.get(solver)
            if stopped is not None and stopped(result):
                stop.set()
            if solver == "HIGHS" and stop.is_set() and result["info"].primal_solution_status == _HIGHS_FEASIBLE:
                result["model_status"] = "kSolutionLimit"  # cvxpy then unpacks the incumbent
            return result

        return read

    with contextlib.ExitStack() as stack:
        if solver == "HIGHS":
            stack.enter_context(every_run_stops(stop))
        elif solver == "CLARABEL":
            stack.enter_context(_clarabel_stops(stop))
        for table in (SOLVER_MAP_CONIC, SOLVER_MAP_QP):
            if solver in table:
                stack.enter_context(wrapped_on_main_thread(type(table[solver]), "solve_via_data", wrap))
        yield


class CvxpyBackend(Backend):
    """One cvxpy solver; its capabilities are read off cvxpy's own solver class."""

    def __init__(self, solver: str | None = None):
        known = [*SOLVER_MAP_CONIC, *SOLVER_MAP_QP]
        if not solver:
            raise BackendError(
                "backend 'cvxpy' needs a solver name, e.g. cvxpy:CLARABEL; installed: "
                + ", ".join(cp.installed_solvers())
            )
        matches = [name for name in known if name.upper() == solver.upper()]
        if not matches:
            raise BackendError(f"cvxpy knows no solver {solver!r}; installed: {', '.join(cp.installed_solvers())}")
        self.solver = matches[0]
        self.name = f"cvxpy:{self.solver}"
        self.package = SOLVER_PACKAGES.get(self.solver, (None, None))[0]
        self.capabilities = _capabilities(self.solver)

    def available(self) -> bool:
        """Whether the solver's package is installed (``find_spec``, as cvxpy does for some solvers).

        A solver gamelp knows no package of is asked of cvxpy.
        """
        if self.solver in SOLVER_PACKAGES:
            return installed(SOLVER_PACKAGES[self.solver][0])
        return self.solver in cp.installed_solvers()

    def check(self, form: MatrixForm) -> None:
        """Refuse a model with both integer variables and cones when the cvxpy solver cannot take them together."""
        solver = _solver_class(self.solver)
        if form.is_mip and form.cones and SOC not in solver.MI_SUPPORTED_CONSTRAINTS:
            raise BackendError(
                f"model {form.name!r} has integer variables and second-order cones, "
                f"which {self.name} cannot take together; use gurobi"
            )

    def _options(self, form: MatrixForm, options: Options) -> dict:
        opts = dict(options.extra)
        for value, table, what in (
            (options.time_limit, _TIME_LIMIT_OPTION, "time limit"),
            (options.mip_gap if form.is_mip else None, _MIP_GAP_OPTION, "MIP gap"),
            (options.mip_abs_gap if form.is_mip else None, _MIP_ABS_GAP_OPTION, "absolute MIP gap"),
            (options.threads, _THREADS_OPTION, "threads"),
        ):
            if value is None:
                continue
            if self.solver not in table:
                raise BackendError(
                    f"gamelp knows no {what} option for {self.name}; pass the solver's own option as a keyword instead"
                )
            opts[table[self.solver]] = value
        if self.solver == "HIGHS" and options.threads is not None:
            use_threads(options.threads)
        if self.solver in _REOPTIMIZE:
            opts.setdefault("reoptimize", True)
        return opts

    def solve(self, form: MatrixForm, options: Options) -> RawResult:
        """Solve ``form`` through cvxpy (warm-started from ``options.start`` if given); the solver's log is captured."""
        # Ctrl-C from the start of the build sets the flag (cvxpy builds large problems slowly): never a
        # KeyboardInterrupt outside the solve.
        with ctrl_c_sets() as stop:
            problem = build(form)
            opts = self._options(form, options)
            if options.start is not None:
                for name, block in form.variable_slices.items():
                    problem.var_blocks[name].value = options.start[block]
                opts["warm_start"] = True
            began = time.perf_counter()
            # The solver always logs; the log is captured at the file-descriptor level (compiled solvers
            # print there), never reaches standard output, and is copied to standard error when verbose.
            failure: Exception | None = None
            with captured(echo=options.verbose) as log, _cvxpy_log_to_stdout():
                try:
                    if not stop.is_set():  # Ctrl-C while the problem was built: no solve
                        with warnings.catch_warnings(), _stops_on(self.solver, stop):
                            warnings.simplefilter("ignore", UserWarning)  # inaccurate results: the status says so
                            problem.solve(solver=self.solver, verbose=True, **opts)
                    failure = None
                except cp.error.SolverError as exc:
                    failure = exc
                except (TypeError, ValueError, KeyError, AttributeError) as exc:
                    if stop.is_set():  # the stopped solver's result, which cvxpy could not read
                        failure = exc
                    elif not options.extra:
                        raise
                    else:
                        raise BackendError(f"{self.name} rejected the options {sorted(options.extra)}: {exc}") from None
        raw = RawResult(
            Status.INTERRUPTED if stop.is_set() else Status.ERROR, wall_time=time.perf_counter() - began, log=log.text
        )
        if failure is not None:
            raw.log += f"\n{failure}"
            return raw
        if not stop.is_set():
            raw.status = _status(problem, options)
        if problem.value is not None and np.isfinite(problem.value):
            raw.x, raw.objective = _point(form, problem), float(problem.value)
        if form.is_mip:
            raw.bound = _bound(problem, form.maximize) if raw.x is not None else None
        elif raw.x is not None:
            y = np.zeros(form.A.shape[0])
            for name, con in problem.constraint_blocks.items():
                rows = form.row_slices[name]
                if con.dual_value is not None:
                    y[rows] = _dual_sign(form.maximize, form.row_sense[rows.start]) * np.asarray(
                        con.dual_value, dtype=float
                    ).reshape(-1)
            raw.row_duals = y
            if not form.cones:  # with cones, the cone multipliers enter the reduced costs too
                gradient = form.c if form.quadratic is None else form.c + form.quadratic * raw.x
                raw.reduced_costs = gradient - form.A.T @ y
        return raw
