"""Gurobi through gurobipy's matrix API: LPs, MILPs and second-order-cone models.

The model goes in as one ``MVar`` of columns and one ``addMConstr`` call with
the sparse ``A`` and per-row senses.  A cone block ``u = M x + c,
u_0 >= ||u_1:||`` becomes an auxiliary free ``MVar`` ``w`` tied by equality
rows ``w - M x = c``, the bound ``w_0 >= 0`` and the quadratic constraint
``sum_i w_i^2 <= w_0^2``, which Gurobi recognises as a second-order cone.
A quadratic objective term is the diagonal ``Q`` of ``setMObjective``.

The pip wheel's size-limited licence is checked by
:func:`gamelp.backends.gurobi_licence.check_size` (shared with the
``pyomo:gurobi_*`` backends) before any model is built.

Ctrl-C: Gurobi catches SIGINT itself during ``optimize`` and stops with status ``INTERRUPTED``, which gamelp
reports as ``interrupted`` with the incumbent and bound (:class:`~gamelp.errors.SolveInterrupted`, measured
under 0.05 s from the signal on Leduc's k-determinism MIP); its time limit gives ``time_limit`` the same way.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np
import scipy.sparse as sp

from gamelp.backends.base import Backend, Options, RawResult, solve_failed
from gamelp.backends.gurobi_licence import (  # noqa: F401 - re-exported: the tests and users reach them here
    CONE_SIZE_LIMIT,
    SIZE_LIMIT,
    STATUS,
    TOO_LARGE,
    UNRESTRICTED_ENV_VAR,
    check_size,
    gurobipy,
    licence_is_restricted,
    model_size,
    quiet_env,
    size_refusal,
)
from gamelp.backends.registry import GUROBI
from gamelp.deps import installed
from gamelp.errors import BackendError
from gamelp.form import MatrixForm
from gamelp.solution import Status

# The shared options and the Gurobi parameters they set.
PARAMETERS = {"time_limit": "TimeLimit", "mip_gap": "MIPGap", "mip_abs_gap": "MIPGapAbs", "threads": "Threads"}


def _build(gp, env, form: MatrixForm):
    """The gurobipy model of ``form``, its column ``MVar`` and its linear-row ``MConstr``."""
    GRB = gp.GRB
    g = gp.Model(form.name, env=env)
    vtype = np.where(form.binary, GRB.BINARY, np.where(form.integer, GRB.INTEGER, GRB.CONTINUOUS))
    x = g.addMVar(form.c.size, lb=form.col_lb, ub=form.col_ub, vtype=vtype, name="x")
    Q = None if form.quadratic is None else sp.diags(0.5 * form.quadratic, format="csr")  # x^T Q x = 1/2 sum q x^2
    g.setMObjective(Q, form.c, form.objective_constant, sense=GRB.MAXIMIZE if form.maximize else GRB.MINIMIZE)
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

    capabilities = GUROBI.capabilities("gurobi")

    def __init__(self, solver: str | None = None):
        if solver:
            raise BackendError(f"backend 'gurobi' takes no solver name (got {solver!r}); use 'gurobi'")
        self.name = "gurobi"

    def available(self) -> bool:
        """Whether ``gurobipy`` is installed (a licence is not checked)."""
        return installed("gurobipy")

    def check(self, form: MatrixForm) -> None:
        """Refuse a model over the size-limited licence's limits (:func:`check_size`)."""
        check_size(form, "gurobi")

    def solve(self, form: MatrixForm, options: Options) -> RawResult:
        """Solve ``form`` with gurobipy in a fresh environment; ``options.extra`` are passed on as Gurobi parameters."""
        gp = gurobipy()
        with tempfile.TemporaryDirectory() as tmp:
            log_path = os.path.join(tmp, "gurobi.log")
            with quiet_env(gp, log_path, options.verbose) as env:
                g, x, rows = _build(gp, env, form)
                params: dict[str, object] = {"QCPDual": 1} if form.cones and not form.is_mip else {}
                params.update(options.named(PARAMETERS))
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
                    if exc.errno == TOO_LARGE:
                        raise BackendError(size_refusal(form, "gurobi")) from None
                    raise solve_failed(self.name, form.name, exc) from None
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
