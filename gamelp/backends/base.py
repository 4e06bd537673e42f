"""The backend protocol and the one finish step every solve goes through.

A backend (one class per solver family, one instance per solver) declares
its :class:`Capabilities`, says whether it is ``available()`` here, and
turns a :class:`~gamelp.model.MatrixForm` and :class:`Options` into a
:class:`RawResult`: the solver's status and vectors over the flat columns
and rows, nothing more.  :func:`finish` then decides, the same way for
every backend, what the result vouches for:

* values only for a point that satisfies the constraints: an optimum, or a
  MIP's incumbent when a limit or an interrupt stopped it.  A point that
  misses the constraints by more than ``FEASIBILITY_TOLERANCE`` (relative
  to ``1 + |rhs|``, measured in the scaled model) is not presented: an
  "optimum" off by up to ``INACCURATE_LIMIT`` becomes ``optimal_inaccurate``
  with its values, one off by more keeps no values at all;
* duals and reduced costs only for a continuous model at an optimum;
* a solver's ``optimal`` without a point or a finite objective is an ``error``, its ``reason`` saying
  what was missing;
* ``objective_bound``: the solver's proven bound (the objective itself at
  an LP optimum), and the relative gap ``|objective - bound| / max(|objective|, 1e-10)``.

A backend with the ``persistent`` capability also keeps a :class:`Session`
per model (``solve(..., persistent=True)``): its solver object holds the
scaled form of the last solve, and :meth:`Session.pending` says which flat
rows and columns to change in it, from the model's change log
(:meth:`gamelp.model.Model.changes_since`), or that it must be rebuilt.
"""

from __future__ import annotations

import contextlib
import numbers
import signal
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from gamelp.backends.registry import Capabilities, solver_version
from gamelp.backends.scaling import Scaling, unscaled_violation
from gamelp.display import Raw, Summarised
from gamelp.entries import as_vector, refuse_non_finite
from gamelp.errors import BackendError, OptionError, did_you_mean, shown
from gamelp.form import Changes, MatrixForm
from gamelp.solution import Status

if TYPE_CHECKING:  # the model calls the backends, not the other way round
    from collections.abc import Callable

    from gamelp.model import Model

FEASIBILITY_TOLERANCE = 1e-6
INACCURATE_LIMIT = 1e-3
INTEGRALITY_TOLERANCE = 1e-5
OBJECTIVE_TOLERANCE = 1e-6  # a reported objective against its point's c x + constant
# The shared numeric options: (name, least value, whether it is a whole number).
NUMERIC_OPTIONS = (
    ("time_limit", 0, False),
    ("mip_gap", 0, False),
    ("mip_abs_gap", 0, False),
    ("threads", 1, True),
)


MESSAGE_LIMIT = 300  # characters of a solver library's error message kept in the BackendError that reports it


def solve_failed(backend: str, model_name: str, exc: Exception) -> BackendError:
    """The one wording of a solver library's failure: ``backend B failed on model 'M': Type: message``.

    The message is put on one line, however the library wrapped it, and cut at :data:`MESSAGE_LIMIT` characters.
    """
    text = " ".join(str(exc).split()) or "no message"
    if len(text) > MESSAGE_LIMIT:
        text = text[: MESSAGE_LIMIT - 3] + "..."
    return BackendError(f"backend {backend} failed on model {model_name!r}: {type(exc).__name__}: {text}")


