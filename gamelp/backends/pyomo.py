"""Pyomo: a gamelp model as a ``ConcreteModel``, solved by any Pyomo solver name.

:func:`build` makes one indexed ``Var`` per variable block (bounds and
Reals / Binary / Integers domain), one indexed ``Constraint`` per constraint
block (each row a ``LinearExpression`` read off the CSR matrix, as
``(lower, body, upper)``), and for each cone block ``u = M x + c`` auxiliary
variables ``u`` with ``u_0 >= 0``, the equalities ``u - M x = c`` and the
quadratic constraint ``sum_i u_i^2 <= u_0^2``; a quadratic objective term is
``1/2 sum_j q_j x_j^2`` added to the objective's expression.  LPs and QPs get a ``dual``
``Suffix(IMPORT)``.  Components carry the block names (suffixed on a clash)
and the dictionaries ``gamelp_variables``, ``gamelp_constraints`` (block name
-> ``Var`` / ``Constraint``) and ``gamelp_cones`` (cone name -> its auxiliary
``u``) map block names to them, so users can extend the model::

    pm = model.to_pyomo()
    pm.extra = pyo.Constraint(expr=pm.gamelp_variables["x"][0] <= 0.5)
    pyo.SolverFactory("appsi_highs").solve(pm)

:class:`PyomoBackend` needs a solver name (``pyomo:highs``, ``pyomo:appsi_highs``,
``pyomo:gurobi_direct``, ``pyomo:glpk``, ...), one of :data:`ALLOWED_SOLVERS`: Pyomo would run a program for
others (``asl:PATH``, ``sh``), so they are refused before Pyomo sees them.  Names that Pyomo's current
solver interface (``pyomo.contrib.solver``) registers go through it, with
its shared options (``time_limit``, ``rel_gap``, ``threads``), statuses,
bounds, duals and reduced costs; other names, and cone or quadratic-objective
models on a solver that interface only takes linearly (``gurobi_direct``), go
through the legacy ``pyomo.environ.SolverFactory``.  Cones and quadratic
objectives are only given to solvers that take quadratic terms (the Gurobi,
CPLEX, Xpress and SCIP families; tested with Gurobi).  The Gurobi family is held to the pip licence's size limit
exactly like the ``gurobi`` backend.  Duals are read as d(objective)/d(rhs),
checked for highs, appsi_highs and gurobi_direct.

Ctrl-C on the main thread while the model is built or solved gives ``interrupted`` (raised by the solve path as
:class:`~gamelp.errors.SolveInterrupted`), whatever Pyomo made of the stopped solver's status: the HiGHS that
``highs`` and ``appsi_highs`` make checks gamelp's flag in its interrupt callbacks
(:func:`gamelp.backends.highs_interrupt.every_run_stops`; ``highs`` keeps a MIP's incumbent and bound, Pyomo's appsi
interface keeps no point of an interrupted run), the Gurobi family catches SIGINT itself.  Ctrl-C while the
model is built starts no solver.
"""

from __future__ import annotations

import contextlib
import functools
import io
import time
from dataclasses import dataclass, field

import numpy as np
import pyomo.environ as pe
from pyomo.common.errors import ApplicationError, PyomoException
from pyomo.common.log import LoggingIntercept
from pyomo.contrib.solver.common.factory import SolverFactory as ContribSolverFactory
from pyomo.contrib.solver.common.results import SolutionStatus
from pyomo.contrib.solver.common.results import TerminationCondition as ContribTC
from pyomo.core.expr.numeric_expr import LinearExpression
from pyomo.opt import TerminationCondition as TC
from pyomo.solvers.plugins.solvers.persistent_solver import PersistentSolver

from gamelp.backends.base import Backend, Capabilities, Options, RawResult, ctrl_c_sets, solve_failed
from gamelp.backends.gurobi_licence import check_size, loaded_gurobi_errors
from gamelp.backends.highs_interrupt import every_run_stops
from gamelp.backends.highs_threads import use_threads
from gamelp.backends.quiet import captured, discard_stdout
from gamelp.backends.registry import pyomo_family
from gamelp.errors import BackendError, did_you_mean, shown
from gamelp.form import MatrixForm
from gamelp.solution import Status

