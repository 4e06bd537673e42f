"""Solver backends behind one protocol, a registry of them, and the one solve path they share.

Backend strings: ``"auto"`` (the default: HiGHS for LPs and MIPs, its LP
method chosen by the LP's size, :func:`gamelp.backends.highs.lp_method`;
Clarabel for models with cones), ``"highs"`` (highspy), ``"gurobi"`` (gurobipy),
``"pyomo:<solver>"`` (a Pyomo solver name, e.g. ``highs``, ``appsi_highs``,
``gurobi_direct``, ``glpk``), ``"cvxpy:<SOLVER>"`` (an installed cvxpy
solver, e.g. ``CLARABEL``, ``SCS``, ``HIGHS``, ``GUROBI``) and ``"scip"``
(PySCIPOpt).  Each family is a :class:`~gamelp.backends.base.Backend`
subclass declared by one :class:`~gamelp.backends.registry.BackendFamily`
descriptor (:data:`~gamelp.backends.registry.REGISTRATION` lists them);
:data:`FAMILIES` and :data:`REGISTERED` are read from those.  :func:`get`
makes the instance for one string, :func:`available_backends` lists the
registered ones with their capabilities.  Whether a family's library is
installed is asked with ``importlib.util.find_spec``, without importing it:
listing the backends never imports a missing package, and :func:`get` of a
backend whose library is missing raises
:class:`~gamelp.errors.MissingDependency`, one line naming the extra to
install (``pip install "gamelp[cvxpy]"``).

Process-wide state: :func:`get` keeps one instance per backend string and
whether each backend is installed is asked once per process
(:func:`available_backends`); :func:`refresh` forgets both, for a process
that installs or removes a solver package while it runs.

:func:`solve` is the path every solve takes: refuse what the backend cannot
take (naming backends that can), check the options
(:class:`~gamelp.backends.base.Options`), scale the model
(:mod:`gamelp.backends.scaling`), solve, judge the result
(:func:`gamelp.backends.base.finish`), unscale it and split it by block.  An
exception the solver's library raises during the solve becomes, here and
only here, a one-line :class:`~gamelp.errors.BackendError` naming the
backend (gamelp's own errors and bugs pass through).  Whatever the solver
writes to standard output goes to stderr (:mod:`gamelp.backends.quiet`).
Options: ``time_limit`` (seconds), ``mip_gap`` (relative), ``mip_abs_gap``
(absolute), ``threads``, ``verbose``, ``start`` (block name -> values, a
MIP start), ``persistent`` (keep the solver's model for the next solve of
the same model, on backends that can; others solve afresh) and any
solver-specific keyword.  Ctrl-C during a solve stops the
solver and raises :class:`~gamelp.errors.SolveInterrupted` carrying what it had.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
from collections.abc import Iterator

import numpy as np

from gamelp.backends import registry
from gamelp.backends.base import Backend, Capabilities, Options, finish, solve_failed, vouch
from gamelp.backends.quiet import solver_output_to_stderr
from gamelp.backends.registry import BackendFamily, solver_installed, solver_version
from gamelp.backends.scaling import scale
from gamelp.deps import install_hint, installed, require
from gamelp.errors import BackendError, GamelpError, ModelError, SolveInterrupted, did_you_mean
from gamelp.solution import Solution, Status

logger = logging.getLogger(__name__)

DEFAULT_BACKEND = "auto"
# Family name -> its descriptor: the "module:Class" imported only when used, the library asked with find_spec
# before that, the extra that installs it.
FAMILIES: dict[str, BackendFamily] = {family.name: family for family in registry.families()}
# The registered backends, in the order "auto" prefers them (what each takes: registry.registered()).
REGISTERED = tuple(registry.registered())

__all__ = [
    "DEFAULT_BACKEND",
    "FAMILIES",
    "REGISTERED",
    "Backend",
    "Capabilities",
    "MissingBackend",
    "available_backends",
    "check",
    "get",
    "listing",
    "refresh",
    "registered_backends",
    "solve",
]


def parse(backend: str) -> tuple[str, str | None]:
    """Split ``"pyomo:appsi_highs"`` into ``("pyomo", "appsi_highs")``."""
    family, _, solver = backend.partition(":")
    family = family.strip().lower()
    if family not in FAMILIES:
        hint = did_you_mean(backend.strip(), (DEFAULT_BACKEND, *FAMILIES, *REGISTERED))
        listed = ", ".join(registry.usage())
        raise BackendError(
            f"unknown backend {backend!r}" + (hint or f"; use one of {listed} (`gamelp backends` lists them)")
        )
    return family, (solver.strip() or None)


class MissingBackend(Backend):
    """A registered backend whose library is not installed: listed, never imported, never solves."""

    capabilities = Capabilities(lp=False, duals=False, time_limit=False)

    def __init__(self, name: str):
        self.name = name

    def available(self) -> bool:
        """Always False: the backend's library is not installed."""
        return False

    def version(self) -> str:
        """An empty string: there is no package to read a version from."""
        return ""


