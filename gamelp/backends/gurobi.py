"""Gurobi through gurobipy's matrix API: LPs, MILPs and second-order-cone models.

The model goes in as one ``MVar`` of columns and one ``addMConstr`` call with
the sparse ``A`` and per-row senses.  A cone block ``u = M x + c,
u_0 >= ||u_1:||`` becomes an auxiliary free ``MVar`` ``w`` tied by equality
rows ``w - M x = c``, the bound ``w_0 >= 0`` and the quadratic constraint
``sum_i w_i^2 <= w_0^2``, which Gurobi recognises as a second-order cone.

The pip wheel ships a size-limited licence (2000 variables, 2000 linear
constraints).  :func:`check` refuses larger models up front, counting the cone
auxiliaries, but only when the licence is the restricted one: that is probed
once per process by optimising an empty model just over the limit.  Setting
the environment variable ``GAMELP_GUROBI_UNRESTRICTED=1`` skips the probe
and the check (for a full licence configured in a way the probe misses).
"""

from __future__ import annotations

import functools
import os
import tempfile
import time

import numpy as np

from gamelp.errors import BackendError
from gamelp.solution import (ERROR, INFEASIBLE, INFEASIBLE_OR_UNBOUNDED, OPTIMAL, TIME_LIMIT, UNBOUNDED,
                             Solution)

SIZE_LIMIT = 2000
CONE_SIZE_LIMIT = 200  # the same licence allows only this many variables once a model has cones
UNRESTRICTED_ENV_VAR = "GAMELP_GUROBI_UNRESTRICTED"
_TOO_LARGE = 10010  # GurobiError code "Model too large for size-limited license"

_STATUS = {2: OPTIMAL, 3: INFEASIBLE, 4: INFEASIBLE_OR_UNBOUNDED, 5: UNBOUNDED, 9: TIME_LIMIT}


def _gurobipy():
    try:
        import gurobipy
    except ImportError as exc:  # pragma: no cover - gurobipy is a declared dependency
        raise BackendError(f"backend 'gurobi' needs gurobipy ({exc}); use highs instead") from None
    return gurobipy


def _quiet_env(gp, log_path: str | None = None, verbose: bool = False):
    """A started Gurobi environment whose banner goes to ``log_path`` (or nowhere), not stdout."""
    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 1 if (verbose or log_path) else 0)
    env.setParam("LogToConsole", 1 if verbose else 0)
    if log_path:
        env.setParam("LogFile", log_path)
    env.start()
    return env


@functools.cache
def licence_is_restricted() -> bool:
    """Whether this process's Gurobi licence is the size-limited one (probed once, cached)."""
    if os.environ.get(UNRESTRICTED_ENV_VAR, "").strip() not in ("", "0"):
        return False
    gp = _gurobipy()
    try:
        with _quiet_env(gp) as env, gp.Model(env=env) as probe:
            probe.addMVar(SIZE_LIMIT + 1)
            probe.optimize()
    except gp.GurobiError as exc:
        if exc.errno == _TOO_LARGE:
            return True
        raise BackendError(f"Gurobi is not usable here ({exc}); use highs or cvxpy:CLARABEL") from None
    return False


def model_size(model) -> tuple[int, int]:
    """(variables, linear constraints) as Gurobi sees ``model``, cone auxiliaries included."""
    cone_rows = sum(k.matrix.shape[0] for k in model.cones.values())
    return model.num_variables + cone_rows, model.num_constraints + cone_rows


def _size_refusal(model, backend: str) -> str:
    n_vars, n_rows = model_size(model)
    if model.has_cones:
        allowed, alternative = f"{CONE_SIZE_LIMIT} variables a cone model may have", "cvxpy:CLARABEL"
    else:
        allowed, alternative = f"{SIZE_LIMIT} variables or constraints allowed", "highs"
    return (f"model {model.name!r} has {n_vars} variables and {n_rows} linear constraints "
            f"(cone auxiliaries included), over the {allowed} under the size-limited "
            f"pip Gurobi licence, so {backend} refuses it; use {alternative} instead "
            f"(or set {UNRESTRICTED_ENV_VAR}=1 with a full licence)")