_LEGACY_STATUS = {
    TC.optimal: Status.OPTIMAL,
    TC.globallyOptimal: Status.OPTIMAL,
    TC.infeasible: Status.INFEASIBLE,
    TC.unbounded: Status.UNBOUNDED,
    TC.infeasibleOrUnbounded: Status.INFEASIBLE_OR_UNBOUNDED,
    TC.maxTimeLimit: Status.TIME_LIMIT,
    TC.maxIterations: Status.ITERATION_LIMIT,
    TC.maxEvaluations: Status.ITERATION_LIMIT,
    TC.userInterrupt: Status.INTERRUPTED,
}
_CONTRIB_STATUS = {
    ContribTC.convergenceCriteriaSatisfied: Status.OPTIMAL,
    ContribTC.maxTimeLimit: Status.TIME_LIMIT,
    ContribTC.iterationLimit: Status.ITERATION_LIMIT,
    ContribTC.unbounded: Status.UNBOUNDED,
    ContribTC.provenInfeasible: Status.INFEASIBLE,
    ContribTC.locallyInfeasible: Status.INFEASIBLE,
    ContribTC.infeasibleOrUnbounded: Status.INFEASIBLE_OR_UNBOUNDED,
    ContribTC.interrupted: Status.INTERRUPTED,
}
_WARM_START = "warmstart_discrete_vars"  # the current interface's switch for a MIP start
# Contrib solvers that take the model only without quadratic terms (cones and QPs then go the legacy way).
_CONTRIB_LINEAR_ONLY = {"gurobi_direct"}


@dataclass(frozen=True)
class _Family:
    """What gamelp knows about a family of Pyomo solvers (``gurobi_direct`` -> ``gurobi``)."""

    time_limit: str | None = None
    mip_gap: str | None = None
    threads: str | None = None
    mip_abs_gap: str | None = None
    quadratic: bool = False
    warm_start: bool = False
    disambiguate: dict = field(default_factory=dict)  # options that split infeasible-or-unbounded


_FAMILIES = {
    "gurobi": _Family("TimeLimit", "MIPGap", "Threads", "MIPGapAbs", True, True, {"DualReductions": 0}),
    "highs": _Family("time_limit", "mip_rel_gap", "threads", "mip_abs_gap", warm_start=True),
    "cplex": _Family("timelimit", "mip_tolerances_mipgap", "threads", "mip_tolerances_absmipgap", True, True),
    "xpress": _Family("maxtime", "miprelstop", "threads", "mipabsstop", True),
    "scip": _Family("limits/time", "limits/gap", None, "limits/absgap", True),
    "glpk": _Family("tmlim", "mipgap"),
    "cbc": _Family("sec", "ratioGap", "threads", "allowableGap"),
}


# The solver names a ``pyomo:`` backend string may give: each starts a known solver (a library, or a solver program
# of that name on PATH).  Pyomo reads other names as programs too: ``asl:PATH`` runs the program at PATH, ``sh`` a
# shell, ``neos`` sends the model over the network; a service that passes a user's backend string to
# ``Model.solve`` would run them.  Documented in docs/guide/backends.md.
ALLOWED_SOLVERS = frozenset(
    {
        "highs",
        "appsi_highs",
        "gurobi",
        "gurobi_direct",
        "gurobi_persistent",
        "gurobi_direct_v2",
        "gurobi_persistent_v2",
        "appsi_gurobi",
        "cplex",
        "cplex_direct",
        "cplex_persistent",
        "appsi_cplex",
        "xpress",
        "xpress_direct",
        "xpress_persistent",
        "scip",
        "scip_direct",
        "scip_persistent",
        "glpk",
        "cbc",
        "appsi_cbc",
    }
)


