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

from gamelp.backends.base import Backend, Capabilities, Options, RawResult
from gamelp.errors import BackendError
from gamelp.model import MatrixForm
from gamelp.solution import Status

SIZE_LIMIT = 2000
CONE_SIZE_LIMIT = 200  # the same licence allows only this many variables once a model has cones
UNRESTRICTED_ENV_VAR = "GAMELP_GUROBI_UNRESTRICTED"
_TOO_LARGE = 10010  # GurobiError code "Model too large for size-limited license"

# Gurobi's status codes (GRB.OPTIMAL = 2, ...); SUBOPTIMAL (13) is an optimum that missed its tolerances.
STATUS = {2: Status.OPTIMAL, 3: Status.INFEASIBLE, 4: Status.INFEASIBLE_OR_UNBOUNDED, 5: Status.UNBOUNDED,
           7: Status.ITERATION_LIMIT, 8: Status.ITERATION_LIMIT, 9: Status.TIME_LIMIT, 10: Status.ITERATION_LIMIT,
           11: Status.INTERRUPTED, 13: Status.OPTIMAL_INACCURATE}


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


def model_size(form: MatrixForm) -> tuple[int, int]:
    """(variables, linear constraints) as Gurobi sees a model, cone auxiliaries included."""
    cone_rows = sum(k.matrix.shape[0] for k in form.cones)
    return form.c.size + cone_rows, form.A.shape[0] + cone_rows


def _size_refusal(form: MatrixForm, backend: str) -> str:
    n_vars, n_rows = model_size(form)
    if form.cones:
        allowed, alternative = f"{CONE_SIZE_LIMIT} variables a cone model may have", "cvxpy:CLARABEL"
    else:
        allowed, alternative = f"{SIZE_LIMIT} variables or constraints allowed", "highs"
    return (f"model {form.name!r} has {n_vars} variables and {n_rows} linear constraints "
            f"(cone auxiliaries included), over the {allowed} under the size-limited "
            f"pip Gurobi licence, so {backend} refuses it; use {alternative} instead "
            f"(or set {UNRESTRICTED_ENV_VAR}=1 with a full licence)")


def _over_limit(form: MatrixForm) -> bool:
    n_vars, n_rows = model_size(form)
    return max(n_vars, n_rows) > SIZE_LIMIT or (bool(form.cones) and n_vars > CONE_SIZE_LIMIT)


def check_size(form: MatrixForm, backend: str = "gurobi") -> None:
    """Refuse a model over the size-limited licence (only when that licence is in use)."""
    if _over_limit(form) and licence_is_restricted():
        raise BackendError(_size_refusal(form, backend))


def _build(gp, env, form: MatrixForm):
    """The gurobipy model of ``form``, its column ``MVar`` and its linear-row ``MConstr``."""
    GRB = gp.GRB
    g = gp.Model(form.name, env=env)
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


def _attribute(gp, obj, name: str):
    """An attribute Gurobi may not have at this status (None then)."""
    try:
        return getattr(obj, name)
    except (AttributeError, gp.GurobiError):
        return None


class GurobiBackend(Backend):
    """Gurobi through gurobipy: LPs, MILPs and second-order cones, duals, MIP starts, time limits."""

    capabilities = Capabilities(lp=True, mip=True, soc=True, duals=True, mip_start=True, time_limit=True)

    def __init__(self, solver: str | None = None):
        if solver:
            raise BackendError(f"backend 'gurobi' takes no solver name (got {solver!r}); use 'gurobi'")
        self.name = "gurobi"

    def available(self) -> bool:
        try:
            _gurobipy()
        except BackendError:
            return False
        return True

    def check(self, form: MatrixForm) -> None:
        check_size(form, "gurobi")

    def solve(self, form: MatrixForm, options: Options) -> RawResult:
        gp = _gurobipy()
        with tempfile.TemporaryDirectory() as tmp:
            log_path = os.path.join(tmp, "gurobi.log")
            with _quiet_env(gp, log_path, options.verbose) as env:
                g, x, rows = _build(gp, env, form)
                params = {"QCPDual": 1} if form.cones and not form.is_mip else {}
                params.update(options.extra)
                for key, value in (("TimeLimit", options.time_limit), ("MIPGap", options.mip_gap),
                                   ("Threads", options.threads)):
                    if value is not None:
                        params[key] = value
                _set_params(gp, g, params)
                if options.start is not None:
                    x.Start = options.start
                began = time.perf_counter()
                try:
                    g.optimize()
                    if g.Status == gp.GRB.INF_OR_UNBD:
                        # Presolve's dual reductions cannot tell the two apart: re-solve without them.
                        g.setParam("DualReductions", 0)
                        g.optimize()
                except gp.GurobiError as exc:
                    if exc.errno == _TOO_LARGE:
                        raise BackendError(_size_refusal(form, "gurobi")) from None
                    raise BackendError(f"Gurobi failed on model {form.name!r}: {exc}") from None
                raw = RawResult(STATUS.get(g.Status, Status.ERROR), wall_time=time.perf_counter() - began)
                if g.SolCount > 0:
                    raw.x, raw.objective = np.asarray(x.X, dtype=float), g.ObjVal
                if form.is_mip:
                    raw.bound = _attribute(gp, g, "ObjBound")
                elif raw.status == Status.OPTIMAL:
                    # Gurobi's Pi and RC are d(objective)/d(rhs) and c - A^T Pi for both senses.
                    raw.row_duals = np.asarray(rows.Pi, dtype=float) if rows is not None else np.zeros(0)
                    raw.reduced_costs = np.asarray(x.RC, dtype=float)
                g.dispose()
            with open(log_path, encoding="utf-8", errors="replace") as fh:
                raw.log = fh.read()
        return raw