def _over_limit(model) -> bool:
    n_vars, n_rows = model_size(model)
    return max(n_vars, n_rows) > SIZE_LIMIT or (model.has_cones and n_vars > CONE_SIZE_LIMIT)


def check_size(model, backend: str = "gurobi") -> None:
    """Refuse ``model`` if it exceeds the size-limited licence (only when that licence is in use)."""
    if _over_limit(model) and licence_is_restricted():
        raise BackendError(_size_refusal(model, backend))


def check(model, solver: str | None = None) -> None:
    if solver:
        raise BackendError(f"backend 'gurobi' takes no solver name (got {solver!r}); use 'gurobi'")
    _gurobipy()
    check_size(model, "gurobi")


def _build(gp, env, model):
    """The gurobipy model of ``model``, its column ``MVar`` and its linear-row ``MConstr``."""
    form = model.matrix_form()
    GRB = gp.GRB
    g = gp.Model(model.name, env=env)
    vtype = np.where(form.binary, GRB.BINARY, np.where(form.integer, GRB.INTEGER, GRB.CONTINUOUS))
    x = g.addMVar(form.c.size, lb=form.col_lb, ub=form.col_ub, vtype=vtype, name="x")
    g.setMObjective(None, form.c, form.objective_constant, sense=GRB.MAXIMIZE if form.maximize else GRB.MINIMIZE)
    rows = g.addMConstr(form.A, x, form.row_sense, form.rhs, name="row") if form.A.shape[0] else None
    for cone in form.cones:
        k = cone.matrix.shape[0]
        lb = np.full(k, -np.inf)
        lb[0] = 0.0
        w = g.addMVar(k, lb=lb, name=f"{cone.name}_u")
        g.addConstr(w - cone.matrix @ x == cone.constant, name=f"{cone.name}_def")
        if k > 1:
            g.addConstr(w[1:] @ w[1:] <= w[0] * w[0], name=cone.name)
    return g, x, rows


def _set_params(gp, g, params: dict) -> None:
    for key, value in params.items():
        try:
            g.setParam(key, value)
        except gp.GurobiError as exc:
            raise BackendError(f"Gurobi rejected parameter {key}={value!r}: {exc}") from None


def solve(model, solver: str | None = None, /, *, verbose: bool = False, time_limit: float | None = None,
          mip_gap: float | None = None, start: dict | None = None, **options) -> Solution:
    """Solve with Gurobi; ``start`` (block name -> values) becomes the MIP start."""
    gp = _gurobipy()
    with tempfile.TemporaryDirectory() as tmp:
        log_path = os.path.join(tmp, "gurobi.log")
        with _quiet_env(gp, log_path, verbose) as env:
            g, x, rows = _build(gp, env, model)
            params = {"QCPDual": 1} if model.has_cones and not model.is_mip else {}
            params.update(options)
            if time_limit is not None:
                params["TimeLimit"] = float(time_limit)
            if mip_gap is not None:
                params["MIPGap"] = float(mip_gap)
            _set_params(gp, g, params)
            if start:
                x.Start = model.full_vector(start)
            began = time.perf_counter()
            try:
                g.optimize()
                if g.Status == gp.GRB.INF_OR_UNBD:
                    # Presolve's dual reductions cannot tell the two apart: re-solve without them.
                    g.setParam("DualReductions", 0)
                    g.optimize()
            except gp.GurobiError as exc:
                if exc.errno == _TOO_LARGE:
                    raise BackendError(_size_refusal(model, "gurobi")) from None
                raise BackendError(f"Gurobi failed on model {model.name!r}: {exc}") from None
            wall = time.perf_counter() - began
            status = _STATUS.get(g.Status, ERROR)
            has_primal = g.SolCount > 0
            values = model.split_values(x.X) if has_primal else {}
            objective = g.ObjVal if has_primal else None
            duals = {}
            if status == OPTIMAL and not model.is_mip and rows is not None:
                # Gurobi's Pi is d(objective)/d(rhs) for both senses (checked by the backend tests).
                duals = model.split_duals(rows.Pi)
            gap = (g.MIPGap if has_primal else None) if model.is_mip else 0.0
            g.dispose()
        with open(log_path, encoding="utf-8", errors="replace") as fh:
            log = fh.read()
    return Solution(status, objective, values, duals, gap, wall, log)
