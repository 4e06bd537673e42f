"""One contract for the game simulators: the :class:`Engine` protocol, its registry and its conformance check.

The simulators grew apart: the mini Magic engine (:mod:`gamelp.games.mtg.engine`)
returns a new state per move, the LOCM battle (:mod:`gamelp.games.locm.engine`)
changes its state in place, and the Yu-Gi-Oh and matching-pennies games have no
move-level interface at all. An :class:`Engine` puts one interface over each, in
the spirit of OpenSpiel's ``State`` (``legal_actions``, ``apply_action``,
``is_terminal``, ``returns``, ``current_player``, ``clone``) and of PettingZoo's
``api_test``, with one difference: here the engine object holds the rules and is
stateless, and states are values that the engine maps to new values.

The contract (an engine is any object with these members; ``isinstance(x, Engine)``
checks their presence):

``name``, ``num_players``
    a short name and the number of seats (numbered 0, 1, ...).
``max_moves``
    a bound, argued from the rules, on the moves of any game (random play included).
``constant_sum``
    the sum of the returns of every finished game (0.0 for a zero-sum game), or
    None when the game is not constant-sum.
``stochastic``
    True when the seed decides something (a shuffle, a deal, chance during play):
    different seeds must then give different starts or games.
``new_game(seed) -> state``
    the start of a game; everything random in the game is drawn from ``seed``, so
    the same seed and the same moves always give the same game.
``current_player(state) -> int``
    the seat to move, or :data:`TERMINAL` once the game is over.
``legal_moves(state) -> list``
    the moves of the seat to move, in a fixed order, without repeats; never empty
    before the end, empty at the end.
``apply(state, move) -> state``
    the state after ``move``, a NEW state: ``state`` itself is left exactly as it
    was (its pickled bytes do not change); a move not in ``legal_moves`` raises
    ``ValueError``.
``is_terminal(state) -> bool``
    whether the game is over.
``returns(state) -> tuple[float, ...]``
    one payoff per seat: the result once the game is over, zeros before.
``clone(state) -> state``
    an equal state sharing nothing mutable with ``state`` (an immutable state may
    be returned as it is). An engine may name ``static_attributes``: attributes
    that are fixed for a whole game (a card table, a deal) and may be shared.

Why: one contract lets one test (:func:`check_engine`, after OpenSpiel's
``random_sim_test``) play every simulator with random moves from seeded starts and
check what every caller relies on: moves until the end, states that ``apply``
leaves alone, clones independent of their originals, games that a seed repeats,
games that end, constant-sum results. Each engine keeps its own interface; its
adapter (:mod:`gamelp.games.adapters`) translates, and changes nothing inside it.

The registry (:data:`ENGINES`, :func:`register`, :func:`make_engine`) is gamelp's
game registry (:mod:`gamelp.registry`), where every engine registers itself; the
conformance test runs over it, so a new engine is covered by registering it.
"""

from __future__ import annotations

import dataclasses
import pickle
import random
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gamelp.registry import ENGINES, engine_factory, register_engine

TERMINAL = -1
"""``current_player`` of a finished game."""


@runtime_checkable
class Engine(Protocol):
    """A game simulator under one contract (see the module docstring)."""

    name: str
    num_players: int
    max_moves: int
    constant_sum: float | None
    stochastic: bool

    def new_game(self, seed: int) -> Any:
        """The start of a game; every random draw of the game comes from ``seed``."""

    def current_player(self, state) -> int:
        """The seat to move, or :data:`TERMINAL` once the game is over."""

    def legal_moves(self, state) -> list:
        """The moves of the seat to move, in a fixed order: empty only at the end."""

    def apply(self, state, move) -> Any:
        """The state after ``move``; ``state`` itself is left unchanged."""

    def is_terminal(self, state) -> bool:
        """True once the game is over."""

    def returns(self, state) -> tuple[float, ...]:
        """One payoff per seat: the result once the game is over, zeros before."""

    def clone(self, state) -> Any:
        """An equal state sharing nothing mutable with ``state``."""


# ---- the registry -----------------------------------------------------------------------------------------------
# The engines are gamelp's game registry's (:mod:`gamelp.registry`): each adapter registers itself where it is
# defined (``@register_engine(NAME)``), and the command line, the tests and :func:`make_engine` find it there.
register = register_engine
"""Add an engine to the registry (and so to the conformance test); a name is registered once."""


def make_engine(name: str) -> Engine:
    """A new instance of the registered engine ``name``."""
    factory = engine_factory(name)
    if factory is None:
        raise KeyError(f"no engine named {name!r}; registered: {', '.join(ENGINES)}")
    engine = factory()
    if not isinstance(engine, Engine):
        raise TypeError(f"the factory of engine {name!r} made {engine!r}, which lacks members of Engine")
    return engine


