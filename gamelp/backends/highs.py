"""HiGHS through highspy's matrix API: the embedded default backend for LPs, MILPs and convex QPs.

The whole model is passed in one ``HighsLp`` (column-wise sparse matrix), so
building costs one sparse conversion, not a Python loop over rows.  An LP
solved afresh goes to HiGHS's interior-point method with crossover when it is
large (:data:`LARGE_LP_NONZEROS` non-zeros: the Nash LP of ``leduc:8x4`` and
larger) or dense (a big payoff matrix), where it beats the dual simplex
(n = 1000 random matrix game: 6 s against 28 s; ``leduc:13x4``'s Nash LP:
``scripts/bench/bench_leduc13x4.py``), and still ends at a vertex with exact
duals and a basis; a smaller LP, and a persistent re-solve (which starts from
the last basis), goes to the dual simplex.  Pass ``solver=...`` to choose
(:func:`lp_method` is the rule).  A quadratic objective term (a diagonal
Hessian) goes to HiGHS's active-set QP solver.  HiGHS has no cones.  The solve runs with
HiGHS's interrupt callbacks on, so Ctrl-C stops it within a callback's time
and the result has status ``interrupted``.

With ``persistent=True`` the ``highspy.Highs`` instance stays with the model
(:meth:`HighsBackend.solve_persistent`): a re-solve after ``set_rhs``,
``set_bounds`` or ``set_objective`` changes only the rows, columns and costs
that differ (``changeRowsBounds``, ``changeColsBounds``, ``changeColsCost``)
and re-runs, so the dual (or primal) simplex starts from the previous basis;
a MIP keeps its integrality and restarts its search.  Options are reset and
applied afresh for every solve.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections import Counter
from typing import TYPE_CHECKING

import highspy
import numpy as np

from gamelp.backends.base import (
    Backend,
    Options,
    RawResult,
    Session,
    ctrl_c_sets,
    objective_agrees,
    refuse_solver_name,
)
from gamelp.backends.highs_interrupt import checking
from gamelp.backends.highs_threads import use_threads
from gamelp.backends.quiet import discard_stdout
from gamelp.backends.registry import HIGHS
from gamelp.backends.scaling import Scaling
from gamelp.errors import BackendError
from gamelp.form import Changes, MatrixForm
from gamelp.io import atomic_path
from gamelp.solution import Status

if TYPE_CHECKING:  # the model calls the backends, not the other way round
    from gamelp.model import Model

# An LP with at least this many non-zeros, at least this dense, defaults to the interior-point method.
DENSE_LP_NONZEROS = 200_000
DENSE_LP_DENSITY = 0.2
# An LP with at least this many non-zeros defaults to the interior-point method, however sparse (measured on the
# Nash LPs of Leduc variants by scripts/bench/bench_leduc13x4.py: the dual simplex wins below, the IPM above).
LARGE_LP_NONZEROS = 25_000

_STATUS = {
    highspy.HighsModelStatus.kOptimal: Status.OPTIMAL,
    highspy.HighsModelStatus.kInfeasible: Status.INFEASIBLE,
    highspy.HighsModelStatus.kUnbounded: Status.UNBOUNDED,
    highspy.HighsModelStatus.kUnboundedOrInfeasible: Status.INFEASIBLE_OR_UNBOUNDED,
    highspy.HighsModelStatus.kTimeLimit: Status.TIME_LIMIT,
    highspy.HighsModelStatus.kIterationLimit: Status.ITERATION_LIMIT,
    highspy.HighsModelStatus.kSolutionLimit: Status.ITERATION_LIMIT,
    highspy.HighsModelStatus.kInterrupt: Status.INTERRUPTED,
}
_FEASIBLE = 2  # HiGHS's kSolutionStatusFeasible
# The shared options and the HiGHS options they set.
PARAMETERS = {"time_limit": "time_limit", "mip_gap": "mip_rel_gap", "mip_abs_gap": "mip_abs_gap", "threads": "threads"}


def new_highs() -> highspy.Highs:
    """A silent ``highspy.Highs``: its start-up banner (highspy 1.16 and later) is dropped."""
    with discard_stdout():
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    return h


def _highs_lp(form: MatrixForm) -> highspy.HighsLp:
    A = form.A.tocsc()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.col_cost_ = form.c
    lp.offset_ = form.objective_constant
    lp.sense_ = highspy.ObjSense.kMaximize if form.maximize else highspy.ObjSense.kMinimize
    lp.col_lower_, lp.col_upper_ = form.col_lb, form.col_ub
    lp.row_lower_, lp.row_upper_ = form.row_bounds
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = A.shape[1], A.shape[0]
    if form.integer.any():
        lp.integrality_ = [
            highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous for i in form.integer
        ]
    return lp


def lp_method(form: MatrixForm, *, warm: bool = False) -> dict[str, str]:
    """The HiGHS options of the method an LP gets when the caller names none (a MIP: none).

    The interior-point method with crossover for an LP solved afresh that is large (at least
    :data:`LARGE_LP_NONZEROS` non-zeros) or dense (at least :data:`DENSE_LP_NONZEROS` non-zeros, a fraction
    :data:`DENSE_LP_DENSITY` of its cells); else HiGHS's own choice, the dual simplex.  ``warm``: a re-solve
    of a kept model, whose simplex starts from the last basis, stays on the simplex.
    """
    if form.is_mip or warm:
        return {}
    nonzeros = form.A.nnz
    cells = max(form.A.shape[0] * form.A.shape[1], 1)
    dense = nonzeros >= DENSE_LP_NONZEROS and nonzeros / cells >= DENSE_LP_DENSITY
    return {"solver": "ipm", "run_crossover": "on"} if dense or nonzeros >= LARGE_LP_NONZEROS else {}


def _run_interruptibly(h: highspy.Highs) -> None:
    """Run HiGHS; Ctrl-C during the run asks it, through its interrupt callbacks, to stop (``interrupted``).

    The run stays in the calling thread (a hand-off to a solver thread cost
    more than a warm re-solve of Leduc's LP on a loaded machine).  On the
    main thread a SIGINT handler sets the flag the callbacks check; the
    handler runs at the next callback, which executes Python code.
    """
    with ctrl_c_sets() as stop, checking(h, stop):
        h.run()
    if stop.is_set() and h.getModelStatus() != highspy.HighsModelStatus.kInterrupt:
        raise KeyboardInterrupt  # pressed after HiGHS's last callback: stop here all the same


def _objective_is_its_point(h: highspy.Highs, form: MatrixForm) -> bool:
    """Whether HiGHS's reported objective is that of the point it returns (true without a point)."""
    solution = h.getSolution()
    if not solution.value_valid:
        return True
    honest = float(form.c @ np.asarray(solution.col_value) + form.objective_constant)
    return objective_agrees(h.getInfo().objective_function_value, honest)


def _run(h: highspy.Highs, form: MatrixForm, options: Options, began: float, *, warm: bool = False) -> RawResult:
    """Solve the model ``h`` holds (``form``) with this solve's options only, and read the result.

    ``began``: when the caller started passing or changing the model (the wall time counts from there).
    ``warm``: ``h`` holds the basis of an earlier solve of the same model (:func:`lp_method`).

    The log is collected through HiGHS's logging callback (no log file: a
    file per solve cost more than a warm re-solve of Leduc's LP).
    """
    lines = []

    def collect(event) -> None:
        lines.append(event.message)

    h.resetOptions()  # a persistent model keeps no option of an earlier solve
    h.setOptionValue("output_flag", True)
    h.setOptionValue("log_to_console", bool(options.verbose))
    settings = options.named(PARAMETERS)
    if "threads" in settings:
        try:
            use_threads(settings["threads"])
        except ValueError as exc:
            raise BackendError(f"HiGHS rejected option {exc}") from None
    if "solver" not in settings:
        settings = {**lp_method(form, warm=warm), **settings}
    for key, value in settings.items():
        if h.setOptionValue(key, value) != highspy.HighsStatus.kOk:
            raise BackendError(f"HiGHS rejected option {key}={value!r}")
    if options.start is not None:
        initial = highspy.HighsSolution()
        initial.col_value = options.start
        initial.value_valid = True
        h.setSolution(initial)
    h.cbLogging.subscribe(collect)
    try:
        _run_interruptibly(h)
        if options.start is not None and form.is_mip and not _objective_is_its_point(h, form):
            # HiGHS 1.16, given some feasible starts, stops at once as "optimal" with an objective that is not
            # its point's (seen on the k-determinism MIP of Leduc): solve again from scratch.
            lines.append("gamelp: HiGHS's objective is not its point's after the MIP start; solving without it\n")
            h.clearSolver()
            _run_interruptibly(h)
    finally:
        h.cbLogging.unsubscribe(collect)
        h.setOptionValue("output_flag", False)
    wall = time.perf_counter() - began
    info, solution = h.getInfo(), h.getSolution()
    feasible = solution.value_valid and info.primal_solution_status == _FEASIBLE
    raw = RawResult(
        _STATUS.get(h.getModelStatus(), Status.ERROR),
        wall_time=wall,
        log="".join(lines),
        iterations=int(info.simplex_iteration_count),
    )
    if feasible:
        raw.x = np.asarray(solution.col_value, dtype=float)
        raw.objective = info.objective_function_value
    if form.is_mip:
        raw.bound, raw.nodes = info.mip_dual_bound, int(info.mip_node_count)
    elif solution.dual_valid:
        # HiGHS reports row duals and reduced costs as derivatives of the objective, for both senses.
        raw.row_duals = np.asarray(solution.row_dual, dtype=float)
        raw.reduced_costs = np.asarray(solution.col_dual, dtype=float)
    return raw


def _highs_model(form: MatrixForm) -> highspy.HighsLp | highspy.HighsModel:
    """What HiGHS is passed: the LP, or with a quadratic term the LP and its diagonal Hessian (a QP)."""
    lp = _highs_lp(form)
    if form.quadratic is None:
        return lp
    n = form.c.size
    hessian = highspy.HighsHessian()
    hessian.dim_ = n
    hessian.format_ = highspy.HessianFormat.kTriangular
    hessian.start_ = np.arange(n + 1, dtype=np.int32)  # one entry per column: HiGHS's 1/2 x^T Q x, Q = diag(q)
    hessian.index_ = np.arange(n, dtype=np.int32)
    hessian.value_ = np.asarray(form.quadratic, dtype=float)
    model = highspy.HighsModel()
    model.lp_, model.hessian_ = lp, hessian
    return model


def _passed(form: MatrixForm) -> highspy.Highs:
    """A new HiGHS instance holding ``form``, quiet until a solve sets its output."""
    h = new_highs()
    if h.passModel(_highs_model(form)) == highspy.HighsStatus.kError:
        raise BackendError(f"HiGHS refused model {form.name!r}")
    return h


def _apply(h: highspy.Highs, form: MatrixForm, changes: Changes) -> None:
    """Change in ``h`` the row bounds, column bounds, costs and objective that ``changes`` names."""
    lower, upper = form.row_bounds
    # highspy's stubs (1.16) omit changeRowsBounds, which its Highs class has (tested by tests/core/test_backends.py).
    for what, where, change, arrays in (
        ("rows", changes.rows, h.changeRowsBounds, (lower, upper)),  # type: ignore[attr-defined]
        ("bounds", changes.bounds, h.changeColsBounds, (form.col_lb, form.col_ub)),
        ("costs", changes.costs, h.changeColsCost, (form.c,)),
    ):
        if (
            where.size
            and change(where.size, where.astype(np.int32), *(array[where] for array in arrays))
            == highspy.HighsStatus.kError
        ):
            raise BackendError(f"HiGHS refused the changed {what} of model {form.name!r}")
    if changes.objective:
        h.changeObjectiveSense(highspy.ObjSense.kMaximize if form.maximize else highspy.ObjSense.kMinimize)
        h.changeObjectiveOffset(form.objective_constant)


class HighsBackend(Backend):
    """HiGHS through highspy: LPs, MILPs and QPs, duals, MIP starts, time limits, interruptible, persistent."""

    capabilities = HIGHS.capabilities("highs")

    def __init__(self, solver: str | None = None):
        refuse_solver_name("highs", solver)
        self.name = "highs"

    def available(self) -> bool:
        """Always True: highspy is a core dependency."""
        return True  # highspy is a core dependency (and this module imports it)

    def solve(self, form: MatrixForm, options: Options) -> RawResult:
        """Solve ``form`` in a new HiGHS instance."""
        began = time.perf_counter()
        return _run(_passed(form), form, options, began)

    def solve_persistent(self, model: Model, form: MatrixForm, factors: Scaling, options: Options) -> RawResult:
        """Solve ``form`` (``model`` scaled by ``factors``) in the HiGHS instance kept for ``model``.

        The first solve, and the first after a structural change or a new
        scaling, passes the whole model; later ones change only the entries
        that differ and re-run, so the simplex starts from the last basis.
        """
        began = time.perf_counter()
        session = model.sessions.get(self.name)
        with session.lock if session is not None else contextlib.nullcontext():
            changes = session.pending(model, form, factors) if session is not None else None
            try:
                if form.quadratic is not None or (session is not None and session.form.quadratic is not None):
                    changes = None  # a QP's Hessian is not among the changes applied in place: pass it afresh
                warm = session is not None and changes is not None  # the kept basis is the simplex's start
                if session is None or changes is None:
                    session = model.sessions[self.name] = Session(_passed(form), form, factors, model.revision)
                else:
                    _apply(session.solver, form, changes)
                    session.form, session.revision = form, model.revision
                raw = _run(session.solver, form, options, began, warm=warm)
            except BaseException:
                model.sessions.pop(self.name, None)  # the solver's state is unknown: rebuild next time
                raise
            if raw.status in (Status.INTERRUPTED, Status.ERROR):
                model.sessions.pop(self.name, None)
            return raw


def _file_names(blocks) -> list[str]:
    """Names the LP and MPS formats accept: ``block(label)`` from the model's labels, else ``block_i``.

    Characters outside letters, digits, ``_ .`` become ``_`` (``:`` becomes
    ``.``, the empty sequence ``∅`` becomes ``empty``); a name that this makes
    ambiguous, or longer than the LP format's 255 characters, falls back to ``block_i``.
    """
    names = []
    for block in blocks:
        for i in range(block.size):
            if block.labels is None:
                names.append(f"{block.name}_{i}")
                continue
            label = block.labels[i].replace("∅", "empty").replace(":", ".")
            names.append(f"{block.name}({_UNSAFE.sub('_', label)})")
    counts = Counter(names)
    fallback = [f"{block.name}_{i}" for block in blocks for i in range(block.size)]
    return [name if counts[name] == 1 and len(name) <= 255 else plain for name, plain in zip(names, fallback)]


_UNSAFE = re.compile(r"[^A-Za-z0-9_.]")


# The last line HiGHS writes in each format: a file without it is truncated (HiGHS says "ok" on a full disk).
_LAST_LINE = {".lp": b"\nend\n", ".mps": b"\nENDATA\n"}


def write(model, path: str) -> None:
    """Write ``model`` to ``path`` (``.lp`` or ``.mps``, chosen by the extension), atomically.

    Every HiGHS call's status is checked, and so is the file: :func:`gamelp.io.atomic_path` replaces ``path`` only by
    a file ending with the format's last line, else ``path`` is left as it was (:class:`~gamelp.errors.OutputError`).
    """
    if model.has_cones:
        raise BackendError(
            f"model {model.name!r} has second-order cones, which the LP and MPS formats written here cannot hold"
        )
    if not str(path).endswith((".lp", ".mps")):
        raise BackendError(f"cannot write {path!r}: the extension must be .lp or .mps")
    h = new_highs()
    lp = _highs_lp(model.matrix_form())
    lp.col_names_ = _file_names(model.variables.values())
    lp.row_names_ = _file_names(model.constraints.values())
    if h.passModel(lp) == highspy.HighsStatus.kError:
        raise BackendError(f"HiGHS refused model {model.name!r}, so cannot write {path!r}")
    with atomic_path(path, ends_with=_LAST_LINE[os.path.splitext(str(path))[1]]) as temporary:
        if h.writeModel(str(temporary)) != highspy.HighsStatus.kOk:
            raise BackendError(f"HiGHS could not write {path!r}")
