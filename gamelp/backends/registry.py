"""The registered backend families as data: one :class:`BackendFamily` descriptor each, no solver imported.

A family (``highs``, ``gurobi``, ``pyomo``, ``cvxpy``, ``scip``) is declared once, by a descriptor: the class
that solves (``"module:Class"``, imported only when used), the library its module imports, the distribution
and the gamelp extra that install it, how the help texts write its backend strings, and the backend strings
it registers with their :class:`Capabilities` and where ``auto`` tries them.  :data:`REGISTRATION` lists the
descriptors by address, one line a family; everything else is generated from them: the backend registry and
its error texts (:mod:`gamelp.backends`), the missing-extra messages and ``gamelp --version``
(:mod:`gamelp.deps`), the command-line help (:func:`usage`) and the documentation's backend tables.  A
descriptor lives in its family's module when that module imports its solver library lazily (``scip``),
else here, next to it (the others' modules import their libraries at load).

``gamelp backends`` lists the registry from here alone (:func:`gamelp.backends.listing`): what each
registered backend takes (:func:`registered`), whether the package or program its solver needs is
installed (:func:`solver_installed`: ``find_spec``, ``shutil.which``), and the versions of the packages
(:func:`solver_version`: package metadata).  A test checks that each class reports the capabilities
declared here.
"""

from __future__ import annotations

import functools
import importlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field

from gamelp.deps import declare_backends, installed
from gamelp.deps import version as _distribution_version
from gamelp.display import Raw, Summarised


@dataclass(frozen=True)
class Capabilities:
    """What a backend can take and give."""

    lp: bool = True
    mip: bool = False
    soc: bool = False
    # A convex quadratic objective term (Model.set_objective's quadratic).
    qp: bool = False
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
            "QP": self.qp,
            "duals": self.duals,
            "MIP start": self.mip_start,
            "time limit": self.time_limit,
            "persistent": self.persistent,
        }
        return [name for name, on in flags.items() if on]


@dataclass(frozen=True)
class Listed:
    """One backend string a family registers: what it takes, and where ``auto`` tries it (lower ranks first)."""

    capabilities: Capabilities
    rank: int


@dataclass(frozen=True, repr=False)
class BackendFamily(Summarised):
    """Everything gamelp knows of a solver family without importing it: one descriptor per family.

    ``solvers`` maps the backend strings the family registers (``"highs"``, ``"cvxpy:CLARABEL"``) to what each
    takes; a family whose strings name no solver (``highs``, ``scip``) drives its ``library`` alone.  A
    family that drives other packages names them in ``packages`` (a solver, read through ``solver_key``, ->
    its module, its distribution) and ``programs`` (-> an executable); ``bundled`` are the modules of those
    its extra installs with it.  ``version_form`` writes a solver package's version after the family's own.
    """

    name: str  # the family part of its backend strings
    backend: str  # "module:Class" of the Backend subclass, imported only when one of its backends is used
    library: str  # the module its backend module imports (asked with find_spec before that module is imported)
    distribution: str  # the library's distribution (package metadata: versions)
    extra: str | None  # the gamelp extra that installs the library (None: a core dependency)
    usage: str  # how help texts write its backend strings: "highs", "pyomo:<solver>"
    summary: str  # what it is, in a few words (documentation, help)
    solvers: dict[str, Listed]
    packages: dict[str, tuple[str, str]] = field(default_factory=dict)
    programs: dict[str, str] = field(default_factory=dict)
    bundled: tuple[str, ...] = ()
    solver_key: Callable[[str], str] = str.upper
    version_form: str = " {version}"

    def capabilities(self, name: str) -> Capabilities:
        """What the registered backend ``name`` of this family takes."""
        return self.solvers[name].capabilities

    def _summary(self) -> dict:
        return {
            "name": self.name,
            "backend": self.backend,
            "library": self.library,
            "extra": self.extra,
            "solvers": Raw(", ".join(self.solvers)),
        }


