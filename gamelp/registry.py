"""The game registry: every game, simulator and game file format gamelp knows by name, registered by its own module.

Games register themselves, as OpenSpiel's do with ``register_game``: the module
that defines a game calls one of these at import (each also works as a decorator),
and the core, the command line and the tests find it here by name; the core
itself names no game.

* :func:`register_game` ``(name, load)``: a sequence-form game ``load() ->
  SequenceFormGame``, loaded by ``load_game(name)`` and ``gamelp solve name``.
  With ``variants=True``, a family of games ``name:VARIANT``: ``load(variant)``
  gets the text after the colon (``leduc:13x4``, ``openspiel:kuhn_poker``).
* :func:`register_engine` ``(name, factory)``: a simulator under the Engine
  protocol of :mod:`gamelp.games.engine` (``factory()`` makes it), which the
  conformance test plays.
* :func:`register_reader` ``(suffix, read, kind)``: files ``*.suffix`` read as a
  sequence-form game (``kind="game"``, :func:`gamelp.game.load_game`) or a
  matrix game (``kind="matrix"``, :meth:`gamelp.matrix.MatrixGame.load`);
  :func:`register_writer` ``(suffix, write)``: ``write(source, path) -> summary``
  for ``gamelp export-game SOURCE -o FILE.suffix``.
* :func:`register_data_folder`: the folder of shipped data files: its
  ``NAME.json`` are sequence-form games by name, its ``NAME_payoffs.csv``
  matrices (:func:`shipped_data`).

A name is registered once: a second registration of the same name (of the same
kind) raises ``ValueError``.

Where registrations come from: on first use the registry imports the packages of
the entry-point group :data:`PLUGIN_GROUP` (gamelp's games layer is one, declared
in ``pyproject.toml``; another package registers its games the same way).  A
package may add a *finder* (:func:`register_finder`), called once when a name is
not registered: the games layer's imports those of its modules that register
something, so that adding a game to it is adding one file.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from gamelp.errors import GamelpError

if TYPE_CHECKING:
    from gamelp.game import SequenceFormGame

PLUGIN_GROUP = "gamelp.plugins"
"""The entry-point group of packages that register games; each is imported on the registry's first use."""

ReaderKind = Literal["game", "matrix"]
F = TypeVar("F", bound=Callable[..., Any])

GAMES: dict[str, Callable[[], SequenceFormGame]] = {}
"""Name -> a loader of a sequence-form game (no arguments)."""
FAMILIES: dict[str, Callable[[str], SequenceFormGame]] = {}
"""Name -> a loader of the games ``NAME:VARIANT`` (gets VARIANT)."""
ENGINES: dict[str, Callable[[], Any]] = {}
"""Name -> a factory (no arguments) of a simulator under the Engine protocol."""
READERS: dict[ReaderKind, dict[str, Callable[[str], Any]]] = {"game": {}, "matrix": {}}
"""Kind -> file suffix (no dot, lower case) -> a reader of such files (gets the file name)."""
WRITERS: dict[str, Callable[[str, str], str]] = {}
"""File suffix -> ``write(source, path) -> summary``: a game written in that format."""
_DATA_FOLDERS: list[Traversable] = []
_FINDERS: list[Callable[[], None]] = []
_state = {"plugins": False, "found": False}
log = logging.getLogger(__name__)


def _add(table: dict, name: str, value, what: str) -> None:
    if name in table:
        raise ValueError(f"{what} named {name!r} is registered already")
    table[name] = value


def _registrar(table: dict, name: str, value, what: str):
    """Register ``value``, or return a decorator that registers what it decorates (and returns it unchanged)."""
    if value is not None:
        _add(table, name, value, what)
        return value

    def decorate(function):
        _add(table, name, function, what)
        return function

    return decorate


@overload
def register_game(name: str, load: None = None, *, variants: bool = False) -> Callable[[F], F]: ...
@overload
def register_game(name: str, load: F, *, variants: bool = False) -> F: ...
def register_game(name, load=None, *, variants=False):
    """Register a sequence-form game ``name`` (``load()``), or with ``variants`` the family ``name:VARIANT``.

    Returns ``load``; without it, a decorator.
    """
    if ":" in name or not name:
        raise ValueError(f"a game name is a non-empty word without ':', got {name!r}")
    return _registrar(FAMILIES if variants else GAMES, name, load, "a game family" if variants else "a game")


