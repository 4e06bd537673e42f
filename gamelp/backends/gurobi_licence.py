"""What every route to Gurobi shares: its status codes and the pip licence's size limit.

Used by the ``gurobi`` backend, ``cvxpy:GUROBI`` (the status table) and the
``pyomo:gurobi_*`` backends (the size check), so none of them imports
another's module.  gurobipy is imported only by the licence probe.

The pip wheel ships a size-limited licence (2000 variables, 2000 linear
constraints).  :func:`check_size` refuses larger models up front, counting
the cone auxiliaries, but only when the licence is the restricted one: that
is probed once per process by optimising an empty model just over the limit.
Setting the environment variable ``GAMELP_GUROBI_UNRESTRICTED=1`` skips the
probe and the check (for a full licence configured in a way the probe misses);
it is read whenever the licence is asked about, not once.
"""

from __future__ import annotations

import functools
import os
import sys

from gamelp.deps import require
from gamelp.errors import BackendError
from gamelp.form import MatrixForm
from gamelp.solution import Status

SIZE_LIMIT = 2000
CONE_SIZE_LIMIT = 200  # the same licence allows only this many variables once a model has cones
UNRESTRICTED_ENV_VAR = "GAMELP_GUROBI_UNRESTRICTED"
TOO_LARGE = 10010  # GurobiError code "Model too large for size-limited license"

# Gurobi's status codes (GRB.OPTIMAL = 2, ...); SUBOPTIMAL (13) is an optimum that missed its tolerances.
STATUS = {
    2: Status.OPTIMAL,
    3: Status.INFEASIBLE,
    4: Status.INFEASIBLE_OR_UNBOUNDED,
    5: Status.UNBOUNDED,
    7: Status.ITERATION_LIMIT,
    8: Status.ITERATION_LIMIT,
    9: Status.TIME_LIMIT,
    10: Status.ITERATION_LIMIT,
    11: Status.INTERRUPTED,
    13: Status.OPTIMAL_INACCURATE,
}


def loaded_gurobi_errors() -> tuple[type[Exception], ...]:
    """``(gurobipy.GurobiError,)`` once some route has imported gurobipy, else ``()``.

    For ``except`` clauses of the routes that reach Gurobi through another
    library (cvxpy, Pyomo): a GurobiError can only come from a loaded gurobipy,
    and looking it up in ``sys.modules`` imports nothing.
    """
    gp = sys.modules.get("gurobipy")
    return (gp.GurobiError,) if gp is not None else ()


def gurobipy(what: str = "backend gurobi"):
    """The gurobipy module, or a one-line :class:`~gamelp.errors.MissingDependency` naming the extra."""
    require("gurobipy", what)
    import gurobipy as gp

    return gp


def quiet_env(gp, log_path: str | None = None, verbose: bool = False):
    """A started Gurobi environment whose banner goes to ``log_path`` (or nowhere), not stdout."""
    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 1 if (verbose or log_path) else 0)
    env.setParam("LogToConsole", 1 if verbose else 0)
    if log_path:
        env.setParam("LogFile", log_path)
    env.start()
    return env


def licence_is_restricted() -> bool:
    """Whether this process's Gurobi licence is the size-limited one.

    ``GAMELP_GUROBI_UNRESTRICTED`` is read at every call; the probe runs once per process
    (``licence_is_restricted.cache_clear()`` forgets it, as :func:`gamelp.backends.refresh` does).
    """
    if _declared_unrestricted():
        return False
    return _probe_restricted()


def _declared_unrestricted() -> bool:
    """Whether ``GAMELP_GUROBI_UNRESTRICTED`` is set (to anything but empty or 0), read now."""
    return os.environ.get(UNRESTRICTED_ENV_VAR, "").strip() not in ("", "0")


@functools.cache
def _probe_restricted() -> bool:
    """Optimise an empty model just over the size limit: refused by the size-limited licence only."""
    gp = gurobipy()
    try:
        with quiet_env(gp) as env, gp.Model(env=env) as probe:
            probe.addMVar(SIZE_LIMIT + 1)
            probe.optimize()
    except gp.GurobiError as exc:
        if exc.errno == TOO_LARGE:
            return True
        raise BackendError(f"Gurobi is not usable here ({exc}); use highs or cvxpy:CLARABEL") from None
    return False


licence_is_restricted.cache_clear = _probe_restricted.cache_clear  # type: ignore[attr-defined]


def model_size(form: MatrixForm) -> tuple[int, int]:
    """(variables, linear constraints) as Gurobi sees a model, cone auxiliaries included."""
    cone_rows = sum(k.matrix.shape[0] for k in form.cones)
    return form.c.size + cone_rows, form.A.shape[0] + cone_rows


def size_refusal(form: MatrixForm, backend: str) -> str:
    """The message refusing ``form`` on ``backend`` under the size-limited licence, naming a backend that takes it.

    Gurobi itself refuses such a model even when ``GAMELP_GUROBI_UNRESTRICTED`` is set (the variable only skips
    gamelp's own check): then the message says that the licence Gurobi found is the size-limited one after all,
    rather than advising to set the variable.
    """
    n_vars, n_rows = model_size(form)
    if form.cones or form.quadratic is not None:
        allowed, alternative = f"{CONE_SIZE_LIMIT} variables a cone model or QP may have", "cvxpy:CLARABEL"
    else:
        allowed, alternative = f"{SIZE_LIMIT} variables or constraints allowed", "highs"
    if _declared_unrestricted():
        remedy = (
            f"{UNRESTRICTED_ENV_VAR} is set, but the licence Gurobi found is the size-limited one: point "
            "GRB_LICENSE_FILE at the full licence, or unset the variable"
        )
    else:
        remedy = f"or set {UNRESTRICTED_ENV_VAR}=1 with a full licence"
    return (
        f"model {form.name!r} has {n_vars} variables and {n_rows} linear constraints "
        f"(cone auxiliaries included), over the {allowed} under the size-limited "
        f"pip Gurobi licence, so {backend} refuses it; use {alternative} instead ({remedy})"
    )


def _over_limit(form: MatrixForm) -> bool:
    n_vars, n_rows = model_size(form)
    nonlinear = bool(form.cones) or form.quadratic is not None  # the licence's smaller limit holds for QPs too
    return max(n_vars, n_rows) > SIZE_LIMIT or (nonlinear and n_vars > CONE_SIZE_LIMIT)


def check_size(form: MatrixForm, backend: str = "gurobi") -> None:
    """Refuse a model over the size-limited licence (only when that licence is in use)."""
    if _over_limit(form) and licence_is_restricted():
        raise BackendError(size_refusal(form, backend))
