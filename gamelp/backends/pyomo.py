"""Pyomo: a gamelp model as a ``ConcreteModel``, solved by any Pyomo solver name.

:func:`build` makes one indexed ``Var`` per variable block (bounds and
Reals / Binary / Integers domain), one indexed ``Constraint`` per constraint
block (each row a ``LinearExpression`` read off the CSR matrix, as
``(lower, body, upper)``), and for each cone block ``u = M x + c`` auxiliary
variables ``u`` with ``u_0 >= 0``, the equalities ``u - M x = c`` and the
quadratic constraint ``sum_i u_i^2 <= u_0^2``.  LPs get a ``dual``
``Suffix(IMPORT)``.  Components carry the block names (suffixed on a clash)
and the dictionaries ``gamelp_variables``, ``gamelp_constraints`` (block name
-> ``Var`` / ``Constraint``) and ``gamelp_cones`` (cone name -> its auxiliary
``u``) map block names to them, so users can extend the model::

    pm = model.to_pyomo()
    pm.extra = pyo.Constraint(expr=pm.gamelp_variables["x"][0] <= 0.5)
    pyo.SolverFactory("appsi_highs").solve(pm)

:func:`solve` needs a solver name (``pyomo:appsi_highs``,
``pyomo:gurobi_direct``, ``pyomo:glpk``, ...).  Cones are only given to
solvers that take quadratic constraints (the Gurobi, CPLEX, Xpress and SCIP
families; tested with Gurobi).  The Gurobi family is held to the pip
licence's size limit exactly like the ``gurobi`` backend.  Duals are read as
d(objective)/d(rhs), checked for appsi_highs and gurobi_direct.
"""

from __future__ import annotations

import io
import sys
import time
from dataclasses import dataclass, field

import highspy
import numpy as np
import pyomo.environ as pe
from pyomo.common.log import LoggingIntercept
from pyomo.common.tee import capture_output
from pyomo.core.expr.numeric_expr import LinearExpression
from pyomo.opt import TerminationCondition as TC
from pyomo.solvers.plugins.solvers.persistent_solver import PersistentSolver

from gamelp.backends.gurobi import check_size
from gamelp.errors import BackendError
from gamelp.solution import (ERROR, INFEASIBLE, INFEASIBLE_OR_UNBOUNDED, OPTIMAL, TIME_LIMIT, UNBOUNDED,
                             Solution)

_STATUS = {TC.optimal: OPTIMAL, TC.globallyOptimal: OPTIMAL, TC.infeasible: INFEASIBLE,
           TC.unbounded: UNBOUNDED, TC.infeasibleOrUnbounded: INFEASIBLE_OR_UNBOUNDED,
           TC.maxTimeLimit: TIME_LIMIT}


@dataclass(frozen=True)
class _Family:
    """What gamelp knows about a family of Pyomo solvers (``gurobi_direct`` -> ``gurobi``)."""

    time_limit: str | None = None
    mip_gap: str | None = None
    quadratic: bool = False
    disambiguate: dict = field(default_factory=dict)  # options that split infeasible-or-unbounded


_FAMILIES = {
    "gurobi": _Family("TimeLimit", "MIPGap", True, {"DualReductions": 0}),
    "highs": _Family("time_limit", "mip_rel_gap"),
    "cplex": _Family("timelimit", "mip_tolerances_mipgap", True),
    "xpress": _Family("maxtime", "miprelstop", True),
    "scip": _Family("limits/time", "limits/gap", True),
    "glpk": _Family("tmlim", "mipgap"),
    "cbc": _Family("sec", "ratioGap"),
}


def _family_name(solver: str) -> str:
    return solver.lower().removeprefix("appsi_").split("_")[0]


def _family(solver: str) -> _Family:
    return _FAMILIES.get(_family_name(solver), _Family())


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
    return [LinearExpression(constant=0.0, linear_coefs=data[indptr[i]:indptr[i + 1]].tolist(),
                             linear_vars=[columns[j] for j in indices[indptr[i]:indptr[i + 1]]])
            for i in range(matrix.shape[0])]


def build(model) -> pe.ConcreteModel:
    """``model`` as a Pyomo ``ConcreteModel`` (block maps in ``gamelp_variables`` etc.)."""
    form = model.matrix_form()
    pm = pe.ConcreteModel(name=model.name)
    if not model.is_mip and not model.has_cones:
        pm.dual = pe.Suffix(direction=pe.Suffix.IMPORT)
    domain = {"continuous": pe.Reals, "binary": pe.Binary, "integer": pe.Integers}
    pm.gamelp_variables, pm.gamelp_constraints, pm.gamelp_cones = {}, {}, {}
    for name, b in model.variables.items():
        bounds = {i: (_bound(lo), _bound(hi)) for i, (lo, hi) in enumerate(zip(b.lb, b.ub))}
        var = pe.Var(range(b.size), domain=domain[b.kind], bounds=lambda _, i, bounds=bounds: bounds[i])
        pm.add_component(_component_name(pm, name, "var"), var)
        pm.gamelp_variables[name] = var
    columns = [var[i] for var in pm.gamelp_variables.values() for i in range(len(var))]
    lower, upper = form.row_bounds
    for name, b in model.constraints.items():
        body = _rows(form.A[b.slice], columns)
        lo, hi = lower[b.slice], upper[b.slice]
        con = pe.Constraint(range(b.size), rule=lambda _, i, body=body, lo=lo, hi=hi:
                            (_bound(lo[i]), body[i], _bound(hi[i])))
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
    objective = LinearExpression(constant=form.objective_constant, linear_coefs=form.c[nonzero].tolist(),
                                 linear_vars=[columns[j] for j in nonzero])
    pm.add_component(_component_name(pm, "objective", "obj"),
                     pe.Objective(expr=objective, sense=pe.maximize if form.maximize else pe.minimize))
    return pm