@dataclass(repr=False)
class Options(Summarised):
    """The option vocabulary shared by every backend; ``extra`` holds the solver's own options.

    Checked when made, the same for every backend: ``time_limit``, ``mip_gap`` and ``mip_abs_gap`` are finite
    numbers >= 0, ``threads`` a whole number >= 1, ``start`` finite; anything else is an
    :class:`~gamelp.errors.OptionError`, one line naming the option (a NaN is never passed on to be ignored).
    """

    time_limit: float | None = None
    mip_gap: float | None = None
    mip_abs_gap: float | None = None  # in the objective's units of the form the backend is given
    threads: int | None = None
    verbose: bool = False
    start: np.ndarray | None = None  # a feasible point over all columns, offered as a MIP start
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, least, whole in NUMERIC_OPTIONS:
            value = getattr(self, name)
            if value is None:
                continue
            kind = "a whole number" if whole else "a finite number"
            number = isinstance(value, numbers.Real) and not isinstance(value, bool)
            if not number or not np.isfinite(value) or (whole and not float(value).is_integer()) or value < least:
                raise OptionError(f"option {name} must be {kind} >= {least}, got {shown(value)}")
        if self.start is not None:
            self.start = np.asarray(self.start, dtype=float)
            refuse_non_finite(self.start, lambda i: (i,), "option start", error=OptionError)

    @staticmethod
    def start_vector(form: MatrixForm, start) -> np.ndarray:
        """A MIP start given by block (name -> values) as one vector over ``form``'s columns (others at 0).

        Each name must be a variable block of the form and its values that block's size of finite real numbers.
        """
        if not isinstance(start, Mapping):
            raise OptionError(f"option start must map variable block names to values, got {shown(start)}")
        x = np.zeros(form.c.size)
        for name, values in start.items():
            if name not in form.variable_slices:
                hint = (
                    did_you_mean(str(name), form.variable_slices) or f"; the blocks: {', '.join(form.variable_slices)}"
                )
                raise OptionError(f"option start: model {form.name!r} has no variable block {shown(name)}{hint}")
            where = form.variable_slices[name]
            x[where] = as_vector(values, where.stop - where.start, f"option start[{name!r}]", error=OptionError)
        return x

    def _summary(self) -> dict:
        return {
            "time_limit": self.time_limit,
            "mip_gap": self.mip_gap,
            "mip_abs_gap": self.mip_abs_gap,
            "threads": self.threads,
            "verbose": self.verbose or None,
            "start": None if self.start is None else Raw(f"{self.start.size} values"),
            "extra": Raw(", ".join(self.extra)) if self.extra else None,
        }

    def named(self, names: dict[str, str]) -> dict:
        """The solver's own parameters for this solve: ``extra``, then each shared option given, under its name.

        ``names`` maps the shared options a solver takes to its parameters (``{"time_limit": "limits/time"}``).
        """
        settings = dict(self.extra)
        settings.update({names[key]: getattr(self, key) for key in names if getattr(self, key) is not None})
        return settings


@dataclass(repr=False)
class RawResult(Summarised):
    """What a solver returned, over the flat columns and rows of the form it was given."""

    status: Status
    x: np.ndarray | None = None
    objective: float | None = None
    bound: float | None = None
    row_duals: np.ndarray | None = None  # d(objective)/d(rhs)
    reduced_costs: np.ndarray | None = None  # c - A^T y
    wall_time: float = 0.0
    log: str = ""
    iterations: int | None = None  # simplex iterations, where the solver counts them
    nodes: int | None = None  # branch-and-bound nodes of a MIP, where the solver counts them

    def _summary(self) -> dict:
        return {
            "status": str(self.status),
            "objective": self.objective,
            "bound": self.bound,
            "columns": None if self.x is None else self.x.size,
            "rows": None if self.row_duals is None else Raw(f"{self.row_duals.size} with duals"),
            "wall_time": Raw(f"{self.wall_time:.3g}"),
            "iterations": self.iterations,
            "nodes": self.nodes,
        }


SolverT = TypeVar("SolverT")


@dataclass(repr=False)
class Session(Summarised, Generic[SolverT]):
    """One model's solver object (``SolverT``: the backend's own) kept by a persistent backend between solves.

    ``form`` and ``factors`` are the scaled form the solver holds and the
    scaling that made it; ``revision`` is the model revision it reflects.
    """

    solver: SolverT
    form: MatrixForm
    factors: Scaling
    revision: int
    lock: threading.Lock = field(default_factory=threading.Lock)  # one solve at a time per model

    def _summary(self) -> dict:
        return {"solver": Raw(type(self.solver).__name__), "form": Raw(repr(self.form)), "revision": self.revision}

    def pending(self, model: Model, scaled: MatrixForm, factors: Scaling) -> Changes | None:
        """The entries of ``scaled`` that differ from the solver's copy, or None when it must be rebuilt.

        A rebuild is due after a structural change of the model, or when the
        scaling a fresh solve would use differs from the session's (so the
        solver always holds exactly the model a fresh solve would pass).
        """
        changes = model.changes_since(self.revision)
        if changes is None or not (
            np.array_equal(factors.row, self.factors.row)
            and np.array_equal(factors.column, self.factors.column)
            and factors.objective == self.factors.objective
        ):
            return None
        old = self.form
        rows = changes.rows[scaled.rhs[changes.rows] != old.rhs[changes.rows]]
        bounds = changes.bounds[
            (scaled.col_lb[changes.bounds] != old.col_lb[changes.bounds])
            | (scaled.col_ub[changes.bounds] != old.col_ub[changes.bounds])
        ]
        costs = changes.costs[scaled.c[changes.costs] != old.c[changes.costs]]
        objective = changes.objective and (
            scaled.maximize != old.maximize or scaled.objective_constant != old.objective_constant
        )
        return Changes(rows, bounds, costs, objective)