def library(backend: str) -> str:
    """The library a backend's family imports (``"cvxpy:SCS"`` -> ``"cvxpy"``, ``"gurobi"`` -> ``"gurobipy"``)."""
    return FAMILIES[parse(backend)[0]].library


def _library_installed(backend: str) -> bool:
    return installed(library(backend))


@functools.cache
def get(backend: str) -> Backend:
    """The backend instance for a string such as ``"highs"`` or ``"cvxpy:CLARABEL"`` (not ``"auto"``).

    Raises :class:`~gamelp.errors.MissingDependency` when the family's library is not installed.
    """
    family, solver = parse(backend)
    require(FAMILIES[family].library, f"backend {backend.strip()}")
    module_name, class_name = FAMILIES[family].backend.split(":")
    return getattr(importlib.import_module(module_name), class_name)(solver)


def registered_backends() -> list[Backend]:
    """Every registered backend, installed or not (a :class:`MissingBackend` where its library is missing)."""
    return [get(name) if _library_installed(name) else MissingBackend(name) for name in REGISTERED]


def listing() -> list[dict]:
    """Every registered backend as ``gamelp backends`` lists it, known without importing any solver package.

    Per backend: ``name``, ``installed`` (its family's library and its solver's package or program are here),
    ``capabilities`` (names), ``solver_version`` (from package metadata; None when not installed) and
    ``install`` (the extra that installs a missing family library, else None).
    """
    rows = []
    for name, capabilities in registry.registered().items():
        family_here = _library_installed(name)
        here = family_here and solver_installed(name)
        rows.append(
            {
                "name": name,
                "installed": here,
                "capabilities": capabilities.names(),
                "solver_version": solver_version(name) if here else None,
                "install": None if family_here else install_hint(library(name)),
            }
        )
    return rows


@functools.cache
def _installed(backend: str) -> bool:
    """Whether ``backend`` is installed (asked once per process; its library is never imported when missing)."""
    with solver_output_to_stderr():  # some answers take a solver start-up, which may print
        return _library_installed(backend) and get(backend).available()


def available_backends() -> list[Backend]:
    """The registered backends installed here (each with ``name`` and ``capabilities``).

    Asked once per process per backend; :func:`refresh` asks again.
    """
    return [b for b in registered_backends() if _installed(b.name)]


def refresh() -> None:
    """Forget what this process learnt about the backends, so that the next questions ask again.

    Forgotten: the instances :func:`get` made, which backends are installed, the package versions read, the
    Gurobi licence probed, and Python's own import finder caches.

    For a process that installs or removes a solver package while it runs (a notebook after ``pip install``):
    the next :func:`available_backends` asks again, and the next :func:`get` makes a new instance.
    """
    from gamelp.backends.gurobi_licence import _probe_restricted
    from gamelp.deps import version

    importlib.invalidate_caches()
    for cached in (get, _installed, version, _probe_restricted):
        cached.cache_clear()


def _missing(form, capabilities: Capabilities) -> str | None:
    """What of ``form`` a backend with ``capabilities`` cannot take, or None."""
    if form.cones and form.is_mip and not (capabilities.soc and capabilities.mip):
        return "integer variables and second-order cones"
    if form.cones and not capabilities.soc:
        return "second-order cones"
    if form.is_mip and not capabilities.mip:
        return "integer variables"
    if form.quadratic is not None and form.is_mip:
        return "integer variables and a quadratic objective"  # gamelp's backends pass no mixed-integer QP
    if form.quadratic is not None and not capabilities.qp:
        return "a quadratic objective"
    return None


def _takers(form) -> list[Backend]:
    return [b for b in available_backends() if _missing(form, b.capabilities) is None]


def _resolve(model, backend: str) -> Backend:
    """The backend that will solve ``model``: ``"auto"`` takes the first registered one that can."""
    form = model.matrix_form()
    if form.c.size == 0:
        raise ModelError(f"model {model.name!r} has no variables: there is nothing to solve")
    if backend.strip().lower() != "auto":
        chosen = get(backend)  # a missing library: MissingDependency, naming the extra
        if chosen.package is not None:
            require(chosen.package, f"backend {chosen.name}")  # the solver a family drives (cvxpy:CLARABEL)
        if not _installed(chosen.name):
            raise BackendError(
                f"backend {chosen.name} is not installed here; "
                f"installed: {', '.join(b.name for b in available_backends())}"
            )
        what = _missing(form, chosen.capabilities)
        if what is not None:
            others = " or ".join(b.name for b in _takers(form)) or "a solver that can"
            raise BackendError(f"model {model.name!r} has {what}, which {chosen.name} cannot take; use {others}")
        chosen.check(form)
        return chosen
    for name in REGISTERED:  # lazily: only the libraries of the backends tried are imported
        if not _library_installed(name):
            continue
        candidate = get(name)
        if _missing(form, candidate.capabilities) is not None or not _installed(name):
            continue
        try:
            candidate.check(form)
        except BackendError:
            continue
        return candidate
    hint = f" ({_missing(form, Capabilities())}: {install_hint('cvxpy')} adds Clarabel and SCS)" if form.cones else ""
    raise BackendError(f"no installed backend can take model {model.name!r}{hint}")


