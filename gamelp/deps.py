"""Optional packages: which extra installs each, whether it is installed, and installed versions.

gamelp's core install (numpy, scipy, networkx, highspy, jsonschema, tqdm)
solves every LP and MIP on HiGHS.  Everything else comes with an extra
(``pip install "gamelp[cvxpy]"``); code that needs such a package calls
:func:`require` before importing it, so a missing package is one line
(:class:`~gamelp.errors.MissingDependency`, a ``GamelpError``) naming the
extra to install, never a traceback.  :func:`installed` asks
``importlib.util.find_spec`` and never imports the package.  The solver
packages' extras are those the backend families declare (the registry hands
them over, :func:`declare_backends`); :data:`PACKAGES` holds the others.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable

from gamelp.errors import MissingDependency

# Import name -> (distribution on PyPI, the gamelp extra that installs it), for the packages no backend family
# declares (theirs: packages()).
PACKAGES = {
    "sklearn": ("scikit-learn", "mtg"),
    "matplotlib": ("matplotlib", "plot"),
    "pandas": ("pandas", "yugioh"),
    "statsmodels": ("statsmodels", "yugioh"),
    "pyspiel": ("open_spiel", "openspiel"),
    "pygambit": ("pygambit", "gambit"),
    "dask": ("dask", "dist"),
    "distributed": ("distributed", "dist"),
    "torch": ("torch", "rl"),
    "gymnasium": ("gymnasium", "rl"),
    "stable_baselines3": ("stable-baselines3", "rl"),
    "sb3_contrib": ("sb3-contrib", "rl"),
}


def installed(module: str) -> bool:
    """Whether ``module`` can be imported here, asked without importing it.

    A module set to ``None`` in ``sys.modules`` (hidden) counts as missing, as
    does one whose parent package is missing or whose spec cannot be found.
    """
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a missing parent package, or a module with no spec
        return False


# What the backend registry declares of its families (declare_backends): a function giving their packages
# (import name -> (distribution, extra)) and one giving their solver distributions.  Declared by the registry
# when it is imported (with gamelp itself), so that this module imports nothing of gamelp's but its errors.
_BACKENDS: list[tuple[Callable[[], dict[str, tuple[str, str]]], Callable[[], tuple[str, ...]]]] = []


def declare_backends(
    packages: Callable[[], dict[str, tuple[str, str]]], distributions: Callable[[], tuple[str, ...]]
) -> None:
    """Take the backend registry's functions: its families' optional packages, and their solver distributions."""
    _BACKENDS[:] = [(packages, distributions)]


def packages() -> dict[str, tuple[str, str]]:
    """Import name -> (distribution, gamelp extra) of every optional package: :data:`PACKAGES` and the backends'."""
    found = dict(PACKAGES)
    for backend_packages, _ in _BACKENDS:
        found.update(backend_packages())
    return found


def install_hint(module: str, extra: str | None = None) -> str:
    """``pip install "gamelp[extra]"`` for the extra that installs ``module`` (or the ``extra`` given)."""
    top = module.partition(".")[0]
    extra = extra or packages().get(top, (top, None))[1]
    return f'pip install "gamelp[{extra}]"' if extra else f"pip install {top}"


def require(module: str, what: str, extra: str | None = None) -> None:
    """Raise :class:`MissingDependency` (one line naming the extra) unless ``module`` is installed.

    ``what`` names what needs it (``"backend cvxpy:CLARABEL"``, ``"the forest evaluation"``); ``extra``
    names the extra to install when it is not the package's own (pandas for tables: ``notebook``).
    """
    if not installed(module):
        top = module.partition(".")[0]
        distribution = packages().get(top, (top, None))[0]
        raise MissingDependency(
            f"{what} needs {distribution}, which is not installed here; {install_hint(module, extra)}"
        )


@functools.cache
def version(distribution: str) -> str | None:
    """The installed version of ``distribution`` (read from its metadata, nothing imported), or None."""
    import importlib.metadata  # email parsing, wanted only when a version is asked for

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def solver_versions() -> dict[str, str]:
    """The installed solver packages and their versions (distribution -> version), nothing imported.

    The solver packages are the backend families' libraries, then the packages they drive
    (:func:`gamelp.backends.registry.distributions`).
    """
    names = [name for _, distributions in _BACKENDS for name in distributions()]
    found = {name: version(name) for name in names}
    return {name: v for name, v in found.items() if v is not None}