class Backend:
    """One solver behind the protocol: ``name``, ``capabilities``, ``available()``, ``check()``, ``solve()``."""

    name: str = ""
    capabilities: Capabilities = Capabilities()
    package: str | None = None  # a Python package the solver needs beyond the family's library (clarabel)

    def available(self) -> bool:
        """Whether this solver is installed here, asked without importing its library (``find_spec``)."""
        raise NotImplementedError

    def version(self) -> str:
        """The solver's package and version, e.g. ``"highspy 1.16.0"`` (read from package metadata)."""
        return solver_version(self.name)

    def check(self, form: MatrixForm) -> None:
        """Refuse (a :class:`~gamelp.errors.BackendError`) what this solver cannot take beyond its capabilities."""

    def solve(self, form: MatrixForm, options: Options) -> RawResult:
        """Solve ``form`` once and return the solver's raw result; the contract every backend implements."""
        raise NotImplementedError

    def solve_persistent(self, model: Model, form: MatrixForm, factors: Scaling, options: Options) -> RawResult:
        """Solve ``form`` (``model`` scaled by ``factors``) in a :class:`Session` kept in ``model.sessions``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<backend {self.name}: {', '.join(self.capabilities.names())}>"


def refuse_solver_name(family: str, solver: str | None) -> None:
    """Refuse ``family:solver`` for a family that drives one solver of its own (``highs``, ``scip``)."""
    if solver:
        raise BackendError(
            f"backend {family!r} takes no solver name (got {solver!r}); "
            f"for another solver use pyomo:{solver} or cvxpy:{solver.upper()}"
        )


@contextlib.contextmanager
def ctrl_c_sets() -> Iterator[threading.Event]:
    """An event that Ctrl-C sets inside the block, instead of raising ``KeyboardInterrupt`` (main thread only).

    For a solver that checks a flag in its callbacks and stops, keeping what it has: Python runs the
    handler at the next callback, which executes Python code.  Off the main thread nothing changes (Python
    delivers signals to the main thread only), and the event is never set.
    """
    stop = threading.Event()
    on_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: stop.set()) if on_main else None
    try:
        yield stop
    finally:
        if on_main:
            signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def wrapped_on_main_thread(owner: Any, attribute: str, wrap: Callable[[Any], Any]) -> Iterator[None]:
    """``owner.attribute`` replaced by ``wrap(original)`` inside the block, on the main thread only.

    How Ctrl-C reaches a solver object that a library (cvxpy, Pyomo) makes and runs out of gamelp's reach: the
    class method that runs it, or the constructor that makes it, is wrapped for the solve to subscribe the check
    of :func:`ctrl_c_sets`'s event.  Only the main thread wraps (the one that gets SIGINT; two threads wrapping
    and restoring at once could leave a wrapper behind); the original is put back on leaving the block.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    own = attribute in vars(owner)
    original = getattr(owner, attribute)
    setattr(owner, attribute, wrap(original))
    try:
        yield
    finally:
        if own:
            setattr(owner, attribute, original)
        else:
            delattr(owner, attribute)  # it was inherited: inherit it again


def violation(form: MatrixForm, x: np.ndarray) -> float:
    """Largest violation of rows (relative to ``1 + |rhs|``), bounds, integrality and cones by ``x``."""
    if x.size != form.c.size or not np.isfinite(x).all():
        return np.inf
    activity = form.A @ x
    excess = np.where(
        form.row_sense == "<",
        activity - form.rhs,
        np.where(form.row_sense == ">", form.rhs - activity, np.abs(activity - form.rhs)),
    )
    worst = [
        np.max(excess / (1.0 + np.abs(form.rhs)), initial=0.0),
        np.max((form.col_lb - x) / (1.0 + np.abs(np.nan_to_num(form.col_lb, neginf=0.0))), initial=0.0),
        np.max((x - form.col_ub) / (1.0 + np.abs(np.nan_to_num(form.col_ub, posinf=0.0))), initial=0.0),
    ]
    if form.is_mip:
        off_grid = np.abs(x[form.integer] - np.round(x[form.integer]))
        worst.append(np.max(off_grid, initial=0.0) * FEASIBILITY_TOLERANCE / INTEGRALITY_TOLERANCE)
    for cone in form.cones:
        u = cone.matrix @ x + cone.constant
        worst.append((np.linalg.norm(u[1:]) - u[0]) / (1.0 + abs(u[0])))
    return float(max(worst))


def objective_agrees(reported: float, honest: float) -> bool:
    """Whether a solver's reported objective is its point's ``c x + constant`` (to 1e-6, relative above 1)."""
    return bool(abs(reported - honest) <= OBJECTIVE_TOLERANCE * (1.0 + abs(honest)))