# ----------------------------------------------------------------------------- checking
def check(model, solver: str | None = None) -> None:
    if not solver:
        raise BackendError("backend 'pyomo' needs a solver name, e.g. pyomo:appsi_highs or pyomo:gurobi_direct")
    try:
        with LoggingIntercept(io.StringIO(), "pyomo"):  # an unknown name makes Pyomo log a traceback
            available = pe.SolverFactory(solver).available(exception_flag=False)
    except Exception:  # some plugins raise instead of answering False
        available = False
    if not available:
        raise BackendError(f"Pyomo solver {solver!r} is unknown or not available here; "
                           "try pyomo:appsi_highs or pyomo:gurobi_direct")
    family = _family_name(solver)
    if model.has_cones and not _family(solver).quadratic:
        raise BackendError(f"model {model.name!r} has second-order cones, which pyomo:{solver} cannot take "
                           "(it has no quadratic constraints); use pyomo:gurobi_direct, gurobi or cvxpy:CLARABEL")
    if family == "gurobi":
        check_size(model, f"pyomo:{solver}")


# ----------------------------------------------------------------------------- solving
def _solver_options(solver: str, model, time_limit, mip_gap, options: dict) -> dict:
    family, opts = _family(solver), dict(options)
    for value, key, what in ((time_limit, family.time_limit, "time limit"),
                             (mip_gap if model.is_mip else None, family.mip_gap, "MIP gap")):
        if value is None:
            continue
        if key is None:
            raise BackendError(f"gamelp knows no {what} option for pyomo:{solver}; "
                               "pass the solver's own option as a keyword instead")
        opts[key] = float(value)
    return opts


def _check_highs_options(solver: str, options: dict) -> None:
    """HiGHS ignores unknown options with a log line; refuse them instead, as the highs backend does."""
    probe = highspy.Highs()
    probe.setOptionValue("output_flag", False)
    for key, value in options.items():
        if probe.setOptionValue(key, value) != highspy.HighsStatus.kOk:
            raise BackendError(f"pyomo:{solver}: HiGHS rejected option {key}={value!r}")


def _run(opt, pm, opts: dict):
    if isinstance(opt, PersistentSolver):
        opt.set_instance(pm)
    return opt.solve(pm, tee=True, load_solutions=False, options=opts)


def _relative_gap(results, objective: float) -> float | None:
    lower, upper = results.problem.lower_bound, results.problem.upper_bound
    if lower is None or upper is None or not (np.isfinite(lower) and np.isfinite(upper)):
        return None
    return abs(upper - lower) / max(abs(objective), 1e-10)


def _values(model, pm) -> dict[str, np.ndarray]:
    """Block values; a variable the solver never saw (in no row) sits at its bound nearest 0."""
    values = {}
    for name, b in model.variables.items():
        var = pm.gamelp_variables[name]
        raw = np.array([np.nan if var[i].value is None else var[i].value for i in range(b.size)], dtype=float)
        values[name] = np.where(np.isnan(raw), np.clip(0.0, b.lb, b.ub), raw)
    return values


def solve(model, solver: str | None = None, /, *, verbose: bool = False, time_limit: float | None = None,
          mip_gap: float | None = None, start: dict | None = None, **options) -> Solution:
    """Solve with a Pyomo solver; ``start`` (block name -> values) is loaded as the variables' values,
    which solvers that take warm starts (the Gurobi family, appsi_highs) use as a MIP start."""
    pm = build(model)
    if start:
        for name, block_values in start.items():
            pm.gamelp_variables[name].set_values(dict(enumerate(np.asarray(block_values, dtype=float))))
    opt = pe.SolverFactory(solver)
    opts = _solver_options(solver, model, time_limit, mip_gap, options)
    if _family_name(solver) == "highs":
        _check_highs_options(solver, opts)
    buffer = io.StringIO()
    began = time.perf_counter()
    # Solve with tee on and capture at the file-descriptor level, so Solution.log always holds
    # the solver's own output; it is also shown live when verbose.
    with capture_output([buffer, sys.stdout] if verbose else buffer, capture_fd=True):
        try:
            results = _run(opt, pm, opts)
            if results.solver.termination_condition == TC.infeasibleOrUnbounded and _family(solver).disambiguate:
                results = _run(opt, pm, opts | _family(solver).disambiguate)
        except Exception as exc:  # Pyomo and its plugins raise many types; all mean "this solve failed"
            raise BackendError(f"pyomo:{solver} failed on model {model.name!r}: {exc}") from None
    wall = time.perf_counter() - began
    status = _STATUS.get(results.solver.termination_condition, ERROR)
    has_primal = status in (OPTIMAL, TIME_LIMIT) and len(results.solution) > 0
    values, duals, objective, gap = {}, {}, None, None
    if has_primal:
        pm.solutions.load_from(results)
        values = _values(model, pm)
        objective = float(pe.value(next(pm.component_data_objects(pe.Objective, active=True))))
        if hasattr(pm, "dual") and status == OPTIMAL:
            duals = {name: np.array([pm.dual.get(con[i], 0.0) for i in range(len(con))], dtype=float)
                     for name, con in pm.gamelp_constraints.items()}
        gap = _relative_gap(results, objective) if model.is_mip else 0.0
    elif not model.is_mip:
        gap = 0.0
    return Solution(status, objective, values, duals, gap, wall, buffer.getvalue())