@overload
def register_engine(name: str, factory: None = None) -> Callable[[F], F]: ...
@overload
def register_engine(name: str, factory: F) -> F: ...
def register_engine(name, factory=None):
    """Register a simulator ``name`` made by ``factory()`` (an Engine-protocol class, say); without it, a decorator."""
    return _registrar(ENGINES, name, factory, "an engine")


def register_reader(suffix: str, read: Callable[[str], Any], kind: ReaderKind) -> None:
    """Read files ``*.suffix`` with ``read(file name)``: a ``SequenceFormGame`` (kind game) or a ``MatrixGame``."""
    _add(READERS[kind], _suffix_key(suffix), read, f"a {kind} reader for the suffix")


def register_writer(suffix: str, write: Callable[[str, str], str]) -> None:
    """Write games as files ``*.suffix`` with ``write(source, path) -> one-line summary``."""
    _add(WRITERS, _suffix_key(suffix), write, "a writer for the suffix")


def register_data_folder(folder: Traversable) -> None:
    """Add a folder of shipped data files (``NAME.json`` games, ``NAME_payoffs.csv`` matrices)."""
    if folder not in _DATA_FOLDERS:
        _DATA_FOLDERS.append(folder)


def register_finder(find: Callable[[], None]) -> None:
    """Add ``find()``, called once when a name is not registered, to import the modules that register more."""
    _FINDERS.append(find)


# ---- look-ups ---------------------------------------------------------------------------------------------------
def load_plugins() -> None:
    """Import the packages of :data:`PLUGIN_GROUP` (once): their imports register their games."""
    if _state["plugins"]:
        return
    _state["plugins"] = True
    from importlib.metadata import entry_points

    for point in entry_points(group=PLUGIN_GROUP):
        point.load()


def _find_more() -> None:
    """Run the finders (once): a name was asked for that no module imported so far registers."""
    load_plugins()
    if not _state["found"]:
        _state["found"] = True
        for find in list(_FINDERS):
            find()


def _lookup(table: dict, key: str):
    load_plugins()
    if key not in table:
        _find_more()
    return table.get(key)


def game(name: str) -> Callable[[], SequenceFormGame] | None:
    """The loader of the registered game ``name``, or None."""
    return _lookup(GAMES, name)


def family(name: str) -> Callable[[str], SequenceFormGame] | None:
    """The loader of the game family ``name`` (of sources ``name:VARIANT``), or None."""
    return _lookup(FAMILIES, name)


def engine_factory(name: str) -> Callable[[], Any] | None:
    """The factory of the registered simulator ``name``, or None."""
    return _lookup(ENGINES, name)


def reader(file_name: str, kind: ReaderKind) -> Callable[[str], Any] | None:
    """The reader registered for ``file_name``'s suffix and ``kind``, or None (also for a name without suffix)."""
    suffix = Path(file_name).suffix
    return _lookup(READERS[kind], _suffix_key(suffix)) if suffix else None


def writer(file_name: str) -> Callable[[str, str], str] | None:
    """The writer registered for ``file_name``'s suffix, or None."""
    suffix = Path(file_name).suffix
    return _lookup(WRITERS, _suffix_key(suffix)) if suffix else None


def shipped_data() -> Traversable:
    """The folder of the shipped data files: the one the games registered (:func:`register_data_folder`)."""
    load_plugins()
    if not _DATA_FOLDERS:
        raise GamelpError(f"no package registered a data folder (entry-point group {PLUGIN_GROUP!r}): reinstall gamelp")
    return _DATA_FOLDERS[0]


def game_names() -> tuple[str, ...]:
    """Every name ``load_game`` takes as a game, sorted: registered games and the data folder's ``NAME.json``."""
    _find_more()
    shipped = (entry.name.removesuffix(".json") for entry in shipped_data().iterdir() if entry.name.endswith(".json"))
    return tuple(sorted({*GAMES, *shipped}))


def engine_names() -> tuple[str, ...]:
    """Every registered simulator, sorted."""
    _find_more()
    return tuple(sorted(ENGINES))


def _suffix_key(suffix: str) -> str:
    return suffix.lower().lstrip(".")