def check_solver_name(solver: str) -> None:
    """Refuse, in one line, a Pyomo solver name outside :data:`ALLOWED_SOLVERS` (a path, ``asl:...``, ``sh``)."""
    if solver in ALLOWED_SOLVERS:
        return
    program = any(mark in solver for mark in (":", "/", "\\")) or solver in ("asl", "sh", "py")
    reason = "names a program for Pyomo to run" if program else "is not a solver gamelp lets Pyomo start"
    raise BackendError(
        f"backend pyomo: the solver name {shown(solver)} {reason}; use one of {', '.join(sorted(ALLOWED_SOLVERS))}"
        f"{did_you_mean(solver, ALLOWED_SOLVERS)}"
    )


def _family(solver: str) -> _Family:
    return _FAMILIES.get(pyomo_family(solver), _Family())


# ----------------------------------------------------------------------------- building
def _component_name(pm, name: str, kind: str) -> str:
    """``name`` if free on ``pm``, else ``name_kind`` (numbered if that is taken too)."""
    candidate, n = name, 1
    while hasattr(pm, candidate):
        candidate = f"{name}_{kind}" if n == 1 else f"{name}_{kind}{n}"
        n += 1
    return candidate


def _bound(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _rows(matrix, columns: list) -> list[LinearExpression]:
    """One ``LinearExpression`` per CSR row of ``matrix`` over the Pyomo ``columns``."""
    indptr, indices, data = matrix.indptr, matrix.indices, matrix.data
    return [
        LinearExpression(
            constant=0.0,
            linear_coefs=data[indptr[i] : indptr[i + 1]].tolist(),
            linear_vars=[columns[j] for j in indices[indptr[i] : indptr[i + 1]]],
        )
        for i in range(matrix.shape[0])
    ]


def _domain(form: MatrixForm, block: slice):
    if form.binary[block].any():
        return pe.Binary
    return pe.Integers if form.integer[block].any() else pe.Reals


def build(model, *, dual_suffix: bool = True) -> pe.ConcreteModel:
    """A model (or its :class:`MatrixForm`) as a Pyomo ``ConcreteModel`` (block maps in ``gamelp_variables`` etc.)."""
    form = model if isinstance(model, MatrixForm) else model.matrix_form()
    pm = pe.ConcreteModel(name=form.name)
    if dual_suffix and not form.is_mip and not form.cones:
        pm.dual = pe.Suffix(direction=pe.Suffix.IMPORT)
    pm.gamelp_variables, pm.gamelp_constraints, pm.gamelp_cones = {}, {}, {}
    for name, block in form.variable_slices.items():
        bounds = dict(enumerate(zip(map(_bound, form.col_lb[block]), map(_bound, form.col_ub[block]))))
        var = pe.Var(range(len(bounds)), domain=_domain(form, block), bounds=lambda _, i, bounds=bounds: bounds[i])
        pm.add_component(_component_name(pm, name, "var"), var)
        pm.gamelp_variables[name] = var
    columns = [var[i] for var in pm.gamelp_variables.values() for i in range(len(var))]
    lower, upper = form.row_bounds
    for name, rows in form.row_slices.items():
        body = _rows(form.A[rows], columns)
        lo, hi = lower[rows], upper[rows]
        con = pe.Constraint(
            range(len(body)), rule=lambda _, i, body=body, lo=lo, hi=hi: (_bound(lo[i]), body[i], _bound(hi[i]))
        )
        pm.add_component(_component_name(pm, name, "con"), con)
        pm.gamelp_constraints[name] = con
    for cone in form.cones:
        k = cone.matrix.shape[0]
        u = pe.Var(range(k), bounds=lambda _, i: (0.0 if i == 0 else None, None))
        pm.add_component(_component_name(pm, f"{cone.name}_u", "cone"), u)
        mx = _rows(cone.matrix, columns)
        definition = pe.Constraint(range(k), rule=lambda _, i, u=u, mx=mx, c=cone.constant: u[i] - mx[i] == c[i])
        pm.add_component(_component_name(pm, f"{cone.name}_def", "cone"), definition)
        if k > 1:
            soc = pe.Constraint(expr=sum(u[i] ** 2 for i in range(1, k)) <= u[0] ** 2)
            pm.add_component(_component_name(pm, cone.name, "cone"), soc)
        pm.gamelp_cones[cone.name] = u
    nonzero = np.flatnonzero(form.c)
    objective = LinearExpression(
        constant=form.objective_constant,
        linear_coefs=form.c[nonzero].tolist(),
        linear_vars=[columns[j] for j in nonzero],
    )
    if form.quadratic is not None:
        squared = np.flatnonzero(form.quadratic)
        objective = objective + sum(0.5 * float(form.quadratic[j]) * columns[j] ** 2 for j in squared)
    pm.add_component(
        _component_name(pm, "objective", "obj"),
        pe.Objective(expr=objective, sense=pe.maximize if form.maximize else pe.minimize),
    )
    pm.gamelp_columns = columns
    return pm


# ----------------------------------------------------------------------------- reading results
def _column_values(form: MatrixForm, columns: list, lookup) -> np.ndarray:
    """One value per column from ``lookup(var)``.

    A column the solver never saw (in no row) sits at its bound nearest 0 (its reduced cost there is its cost).
    """
    raw = np.array([np.nan if lookup(var) is None else lookup(var) for var in columns], dtype=float)
    return np.where(np.isnan(raw), np.clip(0.0, form.col_lb, form.col_ub), raw)


def _row_values(form: MatrixForm, pm, duals) -> np.ndarray:
    y = np.zeros(form.A.shape[0])
    for name, con in pm.gamelp_constraints.items():
        y[form.row_slices[name]] = [duals.get(con[i], 0.0) for i in range(len(con))]
    return y


def _check_highs_options(name: str, options: dict) -> None:
    """HiGHS ignores unknown options with a log line; refuse them instead, as the highs backend does.

    highspy is imported here, not at module level: it is the package Pyomo's own ``highs`` and
    ``appsi_highs`` solvers drive, asked only when one of them solves.
    """
    import highspy

    with discard_stdout():  # highspy's start-up banner
        probe = highspy.Highs()
        probe.setOptionValue("output_flag", False)
    for key, value in options.items():
        if probe.setOptionValue(key, value) != highspy.HighsStatus.kOk:
            raise BackendError(f"{name}: HiGHS rejected option {key}={value!r}")


@functools.cache
def _contrib_solver(solver: str):
    """The ``pyomo.contrib.solver`` instance for ``solver`` (one per process), or None if not registered."""
    try:
        return ContribSolverFactory(solver)  # None for a name the current interface does not register
    except ImportError:  # registered, but its package is missing (Pyomo's DeferredImportError)
        return None


def _availability_errors() -> tuple[type[Exception], ...]:
    """What asking a Pyomo solver plugin whether it is available may raise instead of answering False.

    ApplicationError: a direct or persistent plugin without its Python bindings; ImportError and
    NameError: the GAMS plugins (their bindings, or no ``gams`` command); OSError: a shell plugin's
    executable that cannot run; gurobipy's GurobiError: a licence check that fails.
    """
    return (ApplicationError, ImportError, NameError, OSError, *loaded_gurobi_errors())


def _solve_errors() -> tuple[type[Exception], ...]:
    """What a Pyomo solve that fails raises, from Pyomo, its solver interfaces, or the solver's package.

    PyomoException: Pyomo's own errors (NoSolutionError, NoFeasibleSolutionError,
    InfeasibleConstraintException, IterationLimitError, ...); ApplicationError: a solver that did not
    run or exit normally; RuntimeError and ValueError: the solver interfaces' refusals (bad status,
    unloadable results, rejected options); OSError: a shell solver's executable or files; gurobipy's
    GurobiError: an unknown parameter, the size-limited licence.
    """
    return (PyomoException, ApplicationError, RuntimeError, ValueError, OSError, *loaded_gurobi_errors())


class PyomoBackend(Backend):
    """One Pyomo solver, through ``pyomo.contrib.solver`` where it is registered there, else the legacy factory."""

    def __init__(self, solver: str | None = None):
        if not solver:
            raise BackendError("backend 'pyomo' needs a solver name, e.g. pyomo:highs or pyomo:gurobi_direct")
        check_solver_name(solver)  # before Pyomo is asked anything about it
        self.solver = solver
        self.name = f"pyomo:{solver}"
        family, contrib = _family(solver), _contrib_solver(solver)
        # The current interface takes a MIP start where its config has the switch (Gurobi), not for HiGHS.
        mip_start = _WARM_START in contrib.config if contrib is not None else family.warm_start
        self.capabilities = Capabilities(
            lp=True,
            mip=True,
            soc=family.quadratic,
            qp=family.quadratic,
            duals=True,
            mip_start=mip_start,
            time_limit=family.time_limit is not None,
        )

    def available(self) -> bool:
        """Whether Pyomo finds the solver; a plugin that raises instead of answering counts as not available."""
        try:
            with LoggingIntercept(io.StringIO(), "pyomo"):  # an unknown name makes Pyomo log a traceback
                contrib = _contrib_solver(self.solver)
                if contrib is not None:
                    return bool(contrib.available())
                return bool(pe.SolverFactory(self.solver).available(exception_flag=False))
        except _availability_errors():  # some plugins raise instead of answering False
            return False

    def check(self, form: MatrixForm) -> None:
        """Refuse a model over the size-limited licence's limits when the solver is Gurobi."""
        if pyomo_family(self.solver) == "gurobi":
            check_size(form, self.name)

    def _uses_contrib(self, form: MatrixForm) -> bool:
        quadratic = bool(form.cones) or form.quadratic is not None
        return _contrib_solver(self.solver) is not None and not (quadratic and self.solver in _CONTRIB_LINEAR_ONLY)

    def solve(self, form: MatrixForm, options: Options) -> RawResult:
        """Solve ``form`` as a Pyomo model (warm-started from ``options.start`` if given).

        Ctrl-C (on the main thread) while the model is built or solved: ``interrupted``, with what the solver had
        (the Gurobi family catches SIGINT itself; HiGHS checks gamelp's flag in its interrupt callbacks).
        """
        highs = pyomo_family(self.solver) == "highs"
        if highs:
            _check_highs_options(self.name, options.extra)
            if options.threads is not None:
                use_threads(options.threads)
        with ctrl_c_sets() as stop:
            pm = build(form, dual_suffix=not self._uses_contrib(form))
            if options.start is not None:
                for var, value in zip(pm.gamelp_columns, options.start):
                    var.set_value(float(value), skip_validation=True)
            began = time.perf_counter()
            # Solve with tee on and capture at the file-descriptor level, so the log always holds the
            # solver's own output; it never reaches standard output and is copied to standard error when verbose.
            with captured(echo=options.verbose) as log:
                try:
                    raw = self._stoppable(form, pm, options, stop, highs)
                except BackendError:
                    raise
                except _solve_errors() as exc:  # every one of them means "this solve failed", unless it was stopped
                    if not stop.is_set():
                        raise solve_failed(self.name, form.name, exc) from None
                    raw = RawResult(Status.INTERRUPTED)
        if stop.is_set():  # Ctrl-C during the solve, whatever Pyomo made of the stopped solver's status
            raw.status = Status.INTERRUPTED
        raw.wall_time, raw.log = time.perf_counter() - began, log.text
        return raw

    def _stoppable(self, form: MatrixForm, pm, options: Options, stop, highs: bool) -> RawResult:
        """The solve, run only if Ctrl-C was not pressed while the model was built; a HiGHS run checks ``stop``."""
        if stop.is_set():
            return RawResult(Status.INTERRUPTED)
        with every_run_stops(stop) if highs else contextlib.nullcontext():
            return self._contrib(form, pm, options) if self._uses_contrib(form) else self._legacy(form, pm, options)

    def _contrib(self, form: MatrixForm, pm, options: Options) -> RawResult:
        opt = _contrib_solver(self.solver)
        solver_options = dict(options.extra)
        config: dict[str, object] = {
            "tee": True,
            "load_solutions": False,
            "raise_exception_on_nonoptimal_result": False,
            "solver_options": solver_options,
        }
        for key, value in (
            ("time_limit", options.time_limit),
            ("rel_gap", options.mip_gap if form.is_mip else None),
            ("abs_gap", options.mip_abs_gap if form.is_mip else None),
            ("threads", options.threads),
        ):
            if value is not None:
                config[key] = value
        if options.start is not None and self.capabilities.mip_start:
            config[_WARM_START] = True
        results = opt.solve(pm, **config)
        if results.termination_condition == ContribTC.infeasibleOrUnbounded and _family(self.solver).disambiguate:
            solver_options.update(_family(self.solver).disambiguate)
            results = opt.solve(pm, **config)
        raw = RawResult(_CONTRIB_STATUS.get(results.termination_condition, Status.ERROR))
        if results.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible):
            loader = results.solution_loader
            raw.x = _column_values(form, pm.gamelp_columns, loader.get_vars().get)
            raw.objective = results.incumbent_objective
            if not form.is_mip and not form.cones and results.solution_status == SolutionStatus.optimal:
                raw.row_duals = _row_values(form, pm, loader.get_duals())
                raw.reduced_costs = _column_values(form, pm.gamelp_columns, loader.get_reduced_costs().get)
        if form.is_mip and results.objective_bound is not None:
            raw.bound = float(results.objective_bound)
        return raw

    def _legacy_options(self, form: MatrixForm, options: Options) -> dict:
        family, opts = _family(self.solver), dict(options.extra)
        for value, key, what in (
            (options.time_limit, family.time_limit, "time limit"),
            (options.mip_gap if form.is_mip else None, family.mip_gap, "MIP gap"),
            (options.mip_abs_gap if form.is_mip else None, family.mip_abs_gap, "absolute MIP gap"),
            (options.threads, family.threads, "threads"),
        ):
            if value is None:
                continue
            if key is None:
                raise BackendError(
                    f"gamelp knows no {what} option for {self.name}; pass the solver's own option as a keyword instead"
                )
            opts[key] = value
        return opts

    def _legacy(self, form: MatrixForm, pm, options: Options) -> RawResult:
        opt = pe.SolverFactory(self.solver)
        if not opt.available(exception_flag=False):
            raise BackendError(f"Pyomo solver {self.solver!r} is unknown or not available here")
        opts = self._legacy_options(form, options)

        def run(settings):
            if isinstance(opt, PersistentSolver):
                opt.set_instance(pm)
            return opt.solve(pm, tee=True, load_solutions=False, options=settings)

        results = run(opts)
        if results.solver.termination_condition == TC.infeasibleOrUnbounded and _family(self.solver).disambiguate:
            results = run(opts | _family(self.solver).disambiguate)
        raw = RawResult(_LEGACY_STATUS.get(results.solver.termination_condition, Status.ERROR))
        if len(results.solution) > 0:
            pm.solutions.load_from(results)
            raw.x = _column_values(form, pm.gamelp_columns, lambda var: var.value)
            raw.objective = float(pe.value(next(pm.component_data_objects(pe.Objective, active=True))))
            if hasattr(pm, "dual") and raw.status == Status.OPTIMAL:
                raw.row_duals = _row_values(form, pm, pm.dual)
                gradient = form.c if form.quadratic is None else form.c + form.quadratic * raw.x
                raw.reduced_costs = gradient - form.A.T @ raw.row_duals
        bound = results.problem.upper_bound if form.maximize else results.problem.lower_bound
        if form.is_mip and bound is not None and np.isfinite(bound):
            raw.bound = float(bound)
        return raw
