"""Solver backends behind one interface: ``solve(model, backend, **options) -> Solution``.

Backend strings: ``"highs"`` (highspy matrix API, the embedded default),
``"gurobi"`` (gurobipy matrix API), ``"pyomo:<solver>"`` (any Pyomo solver
name, e.g. ``appsi_highs``, ``gurobi_direct``, ``glpk``, ``cbc``) and
``"cvxpy:<SOLVER>"`` (any installed cvxpy solver, e.g. ``CLARABEL``,
``HIGHS``, ``SCS``, ``GUROBI``).  Each backend module exposes ``check(model,
solver)``, which refuses up front (a :class:`~gamelp.errors.BackendError`
naming an alternative) what it cannot take, and ``solve(model, solver, *,
verbose, time_limit, mip_gap, **options)``.
"""

from __future__ import annotations

import importlib

from gamelp.errors import BackendError
from gamelp.solution import Solution

DEFAULT_BACKEND = "highs"
_MODULES = {"highs": "gamelp.backends.highs", "gurobi": "gamelp.backends.gurobi",
            "pyomo": "gamelp.backends.pyomo", "cvxpy": "gamelp.backends.cvxpy"}


def parse(backend: str) -> tuple[str, str | None]:
    """Split ``"pyomo:appsi_highs"`` into ``("pyomo", "appsi_highs")``."""
    family, _, solver = backend.partition(":")
    family = family.strip().lower()
    if family not in _MODULES:
        raise BackendError(f"unknown backend {backend!r}; use one of highs, gurobi, "
                           "pyomo:<solver>, cvxpy:<SOLVER>")
    return family, (solver.strip() or None)


def module(backend: str):
    family, _ = parse(backend)
    return importlib.import_module(_MODULES[family])


def check(model, backend: str = DEFAULT_BACKEND) -> None:
    """Raise :class:`BackendError` if ``backend`` cannot take ``model``."""
    family, solver = parse(backend)
    module(backend).check(model, solver)


def solve(model, backend: str = DEFAULT_BACKEND, *, verbose: bool = False, time_limit: float | None = None,
          mip_gap: float | None = None, start: dict | None = None, **options) -> Solution:
    """Solve ``model`` on ``backend``; the model is checked first, so refusals come before any work.

    ``start`` (block name -> values) is a feasible point offered to a MIP solver as its first incumbent.
    """
    family, solver = parse(backend)
    mod = module(backend)
    mod.check(model, solver)
    if start is not None and model.is_mip:
        options["start"] = start
    solution = mod.solve(model, solver, verbose=verbose, time_limit=time_limit, mip_gap=mip_gap, **options)
    solution.backend = backend
    return solution
