"""The games layer, installed as :mod:`gamelp.games`: the game simulators, their engines and the match runner.

It plugs into gamelp's game registry (:mod:`gamelp.registry`; ``pyproject.toml``
lists this package in the entry-point group ``gamelp.plugins``, so the core
imports it without naming it).  Importing it registers the shipped data folder
(``data/``: the games ``rps``, ``kuhn``, ``leduc`` as JSON, the shipped
matrices) and a finder.  The finder imports, when a name is asked for that is
not registered yet, every module of this package that imports the registry:
each registers its own games, simulators and formats at import (the poker
generators' ``kuhn:N`` and ``leduc:RxS``, ``openspiel:GAME``, Gambit's
``.efg`` and ``.nfg``, the simulators' engines).  Adding a game is adding one
such module; nothing else is edited, and no other module is imported.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from importlib import resources
from pathlib import Path

from gamelp import registry

# A module that registers something imports the registry (``from gamelp.registry import ...`` or ``from gamelp
# import registry``); the finder imports only those, so a simulator's heavy or optional imports stay unloaded.
_REGISTERS = re.compile(r"^(?:from gamelp\.registry import|from gamelp import registry|import gamelp\.registry)", re.M)


def registering_modules(paths=None, prefix: str = __name__ + ".") -> list[str]:
    """The modules under ``paths`` (default: this package) whose source imports the registry, sorted.

    Found by reading the source files, not by importing them (subpackages are walked the same way).
    """
    found = []
    for info in pkgutil.iter_modules(__path__ if paths is None else paths, prefix):
        spec = info.module_finder.find_spec(info.name, None)  # type: ignore[call-arg]
        if spec is None or spec.origin is None:
            continue
        if info.ispkg:
            found += registering_modules(spec.submodule_search_locations, info.name + ".")
        elif spec.origin.endswith(".py") and _REGISTERS.search(Path(spec.origin).read_text(encoding="utf-8")):
            found.append(info.name)
    return sorted(found)


def import_registering_modules() -> None:
    """Import every module of this package that registers games (:func:`registering_modules`)."""
    for name in registering_modules():
        importlib.import_module(name)


registry.register_data_folder(resources.files(__name__).joinpath("data"))
registry.register_finder(import_registering_modules)
