"""cvxpy: any installed cvxpy solver (CLARABEL, SCS, HIGHS, GUROBI, ...) on a gamelp model.

:func:`build` turns a :class:`~gamelp.model.Model` into a ``cvxpy.Problem``
with one ``cp.Variable`` per variable block (bounds, boolean / integer flags),
one constraint per constraint block (``sum_b M_b @ x_b  <=, >= or ==  rhs``
with the scipy.sparse pieces of the block's matrix) and one ``cp.SOC`` per
cone block.  The problem carries ``var_blocks``, ``constraint_blocks`` and
``cone_blocks`` (name -> cvxpy object) so users can extend it natively::

    prob = model.to_cvxpy()
    x = prob.var_blocks["x"]
    cp.Problem(prob.objective, prob.constraints + [x[0] <= 0.5]).solve(solver="CLARABEL")

cvxpy reports a constraint's dual as a Lagrange multiplier (non-negative for
inequalities); :func:`solve` turns it into d(objective)/d(rhs).
"""

from __future__ import annotations

import io
import logging
import sys
import time

import cvxpy as cp
import cvxpy.settings as cps
import numpy as np
from cvxpy.constraints import SOC
from cvxpy.reductions.solvers.defines import SOLVER_MAP_CONIC, SOLVER_MAP_QP
from pyomo.common.tee import capture_output

from gamelp.errors import BackendError
from gamelp.solution import (ERROR, INFEASIBLE, INFEASIBLE_OR_UNBOUNDED, OPTIMAL, TIME_LIMIT, UNBOUNDED,
                             Solution)

logger = logging.getLogger(__name__)

_STATUS = {
    cps.OPTIMAL: OPTIMAL,
    cps.OPTIMAL_INACCURATE: OPTIMAL,
    cps.INFEASIBLE: INFEASIBLE,
    cps.INFEASIBLE_INACCURATE: INFEASIBLE,
    cps.UNBOUNDED: UNBOUNDED,
    cps.UNBOUNDED_INACCURATE: UNBOUNDED,
    cps.INFEASIBLE_OR_UNBOUNDED: INFEASIBLE_OR_UNBOUNDED,
    cps.USER_LIMIT: TIME_LIMIT,
}
# The solver's own keyword for gamelp's generic options, where known.
_TIME_LIMIT_OPTION = {"CLARABEL": "time_limit", "SCS": "time_limit_secs", "HIGHS": "time_limit",
                      "GUROBI": "TimeLimit", "COPT": "TimeLimit", "CBC": "maximumSeconds"}
_MIP_GAP_OPTION = {"HIGHS": "mip_rel_gap", "GUROBI": "MIPGap", "COPT": "RelGap", "CBC": "allowableFractionGap"}
# Solvers whose cvxpy interface can re-solve to tell infeasible from unbounded when presolve could not.
_REOPTIMIZE = {"GUROBI", "CPLEX"}


# ----------------------------------------------------------------------------- building
def _blockwise(matrix, model, var_blocks: dict) -> cp.Expression:
    """``matrix @ x`` as a sum of per-block sparse products, skipping blocks with no coefficients."""
    matrix = matrix.tocsc()
    terms = [matrix[:, b.slice] @ var_blocks[name] for name, b in model.variables.items()
             if matrix[:, b.slice].nnz]
    if not terms:  # an all-zero row block still needs an expression of the right length
        first = next(iter(model.variables.values()))
        terms = [matrix[:, first.slice] @ var_blocks[first.name]]
    return cp.sum(terms) if len(terms) > 1 else terms[0]


def _variable(block) -> cp.Variable:
    bounded = np.isfinite(block.lb).any() or np.isfinite(block.ub).any()
    return cp.Variable(block.size, name=block.name, boolean=block.kind == "binary",
                       integer=block.kind == "integer", bounds=[block.lb, block.ub] if bounded else None)


def build(model) -> cp.Problem:
    """``model`` as a ``cvxpy.Problem`` with ``var_blocks``, ``constraint_blocks`` and ``cone_blocks``."""
    if not model.variables:
        raise BackendError(f"model {model.name!r} has no variables")
    form = model.matrix_form()
    var_blocks = {name: _variable(b) for name, b in model.variables.items()}
    relation = {"<=": lambda e, r: e <= r, ">=": lambda e, r: e >= r, "==": lambda e, r: e == r}
    constraint_blocks = {
        name: relation[b.sense](_blockwise(form.A[b.slice], model, var_blocks), b.rhs)
        for name, b in model.constraints.items()}
    cone_blocks = {}
    for cone in form.cones:
        u = _blockwise(cone.matrix, model, var_blocks) + cone.constant
        cone_blocks[cone.name] = SOC(u[0], u[1:]) if cone.matrix.shape[0] > 1 else u[0] >= 0
    objective = cp.Constant(form.objective_constant) + sum(
        form.c[b.slice] @ var_blocks[name] for name, b in model.variables.items() if form.c[b.slice].any())
    problem = cp.Problem(cp.Maximize(objective) if form.maximize else cp.Minimize(objective),
                         [*constraint_blocks.values(), *cone_blocks.values()])
    problem.var_blocks, problem.constraint_blocks, problem.cone_blocks = var_blocks, constraint_blocks, cone_blocks
    return problem


# ----------------------------------------------------------------------------- checking
def _solver_class(name: str):
    return SOLVER_MAP_CONIC.get(name) or SOLVER_MAP_QP.get(name)


