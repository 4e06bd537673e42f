"""SCIP through PySCIPOpt: the ``scip`` backend for LPs and MILPs (``pip install "gamelp[scip]"``).

This module declares its family (:data:`SCIP`, the descriptor the registry reads) and its backend, and
imports PySCIPOpt only when a model is solved, so listing the backends imports no solver.

The model goes in column by column (bounds, type, cost) and row by row (one linear constraint per row of
``A``, in order), so SCIP's columns are the form's.  An LP is solved with presolving, propagation and
primal heuristics off, so that SCIP's root LP is the form itself and its duals are the rows' (read with
``getDualSolVal``, as d(objective)/d(rhs)); the reduced costs are ``c - A^T y``.  A MIP is solved with
SCIP's defaults.  Options: ``time_limit`` (``limits/time``), ``mip_gap`` (``limits/gap``), ``mip_abs_gap``
(``limits/absgap``), ``threads`` (``lp/threads``: SCIP's branch and bound runs in one thread; the number
is handed to its LP solver), ``verbose`` (SCIP's log, which it writes to standard output, goes to stderr;
the log is kept either way) and any SCIP parameter by its name (``**{"limits/nodes": 100}``).  A MIP
start is offered as a solution SCIP checks when it starts.  Ctrl-C on the main thread stops the solve at
SCIP's next LP, node or presolving round (an event handler checks the flag gamelp's handler sets, as the
HiGHS backend's callbacks do): SCIP reports ``userinterrupt``, which gamelp reports as ``interrupted`` with
the incumbent and bound.
"""

from __future__ import annotations

import functools
import os
import tempfile
import time
from typing import Any

import numpy as np

from gamelp.backends.base import Backend, Options, RawResult, ctrl_c_sets, refuse_solver_name
from gamelp.backends.registry import BackendFamily, Capabilities, Listed
from gamelp.deps import require
from gamelp.errors import BackendError
from gamelp.form import MatrixForm
from gamelp.solution import Status

SCIP = BackendFamily(
    name="scip",
    backend="gamelp.backends.scip:ScipBackend",
    library="pyscipopt",
    distribution="PySCIPOpt",
    extra="scip",
    usage="scip",
    summary="SCIP through PySCIPOpt",
    solvers={"scip": Listed(Capabilities(mip=True, mip_start=True), 150)},
)

_STATUS = {
    "optimal": Status.OPTIMAL,
    "gaplimit": Status.OPTIMAL,  # within the gap asked for, as HiGHS and Gurobi report it
    "infeasible": Status.INFEASIBLE,
    "unbounded": Status.UNBOUNDED,
    "inforunbd": Status.INFEASIBLE_OR_UNBOUNDED,
    "timelimit": Status.TIME_LIMIT,
    "userinterrupt": Status.INTERRUPTED,
    "nodelimit": Status.ITERATION_LIMIT,
    "totalnodelimit": Status.ITERATION_LIMIT,
    "stallnodelimit": Status.ITERATION_LIMIT,
    "sollimit": Status.ITERATION_LIMIT,
    "bestsollimit": Status.ITERATION_LIMIT,
    "restartlimit": Status.ITERATION_LIMIT,
}
# The shared options and the SCIP parameters they set.
PARAMETERS = {
    "time_limit": "limits/time",
    "mip_gap": "limits/gap",
    "mip_abs_gap": "limits/absgap",
    "threads": "lp/threads",
}


def _bound(value: float) -> float | None:
    """A finite bound as a float, SCIP's infinity (1e20) as None."""
    return float(value) if np.isfinite(value) and abs(value) < 1e20 else None


def _build(scip, form: MatrixForm):
    """The PySCIPOpt model of ``form``, its variables (one per column, in order) and its rows' constraints."""
    model = scip.Model(form.name)
    kinds = np.where(form.binary, "B", np.where(form.integer, "I", "C"))
    lower, upper = form.col_lb, form.col_ub
    columns = [
        model.addVar(f"x{i}", vtype=kinds[i], obj=float(form.c[i]), lb=_bound(lower[i]), ub=_bound(upper[i]))
        for i in range(form.c.size)
    ]
    A = form.A.tocsr()
    rows = []
    for r in range(A.shape[0]):
        cells = slice(A.indptr[r], A.indptr[r + 1])
        row = scip.quicksum(float(a) * columns[j] for a, j in zip(A.data[cells], A.indices[cells]))
        rhs, sense = float(form.rhs[r]), form.row_sense[r]
        rows.append(model.addCons(row <= rhs if sense == "<" else row >= rhs if sense == ">" else row == rhs))
    if form.objective_constant:
        model.addObjoffset(float(form.objective_constant))
    if form.maximize:
        model.setMaximize()
    return model, columns, rows


