"""The registered backends as data, read without importing any solver package.

``gamelp backends`` lists the registry from here alone (:func:`gamelp.backends.listing`): what each
registered backend takes (:data:`CAPABILITIES`), whether the package or program its solver needs is
installed (:func:`solver_installed`: ``find_spec``, ``shutil.which``), and the versions of the packages
(:func:`solver_version`: package metadata).  The family classes read their solver packages and version
strings from the same tables; a test checks that each class reports the capabilities declared here.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from gamelp.deps import installed
from gamelp.deps import version as _distribution_version


@dataclass(frozen=True)
class Capabilities:
    """What a backend can take and give."""

    lp: bool = True
    mip: bool = False
    soc: bool = False
    duals: bool = True
    mip_start: bool = False
    time_limit: bool = True
    persistent: bool = False  # keeps the solver's model between solves and applies only the changes
    accuracy: float = 1e-7  # relative accuracy to expect of an optimum (first-order methods: ~1e-4)

    def names(self) -> list[str]:
        """The names of the capabilities this solver has (``"LP"``, ``"MIP"``, ``"duals"``, ...)."""
        flags = {
            "LP": self.lp,
            "MIP": self.mip,
            "SOC": self.soc,
            "duals": self.duals,
            "MIP start": self.mip_start,
            "time limit": self.time_limit,
            "persistent": self.persistent,
        }
        return [name for name, on in flags.items() if on]


# The registered backends, in the order "auto" prefers them, and what each takes.
CAPABILITIES: dict[str, Capabilities] = {
    "highs": Capabilities(mip=True, mip_start=True, persistent=True),
    "cvxpy:CLARABEL": Capabilities(soc=True),
    "gurobi": Capabilities(mip=True, soc=True, mip_start=True),
    "cvxpy:HIGHS": Capabilities(mip=True),
    "cvxpy:GUROBI": Capabilities(mip=True, soc=True, mip_start=True),
    "cvxpy:SCS": Capabilities(soc=True, accuracy=1e-4),
    "cvxpy:ECOS": Capabilities(soc=True, time_limit=False),
    "cvxpy:MOSEK": Capabilities(mip=True, soc=True, time_limit=False),
    "pyomo:highs": Capabilities(mip=True),
    "pyomo:appsi_highs": Capabilities(mip=True, mip_start=True),
    "pyomo:gurobi_direct": Capabilities(mip=True, soc=True, mip_start=True),
    "pyomo:gurobi_persistent": Capabilities(mip=True, soc=True, mip_start=True),
    "pyomo:glpk": Capabilities(mip=True),
    "pyomo:cbc": Capabilities(mip=True),
}
# A cvxpy solver -> (the module its Python package installs, its distribution).
SOLVER_PACKAGES = {
    "CLARABEL": ("clarabel", "clarabel"),
    "SCS": ("scs", "scs"),
    "HIGHS": ("highspy", "highspy"),
    "GUROBI": ("gurobipy", "gurobipy"),
    "ECOS": ("ecos", "ecos"),
    "MOSEK": ("mosek", "Mosek"),
    "OSQP": ("osqp", "osqp"),
    "COPT": ("coptpy", "coptpy"),
    "SCIP": ("pyscipopt", "PySCIPOpt"),
    "CPLEX": ("cplex", "cplex"),
    "XPRESS": ("xpress", "xpress"),
    "CBC": ("cylp", "cylp"),
    "GLPK": ("cvxopt", "cvxopt"),
    "GLPK_MI": ("cvxopt", "cvxopt"),
    "CVXOPT": ("cvxopt", "cvxopt"),
}
# A family of Pyomo solvers -> (the module of the Python package that drives it, its distribution).
PYOMO_PACKAGES = {
    "highs": ("highspy", "highspy"),
    "gurobi": ("gurobipy", "gurobipy"),
    "cplex": ("cplex", "cplex"),
    "xpress": ("xpress", "xpress"),
    "scip": ("pyscipopt", "PySCIPOpt"),
}
# A family of Pyomo solvers run as a program -> the program.
PYOMO_PROGRAMS = {"glpk": "glpsol", "cbc": "cbc"}
# The backends whose family drives one solver package of its own.
_OWN_PACKAGE = {"highs": "highspy", "gurobi": "gurobipy"}


def package_version(distribution: str) -> str:
    """``"name version"`` of an installed distribution (``"name (version unknown)"`` without metadata)."""
    found = _distribution_version(distribution)
    return f"{distribution} {found}" if found else f"{distribution} (version unknown)"


def pyomo_family(solver: str) -> str:
    """The family of a Pyomo solver name (``appsi_highs`` -> ``highs``, ``gurobi_direct`` -> ``gurobi``)."""
    return solver.lower().removeprefix("appsi_").split("_")[0]


def _split(name: str) -> tuple[str, str]:
    family, _, solver = name.partition(":")
    return family.strip().lower(), solver.strip()


def solver_installed(name: str) -> bool:
    """Whether the package (or program) the solver of backend ``name`` needs is here, nothing imported.

    The family's own library (cvxpy, pyomo) is asked separately; a solver gamelp knows nothing of counts as here.
    """
    family, solver = _split(name)
    if family in _OWN_PACKAGE:
        return installed(_OWN_PACKAGE[family])
    if family == "cvxpy":
        return solver.upper() not in SOLVER_PACKAGES or installed(SOLVER_PACKAGES[solver.upper()][0])
    kind = pyomo_family(solver)
    if kind in PYOMO_PROGRAMS:
        return shutil.which(PYOMO_PROGRAMS[kind]) is not None
    return kind not in PYOMO_PACKAGES or installed(PYOMO_PACKAGES[kind][0])


def solver_version(name: str) -> str:
    """The version string of backend ``name``, from package metadata (nothing imported).

    ``"highspy 1.16.0"``, ``"cvxpy 1.9.3 / CLARABEL 0.11.1"``, ``"pyomo 6.10.1 / appsi_highs (highspy 1.16.0)"``.
    """
    family, solver = _split(name)
    if family in _OWN_PACKAGE:
        return package_version(_OWN_PACKAGE[family])
    if family == "cvxpy":
        distribution = SOLVER_PACKAGES.get(solver.upper(), (None, None))[1]
        found = package_version(distribution).partition(" ")[2] if distribution else ""
        return f"{package_version('cvxpy')} / {solver}" + (f" {found}" if found and "unknown" not in found else "")
    distribution = PYOMO_PACKAGES.get(pyomo_family(solver), (None, None))[1]
    found = package_version(distribution) if distribution else ""
    return f"{package_version('pyomo')} / {solver}" + (f" ({found})" if found and "unknown" not in found else "")