# ---- deep, structural views of a state ----------------------------------------------------------------------------
_SCALARS = (type(None), bool, int, float, complex, str, bytes)


def _attributes(obj) -> list[tuple[str, Any]]:
    """The attributes of an object: its ``__dict__`` and every ``__slots__`` entry that is set."""
    names = list(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    seen, out = set(), []
    for name in names:
        if name in seen or name in ("__dict__", "__weakref__"):
            continue
        seen.add(name)
        try:
            out.append((name, getattr(obj, name)))
        except AttributeError:  # an unset slot
            continue
    return out


def snapshot(obj, _depth: int = 0) -> Hashable:
    """A deep, structural, hashable image of ``obj``: equal for equal states, whatever objects they share.

    Follows tuples, lists, dicts, sets, numpy arrays, random generators (their
    state) and the attributes of other objects (``__dict__`` and ``__slots__``).
    """
    if _depth > 60:
        raise RecursionError("snapshot: the state is nested too deeply (a cycle?)")
    if isinstance(obj, _SCALARS):
        return obj
    kind = type(obj)
    if kind in (tuple, list):
        if all(type(x) in _SCALARS for x in obj):
            return kind.__name__, tuple(obj)
        return kind.__name__, tuple(snapshot(x, _depth + 1) for x in obj)
    if isinstance(obj, tuple):  # named tuples
        return kind.__qualname__, tuple(snapshot(x, _depth + 1) for x in obj)
    if isinstance(obj, dict):
        return "dict", tuple((snapshot(k, _depth + 1), snapshot(v, _depth + 1)) for k, v in obj.items())
    if isinstance(obj, (set, frozenset)):
        return kind.__name__, tuple(sorted((snapshot(x, _depth + 1) for x in obj), key=repr))
    if isinstance(obj, np.ndarray):
        return "ndarray", obj.dtype.str, obj.shape, obj.tobytes()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.random.Generator):
        return "Generator", snapshot(obj.bit_generator.state, _depth + 1)
    if isinstance(obj, random.Random):
        return "Random", obj.getstate()
    if callable(obj) and not _attributes(obj):
        return "callable", getattr(obj, "__qualname__", repr(obj))
    return kind.__qualname__, tuple((name, snapshot(value, _depth + 1)) for name, value in _attributes(obj))


def _is_mutable(obj) -> bool:
    if isinstance(obj, (list, dict, set, bytearray, np.random.Generator, random.Random)):
        return True
    if isinstance(obj, np.ndarray):
        return bool(obj.flags.writeable)
    if isinstance(obj, _SCALARS + (tuple, frozenset, np.generic)):
        return False
    if dataclasses.is_dataclass(obj) and obj.__dataclass_params__.frozen:
        return False
    return bool(_attributes(obj))


def _mutable_parts(obj, static: Iterable[str] = ()) -> dict[int, tuple[str, Any]]:
    """Id -> (path, object) of every mutable object reachable from ``obj``, not entering ``static`` attributes."""
    static = frozenset(static)
    found: dict[int, tuple[str, Any]] = {}
    seen: set[int] = set()
    stack = [("state", obj)]
    while stack:
        path, item = stack.pop()
        if id(item) in seen or isinstance(item, _SCALARS):
            continue
        seen.add(id(item))
        if _is_mutable(item):
            found[id(item)] = (path, item)
        if isinstance(item, (np.ndarray, np.generic, np.random.Generator, random.Random)):
            continue  # leaves: an array's elements (object arrays aside) and a generator's state are inside it
        if isinstance(item, tuple) and hasattr(item, "_fields"):  # a named tuple: its fields are attributes
            stack.extend((f"{path}.{name}", x) for name, x in zip(item._fields, item) if name not in static)
        elif isinstance(item, (list, tuple)):
            stack.extend((f"{path}[{i}]", x) for i, x in enumerate(item))
        elif isinstance(item, dict):
            stack.extend((f"{path}[{k!r}]", v) for k, v in item.items())
        elif isinstance(item, (set, frozenset)):
            stack.extend((f"{path}{{}}", x) for x in item)
        else:
            stack.extend((f"{path}.{name}", value) for name, value in _attributes(item) if name not in static)
    return found


def shared_mutable_parts(state, other, static: Iterable[str] = ()) -> list[str]:
    """Paths (in ``other``) of the mutable objects that ``other`` shares with ``state``."""
    mine = _mutable_parts(state, static)
    return sorted(path for key, (path, _) in _mutable_parts(other, static).items() if key in mine)