def _set_parameters(scip, model, form: MatrixForm, options: Options) -> None:
    """This solve's parameters: an LP's root LP kept as the form (for its duals), the shared options, ``extra``."""
    if not form.is_mip:
        model.setPresolve(scip.SCIP_PARAMSETTING.OFF)
        model.setHeuristics(scip.SCIP_PARAMSETTING.OFF)
        model.disablePropagation()
    model.setBoolParam("misc/catchctrlc", False)  # Ctrl-C is gamelp's to catch (:func:`_run_interruptibly`)
    for key, value in options.named(PARAMETERS).items():
        try:
            model.setParam(key, value)
        except (KeyError, ValueError, TypeError, LookupError) as exc:
            raise BackendError(f"SCIP rejected parameter {key}={value!r}: {exc}") from None


def _offer_start(model, columns: list, start: np.ndarray) -> None:
    """Offer ``start`` as a solution; SCIP checks it when the solve starts and keeps it if it is feasible."""
    solution = model.createSol()
    for column, value in zip(columns, start):
        model.setSolVal(solution, column, float(value))
    model.addSol(solution)


@functools.cache
def _interrupter(scip: Any) -> type:
    """The event handler class that interrupts a solve once its ``stop`` event is set (checked at every event)."""

    class Interrupter(scip.Eventhdlr):
        events = scip.SCIP_EVENTTYPE.LPSOLVED | scip.SCIP_EVENTTYPE.NODESOLVED | scip.SCIP_EVENTTYPE.PRESOLVEROUND

        def __init__(self, stop):
            self.stop = stop

        def eventinit(self):
            self.model.catchEvent(self.events, self)

        def eventexit(self):
            self.model.dropEvent(self.events, self)

        def eventexec(self, event):
            if self.stop.is_set():
                self.model.interruptSolve()
            return {}

    return Interrupter


def _run_interruptibly(scip, model) -> None:
    """Run SCIP; Ctrl-C during the run asks it, at its next LP, node or presolving round, to stop (``interrupted``).

    SCIP's own Ctrl-C handler (``misc/catchctrlc``) does not reach this build's solve, so gamelp's handler
    sets a flag that an event handler, run by SCIP after every LP, node and presolving round, checks.
    """
    with ctrl_c_sets() as stop:
        model.includeEventhdlr(_interrupter(scip)(stop), "gamelp_interrupt", "stops the solve on Ctrl-C")
        model.optimize()
    if stop.is_set() and model.getStatus() != "userinterrupt":
        raise KeyboardInterrupt  # pressed after SCIP's last event: stop here all the same


def _read(model, form: MatrixForm, columns: list, rows: list, wall: float) -> RawResult:
    """The status, incumbent, bound and (an LP's) duals of a finished solve."""
    raw = RawResult(
        _STATUS.get(model.getStatus(), Status.ERROR), wall_time=wall, iterations=int(model.getNLPIterations())
    )
    if model.getNSols() > 0:
        best = model.getBestSol()
        raw.x = np.array([model.getSolVal(best, column) for column in columns], dtype=float)
        raw.objective = float(model.getSolObjVal(best))
    if form.is_mip:
        raw.bound, raw.nodes = _bound(model.getDualbound()), int(model.getNNodes())
    elif raw.status == Status.OPTIMAL:
        raw.row_duals = np.array([model.getDualSolVal(row) for row in rows], dtype=float)
        raw.reduced_costs = form.c - form.A.T @ raw.row_duals
    return raw


class ScipBackend(Backend):
    """SCIP through PySCIPOpt: LPs and MILPs, LP duals, MIP starts, time limits and gaps, interruptible."""

    capabilities = SCIP.capabilities("scip")

    def __init__(self, solver: str | None = None):
        refuse_solver_name("scip", solver)
        self.name = "scip"

    def available(self) -> bool:
        """Always True once the family's library (PySCIPOpt, which ships SCIP) is installed."""
        return True

    def solve(self, form: MatrixForm, options: Options) -> RawResult:
        """Solve ``form`` in a new SCIP model; ``options.extra`` are SCIP parameters by name."""
        require(SCIP.library, "backend scip")
        import pyscipopt

        began = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            log_path = os.path.join(tmp, "scip.log")
            model, columns, rows = _build(pyscipopt, form)
            model.setLogfile(log_path)
            model.hideOutput(quiet=not options.verbose)
            _set_parameters(pyscipopt, model, form, options)
            if options.start is not None:
                _offer_start(model, columns, options.start)
            _run_interruptibly(pyscipopt, model)
            raw = _read(model, form, columns, rows, time.perf_counter() - began)
            model.setLogfile(None)
            with open(log_path, encoding="utf-8", errors="replace") as fh:
                raw.log = fh.read()
        return raw