def check(model, backend: str = DEFAULT_BACKEND) -> str:
    """The name of the backend that will take ``model`` (``auto`` resolved); :class:`BackendError` if none can."""
    return _resolve(model, backend).name


def _from_library(exc: Exception, libraries: set[str]) -> bool:
    """Whether ``exc`` is a failure of one of ``libraries`` (top-level package names), not a bug of gamelp's.

    Either its class is the library's own (``GurobiError``, cvxpy's ``SolverError``, Pyomo's exceptions), or it
    was raised inside a call gamelp made into the library: the frame gamelp's last frame called is the library's.
    An exception raised in gamelp's own code (a callback the solver runs included), or in a call gamelp made into
    anything else (numpy, scipy), is gamelp's and is not translated.
    """
    if type(exc).__module__.partition(".")[0] in libraries:
        return True
    modules = []
    tb = exc.__traceback__
    while tb is not None:
        modules.append(str(tb.tb_frame.f_globals.get("__name__", "")))
        tb = tb.tb_next
    ours = [i for i, name in enumerate(modules) if name == "gamelp" or name.startswith("gamelp.")]
    callee = ours[-1] + 1 if ours else 0
    return callee < len(modules) and modules[callee].partition(".")[0] in libraries


@contextlib.contextmanager
def _library_errors_to_backend_error(chosen: Backend, model_name: str) -> Iterator[None]:
    """Turn an exception from ``chosen``'s solver library into a one-line BackendError naming the backend.

    The one place where a backend's library errors become gamelp's: gamelp's own errors, interrupts and
    programming errors in gamelp (see :func:`_from_library`) pass through unchanged.
    """
    libraries = {library(chosen.name), *([chosen.package] if chosen.package else [])}
    try:
        yield
    except (GamelpError, MemoryError):
        raise
    except Exception as exc:
        if not _from_library(exc, libraries):
            raise
        raise solve_failed(chosen.name, model_name, exc) from exc


def solve(
    model,
    backend: str = DEFAULT_BACKEND,
    *,
    verbose: bool = False,
    time_limit: float | None = None,
    mip_gap: float | None = None,
    mip_abs_gap: float | None = None,
    threads: int | None = None,
    start: dict | None = None,
    persistent: bool = False,
    **options,
) -> Solution:
    """Solve ``model`` on ``backend``; refusals come before any work.

    ``mip_gap`` is relative; ``mip_abs_gap`` is absolute, in the model's objective units (a MIP stops at
    whichever it reaches first).
    ``start`` (block name -> values) is a feasible point offered to a MIP solver as its first incumbent.
    ``persistent``: on a backend with that capability, keep the solver's model in ``model.sessions``
    and, next time, change only what the value setters changed and warm-start from the last solve.
    """
    chosen = _resolve(model, backend)
    form = model.matrix_form()
    opts = Options(  # checked here, the same for every backend
        time_limit=time_limit,
        mip_gap=mip_gap,
        mip_abs_gap=mip_abs_gap,
        threads=threads,
        verbose=verbose,
        start=None if start is None else Options.start_vector(form, start),
        extra=options,
    )
    scaled, factors = scale(form)
    if opts.mip_abs_gap is not None:
        opts.mip_abs_gap *= factors.objective  # the backend sees the scaled objective
    opts.start = factors.scaled_start(opts.start) if opts.start is not None and form.is_mip else None
    logger.info("solving %s (%d columns, %d rows) on %s", form.name, form.c.size, form.A.shape[0], chosen.name)
    with solver_output_to_stderr(), _library_errors_to_backend_error(chosen, form.name):
        if persistent and chosen.capabilities.persistent:
            raw = chosen.solve_persistent(model, scaled, factors, opts)
        else:
            raw = chosen.solve(scaled, opts)
    status, fields = finish(scaled, raw)
    status, fields = vouch(form, factors, status, fields)  # the answer in the model's own units

    def per_block(vector, unscale, split):
        return split(unscale(np.asarray(vector, dtype=float))) if vector is not None else {}

    solution = Solution(
        status=status,
        objective=factors.objective_value(fields["objective"]),
        values=per_block(fields["x"], factors.values, form.split_values),
        duals=per_block(fields["row_duals"], factors.duals, form.split_rows),
        reduced_costs=per_block(fields["reduced_costs"], factors.reduced_costs, form.split_values),
        mip_gap=fields["mip_gap"],
        objective_bound=factors.objective_value(fields["bound"]),
        wall_time=raw.wall_time,
        log=raw.log,
        backend=chosen.name,
        violation=fields["violation"],
        iterations=raw.iterations,
        solver_version=chosen.version(),
        reason=fields["reason"],
    )
    if status == Status.INTERRUPTED:
        raise SolveInterrupted(solution)
    return solution