def pyomo_family(solver: str) -> str:
    """The family of a Pyomo solver name (``appsi_highs`` -> ``highs``, ``gurobi_direct`` -> ``gurobi``)."""
    return solver.lower().removeprefix("appsi_").split("_")[0]


# The descriptors of the families whose modules import their solver library at load.
HIGHS = BackendFamily(
    name="highs",
    backend="gamelp.backends.highs:HighsBackend",
    library="highspy",
    distribution="highspy",
    extra=None,
    usage="highs",
    summary="HiGHS through highspy, embedded",
    solvers={"highs": Listed(Capabilities(mip=True, qp=True, mip_start=True, persistent=True), 10)},
)
GUROBI = BackendFamily(
    name="gurobi",
    backend="gamelp.backends.gurobi:GurobiBackend",
    library="gurobipy",
    distribution="gurobipy",
    extra="gurobi",
    usage="gurobi",
    summary="Gurobi through gurobipy",
    solvers={"gurobi": Listed(Capabilities(mip=True, soc=True, qp=True, mip_start=True), 30)},
)
PYOMO = BackendFamily(
    name="pyomo",
    backend="gamelp.backends.pyomo:PyomoBackend",
    library="pyomo",
    distribution="pyomo",
    extra="pyomo",
    usage="pyomo:<solver>",
    summary="a Pyomo solver",
    solvers={
        "pyomo:highs": Listed(Capabilities(mip=True), 90),
        "pyomo:appsi_highs": Listed(Capabilities(mip=True, mip_start=True), 100),
        "pyomo:gurobi_direct": Listed(Capabilities(mip=True, soc=True, qp=True, mip_start=True), 110),
        "pyomo:gurobi_persistent": Listed(Capabilities(mip=True, soc=True, qp=True, mip_start=True), 120),
        "pyomo:glpk": Listed(Capabilities(mip=True), 130),
        "pyomo:cbc": Listed(Capabilities(mip=True), 140),
    },
    # A family of Pyomo solvers -> (the module of the Python package that drives it, its distribution).
    packages={
        "highs": ("highspy", "highspy"),
        "gurobi": ("gurobipy", "gurobipy"),
        "cplex": ("cplex", "cplex"),
        "xpress": ("xpress", "xpress"),
        "scip": ("pyscipopt", "PySCIPOpt"),
    },
    programs={"glpk": "glpsol", "cbc": "cbc"},  # a family of Pyomo solvers run as a program -> the program
    solver_key=pyomo_family,
    version_form=" ({distribution} {version})",
)
CVXPY = BackendFamily(
    name="cvxpy",
    backend="gamelp.backends.cvxpy:CvxpyBackend",
    library="cvxpy",
    distribution="cvxpy",
    extra="cvxpy",
    usage="cvxpy:<SOLVER>",
    summary="a cvxpy solver",
    solvers={
        "cvxpy:CLARABEL": Listed(Capabilities(soc=True, qp=True), 20),
        "cvxpy:HIGHS": Listed(Capabilities(mip=True), 40),
        "cvxpy:GUROBI": Listed(Capabilities(mip=True, soc=True, qp=True, mip_start=True), 50),
        "cvxpy:SCS": Listed(Capabilities(soc=True, qp=True, accuracy=1e-4), 60),
        "cvxpy:ECOS": Listed(Capabilities(soc=True, time_limit=False), 70),
        "cvxpy:MOSEK": Listed(Capabilities(mip=True, soc=True, time_limit=False), 80),
    },
    # A cvxpy solver -> (the module its Python package installs, its distribution).
    packages={
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
    },
    bundled=("clarabel", "scs"),
)
SOLVER_PACKAGES = CVXPY.packages  # the cvxpy backend reads its solvers' packages here