def finish(form: MatrixForm, raw: RawResult) -> tuple[Status, dict]:
    """The status a result earns and the keyword arguments of its :class:`Solution`, in ``form``'s units.

    A point that misses the tolerances, or whose objective is not the one reported, is no proved optimum:
    ``OPTIMAL`` becomes ``OPTIMAL_INACCURATE``, and the objective reported is the point's own.
    """
    status = raw.status
    off = violation(form, raw.x) if raw.x is not None else np.inf
    if raw.x is not None and off <= INACCURATE_LIMIT and raw.objective is not None and np.isfinite(raw.objective):
        honest = form.objective_at(raw.x)
        if not objective_agrees(raw.objective, honest):
            raw.objective = honest
            status = Status.OPTIMAL_INACCURATE if status == Status.OPTIMAL else status
    point_allowed = status in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE) or (status.stopped_early and form.is_mip)
    if status == Status.OPTIMAL and off > FEASIBILITY_TOLERANCE:
        status = Status.OPTIMAL_INACCURATE
    limit = INACCURATE_LIMIT if status == Status.OPTIMAL_INACCURATE else FEASIBILITY_TOLERANCE
    objective = raw.objective
    fields: dict[str, float | np.ndarray | str | None] = {
        "objective": None,
        "x": None,
        "row_duals": None,
        "reduced_costs": None,
        "bound": None,
        "mip_gap": None,
        "violation": off if raw.x is not None else None,
        "reason": "",
    }
    if point_allowed and off <= limit and objective is not None and np.isfinite(objective):
        fields.update(objective=float(objective), x=raw.x)
        if not form.is_mip and status in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE):
            fields.update(bound=float(objective), mip_gap=0.0, row_duals=raw.row_duals, reduced_costs=raw.reduced_costs)
        elif raw.bound is not None and np.isfinite(raw.bound):
            fields.update(bound=float(raw.bound), mip_gap=abs(objective - raw.bound) / max(abs(objective), 1e-10))
    if raw.status == Status.OPTIMAL and (raw.x is None or objective is None or not np.isfinite(objective)):
        # an "optimum" with nothing to show is no answer (a point off the constraints is judged above)
        missing = "no point" if raw.x is None else f"no finite objective (it said {objective})"
        status, fields["reason"] = Status.ERROR, f"the solver said optimal but returned {missing}"
        fields.update(objective=None, x=None, row_duals=None, reduced_costs=None, bound=None, mip_gap=None)
    return status, fields


def vouch(form: MatrixForm, factors: Scaling, status: Status, fields: dict) -> tuple[Status, dict]:
    """Check a scaled model's answer against the unscaled model ``form``; downgrade what it does not vouch for.

    ``fields`` are :func:`~gamelp.backends.base.finish`'s, in the scaled model's units.  A model that was
    not scaled is returned as it is.  Otherwise the point unscaled must satisfy ``form``
    (:func:`~gamelp.backends.scaling.unscaled_violation`) and have the objective reported (relative to
    ``|c| |x|`` and the constant):
    beyond ``FEASIBILITY_TOLERANCE`` an optimum is ``optimal_inaccurate`` (with its point's own objective),
    beyond ``INACCURATE_LIMIT`` it keeps no values and its status is ``error``.  An ``unbounded`` verdict on
    a model whose every column is boxed (finite bounds) is a solver's error, scaled or not: status ``error``.
    """
    boxed = np.isfinite(form.col_lb).all() and np.isfinite(form.col_ub).all()
    if boxed and status in (Status.UNBOUNDED, Status.INFEASIBLE_OR_UNBOUNDED):
        return Status.ERROR, fields  # every column boxed: no ray exists, the verdict is the solver's error
    unscaled = np.all(factors.row == 1) and np.all(factors.column == 1) and np.all(factors.cone == 1)
    if fields.get("x") is None or (unscaled and factors.objective == 1):
        return status, fields
    x = factors.values(np.asarray(fields["x"], dtype=float))
    off = unscaled_violation(form, factors, x)
    honest = form.objective_at(x)
    reported = factors.objective_value(fields["objective"])
    size = float(np.abs(form.c) @ np.abs(x)) + abs(form.objective_constant)
    if form.quadratic is not None:
        size += 0.5 * float(form.quadratic @ (x * x))
    fields = dict(fields)
    if reported is None or abs(reported - honest) > OBJECTIVE_TOLERANCE * size:
        off = max(off, FEASIBILITY_TOLERANCE * 2)  # not the optimum reported: at best inaccurate
        fields["objective"] = honest * factors.objective
    if off > INACCURATE_LIMIT:
        keep = {"violation"}
        return (Status.ERROR if status in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE) else status), {
            key: value if key in keep else None for key, value in fields.items()
        }
    if off > FEASIBILITY_TOLERANCE and status == Status.OPTIMAL:
        status = Status.OPTIMAL_INACCURATE
    return status, fields