# ---- the conformance check ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Playout:
    """One random game: its seed, the moves played, the returns, and the final state's :func:`snapshot`."""

    seed: int
    moves: tuple
    returns: tuple[float, ...]
    final: Hashable


def _pickled(state) -> bytes:
    return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


def check_clone(engine: Engine, state) -> None:
    """A clone equals its original and shares nothing mutable with it (``static_attributes`` aside)."""
    twin = engine.clone(state)
    assert snapshot(twin) == snapshot(state), f"{engine.name}: a clone differs from its original"
    shared = shared_mutable_parts(state, twin, getattr(engine, "static_attributes", ()))
    assert not shared, f"{engine.name}: a clone shares mutable parts with its original: {', '.join(shared[:5])}"


def random_playout(
    engine: Engine, seed: int, max_moves: int | None = None, checks: bool = True, clone_every: int = 10
) -> Playout:
    """Play one game from ``new_game(seed)`` with moves drawn by ``random.Random(seed)``.

    With ``checks``, asserts along the way: the seat to move is a seat; the legal moves
    are non-empty and without repeats before the end and empty at the end; ``apply``
    leaves its argument's pickled bytes unchanged; a clone of the first states and of
    every ``clone_every``-th one after is independent (:func:`check_clone`); returns are
    zeros before the end and sum to ``constant_sum`` at the end; the game ends within
    ``max_moves`` moves (default: the engine's ``max_moves``).
    """
    bound = engine.max_moves if max_moves is None else max_moves
    name = engine.name
    chooser = random.Random(seed)
    state = engine.new_game(seed)
    played = []
    while not engine.is_terminal(state):
        assert len(played) < bound, f"{name}: seed {seed}: no end within {bound} moves"
        player = engine.current_player(state)
        moves = engine.legal_moves(state)
        if checks:
            assert 0 <= player < engine.num_players, f"{name}: seed {seed}: seat {player} is to move"
            assert len(moves) > 0, f"{name}: seed {seed}: no legal move after {len(played)} moves, before the end"
            assert len({repr(m) for m in moves}) == len(moves), f"{name}: seed {seed}: repeated legal moves"
            assert all(r == 0 for r in engine.returns(state)), f"{name}: seed {seed}: returns before the end"
            if len(played) < 5 or len(played) % clone_every == 0:
                check_clone(engine, state)
            before = _pickled(state)
        move = moves[chooser.randrange(len(moves))]
        following = engine.apply(state, move)
        if checks:
            assert _pickled(state) == before, f"{name}: seed {seed}: apply({move!r}) changed the state it was given"
        played.append(move)
        state = following
    returns = tuple(engine.returns(state))
    if checks:
        assert engine.current_player(state) == TERMINAL, f"{name}: seed {seed}: a seat is to move after the end"
        assert list(engine.legal_moves(state)) == [], f"{name}: seed {seed}: legal moves after the end"
        assert len(returns) == engine.num_players, f"{name}: seed {seed}: {len(returns)} returns"
        if engine.constant_sum is not None:
            assert abs(sum(returns) - engine.constant_sum) < 1e-9, (
                f"{name}: seed {seed}: returns {returns} do not sum to {engine.constant_sum}"
            )
    return Playout(seed, tuple(played), returns, snapshot(state))


def check_engine(engine: Engine, seeds: Iterable[int] = range(4), max_moves: int | None = None) -> list[Playout]:
    """The conformance check of ``engine``, after OpenSpiel's ``random_sim_test``; raises AssertionError.

    For each seed: a checked random playout (:func:`random_playout`), then the same seed
    again, which must give the same game (moves, returns, final state). A stochastic
    engine must give different starts for different seeds. Returns the playouts.
    """
    assert isinstance(engine, Engine), f"{engine!r} lacks members of the Engine protocol"
    seeds = list(seeds)
    playouts = []
    for seed in seeds:
        first = random_playout(engine, seed, max_moves)
        again = random_playout(engine, seed, max_moves, checks=False)
        assert (first.moves, first.returns) == (again.moves, again.returns), (
            f"{engine.name}: seed {seed} gave two different games"
        )
        assert first.final == again.final, f"{engine.name}: seed {seed} gave two different final states"
        playouts.append(first)
    if engine.stochastic and len(seeds) > 1:
        starts = {snapshot(engine.new_game(seed)) for seed in seeds}
        assert len(starts) > 1, f"{engine.name}: seeds {seeds} all give the same start: the seed is ignored"
    return playouts