# The registered families, one line each: "module:NAME" of the descriptor, read when first asked for (a family
# module that declares its own descriptor imports its solver library only when it solves).  Their order is
# the order of the help texts; the order "auto" tries the backends in is their ranks'.
REGISTRATION = (
    "gamelp.backends.registry:HIGHS",
    "gamelp.backends.registry:GUROBI",
    "gamelp.backends.registry:PYOMO",
    "gamelp.backends.registry:CVXPY",
    "gamelp.backends.scip:SCIP",
)


@functools.cache
def families() -> tuple[BackendFamily, ...]:
    """The registered family descriptors, in :data:`REGISTRATION`'s order (imports no solver library)."""
    found = []
    for address in REGISTRATION:
        module, _, name = address.partition(":")
        found.append(getattr(importlib.import_module(module), name))
    return tuple(found)


def family(name: str) -> BackendFamily:
    """The descriptor of the family ``name`` (``"cvxpy"``); KeyError for an unknown one."""
    for candidate in families():
        if candidate.name == name:
            return candidate
    raise KeyError(name)


def registered() -> dict[str, Capabilities]:
    """Every registered backend string and what it takes, in the order ``auto`` tries them."""
    listed = [(entry.rank, name, entry.capabilities) for f in families() for name, entry in f.solvers.items()]
    return {name: capabilities for _, name, capabilities in sorted(listed, key=lambda row: row[0])}


def usage() -> list[str]:
    """The backend strings as help and error texts write them: ``["auto", "highs", "pyomo:<solver>", ...]``."""
    return ["auto", *(f.usage for f in families())]


def extras() -> dict[str, tuple[str, str]]:
    """Module -> (distribution, gamelp extra) of every package a family's extra installs (for :mod:`gamelp.deps`)."""
    found: dict[str, tuple[str, str]] = {}
    for f in families():
        if f.extra is None:
            continue
        found[f.library] = (f.distribution, f.extra)
        packages = dict(f.packages.values())
        found.update({module: (packages[module], f.extra) for module in f.bundled})
    return found


def distributions() -> tuple[str, ...]:
    """The solver distributions ``gamelp --version`` reports: each family's, then the packages they drive."""
    names = [f.distribution for f in families()]
    names += [distribution for f in families() for _, distribution in f.packages.values()]
    return tuple(dict.fromkeys(names))


declare_backends(extras, distributions)  # the missing-extra messages and `gamelp --version` name them


def package_version(distribution: str) -> str:
    """``"name version"`` of an installed distribution (``"name (version unknown)"`` without metadata)."""
    found = _distribution_version(distribution)
    return f"{distribution} {found}" if found else f"{distribution} (version unknown)"


def _split(name: str) -> tuple[BackendFamily, str]:
    family_name, _, solver = name.partition(":")
    return family(family_name.strip().lower()), solver.strip()


def solver_installed(name: str) -> bool:
    """Whether the package (or program) the solver of backend ``name`` needs is here, nothing imported.

    The family's own library (cvxpy, pyomo) is asked separately; a solver gamelp knows nothing of counts as here.
    """
    owner, solver = _split(name)
    if not solver:
        return installed(owner.library)
    key = owner.solver_key(solver)
    if key in owner.programs:
        return shutil.which(owner.programs[key]) is not None
    return key not in owner.packages or installed(owner.packages[key][0])


def solver_version(name: str) -> str:
    """The version string of backend ``name``, from package metadata (nothing imported).

    ``"highspy 1.16.0"``, ``"cvxpy 1.9.3 / CLARABEL 0.11.1"``, ``"pyomo 6.10.1 / appsi_highs (highspy 1.16.0)"``.
    """
    owner, solver = _split(name)
    if not solver:
        return package_version(owner.distribution)
    distribution = owner.packages.get(owner.solver_key(solver), (None, None))[1]
    found = _distribution_version(distribution) if distribution else None
    tail = owner.version_form.format(distribution=distribution, version=found) if found else ""
    return f"{package_version(owner.distribution)} / {solver}{tail}"