def _takes(name: str, model) -> bool:
    solver = _solver_class(name)
    if solver is None:
        return False
    if model.is_mip:
        return solver.MIP_CAPABLE and (not model.has_cones or SOC in solver.MI_SUPPORTED_CONSTRAINTS)
    return not model.has_cones or SOC in getattr(solver, "SUPPORTED_CONSTRAINTS", ())


def _resolve(solver: str | None) -> str:
    """The installed cvxpy solver name matching ``solver`` (case-insensitive)."""
    installed = cp.installed_solvers()
    if not solver:
        raise BackendError("backend 'cvxpy' needs a solver name, e.g. cvxpy:CLARABEL; installed: "
                           + ", ".join(installed))
    for name in installed:
        if name.upper() == solver.upper():
            return name
    raise BackendError(f"cvxpy solver {solver!r} is not installed; installed: {', '.join(installed)}")


def check(model, solver: str | None = None) -> None:
    name = _resolve(solver)
    if _takes(name, model):
        return
    what = ("integer variables and second-order cones" if model.is_mip and model.has_cones
            else "integer variables" if model.is_mip else "second-order cones")
    others = [f"cvxpy:{n}" for n in cp.installed_solvers() if _takes(n, model)]
    if not model.has_cones:
        others.append("highs")
    if not model.is_mip:
        others.append("gurobi")
    raise BackendError(f"model {model.name!r} has {what}, which cvxpy:{name} cannot take; "
                       f"use {' or '.join(others) if others else 'a solver that can'}")


# ----------------------------------------------------------------------------- solving
def _solver_options(name: str, model, time_limit, mip_gap, options: dict) -> dict:
    opts = dict(options)
    for value, table, what in ((time_limit, _TIME_LIMIT_OPTION, "time limit"),
                               (mip_gap if model.is_mip else None, _MIP_GAP_OPTION, "MIP gap")):
        if value is None:
            continue
        if name not in table:
            raise BackendError(f"gamelp knows no {what} option for cvxpy:{name}; "
                               "pass the solver's own option as a keyword instead")
        opts[table[name]] = float(value)
    if name in _REOPTIMIZE:
        opts.setdefault("reoptimize", True)
    return opts


def _dual_sign(maximize: bool, sense: str) -> float:
    """Factor turning cvxpy's multiplier into d(objective)/d(rhs) (checked by the backend tests)."""
    return (1.0 if maximize else -1.0) * (-1.0 if sense == ">=" else 1.0)


def _mip_gap(problem: cp.Problem) -> float | None:
    """The relative gap from the solver's own result object, when it exposes one (HiGHS, Gurobi)."""
    extra = problem.solver_stats.extra_stats if problem.solver_stats else None
    for attr in ("mip_gap", "MIPGap"):
        try:
            return float(getattr(extra, attr))
        except Exception:  # absent, or not available now (gurobipy raises its own error type)
            continue
    return None


def _values(model, problem: cp.Problem) -> dict[str, np.ndarray]:
    """Block values; a block in no constraint and not in the objective (cvxpy leaves it unset)
    sits at its bound nearest 0."""
    return {name: np.clip(0.0, b.lb, b.ub) if problem.var_blocks[name].value is None
            else np.asarray(problem.var_blocks[name].value, dtype=float).reshape(-1)
            for name, b in model.variables.items()}


def solve(model, solver: str | None = None, /, *, verbose: bool = False, time_limit: float | None = None,
          mip_gap: float | None = None, start: dict | None = None, **options) -> Solution:
    """Solve with a cvxpy solver; ``start`` (block name -> values) is offered through cvxpy's warm start."""
    name = _resolve(solver)
    problem = build(model)
    if start:
        for block_name, block_values in start.items():
            problem.var_blocks[block_name].value = np.asarray(block_values, dtype=float)
        options = {**options, "warm_start": True}
    opts = _solver_options(name, model, time_limit, mip_gap, options)
    buffer = io.StringIO()
    began = time.perf_counter()
    # The solver always logs; the log is captured at the file-descriptor level (compiled solvers
    # print there) and also shown live when verbose.
    with capture_output([buffer, sys.stdout] if verbose else buffer, capture_fd=True):
        try:
            problem.solve(solver=name, verbose=True, **opts)
            failure = None
        except cp.error.SolverError as exc:
            failure = exc
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            if not options:
                raise
            raise BackendError(f"cvxpy:{name} rejected the options {sorted(options)}: {exc}") from None
    wall = time.perf_counter() - began
    log = buffer.getvalue()
    if failure is not None:
        return Solution(ERROR, None, mip_gap=None, wall_time=wall, log=f"{log}\n{failure}")
    if problem.status == cps.OPTIMAL_INACCURATE:
        logger.warning("cvxpy:%s solved model %r only inaccurately", name, model.name)
    status = _STATUS.get(problem.status, ERROR)
    has_primal = status in (OPTIMAL, TIME_LIMIT) and problem.value is not None and np.isfinite(problem.value)
    values = _values(model, problem) if has_primal else {}
    duals = {}
    if status == OPTIMAL and not model.is_mip:
        duals = {b: _dual_sign(model.sense == "max", model.constraints[b].sense)
                 * np.asarray(con.dual_value, dtype=float).reshape(-1)
                 for b, con in problem.constraint_blocks.items() if con.dual_value is not None}
    gap = (_mip_gap(problem) if has_primal else None) if model.is_mip else 0.0
    return Solution(status, float(problem.value) if has_primal else None, values, duals, gap, wall, log)
