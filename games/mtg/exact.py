"""Exact perfect-information play of the mini Magic game through the C search.

The search of :mod:`gamelp.games.mtg.search` with no evaluation cut-off
(``threshold=0``: every line is played to its end) is the costliest part of the
exact deck matrix (Esche 2018, ch. 2.1-2.2 and Appendix B). The compiled module
``_exact`` re-states the engine and that search in C: same state, same move
order, same "first best move" rule, so a game played by :func:`play_exact` is
the game :func:`gamelp.games.mtg.match.play_game` plays with two perfect players
and ``life_threshold=0``, at a few hundred times the speed. Its transposition
table is a fixed array (``table_bits``: 2**18 entries of 32 bytes by default,
8 MiB, which the processor's last-level cache can hold: a larger table stores a
few more positions but misses the cache on nearly every probe, and searches the
matrix's games more slowly) of main-phase positions that keeps the entries whose
subtrees took the most work; inside the tree the search tries moves in an order
of its own (the pass last: about 7 times fewer positions than the engine's
order on the matrix's games), a player who may play a Mountain plays it first
(weakly dominant) and a player who can bolt the opponent dead at once wins there
without a search; and a game is searched once for its value,
after which the losing side's first move is its first best move without a
search (see ``_exact.c``). So the counts of nodes and leaves, and hence where the cap
falls, differ from the Python search's (the C search resolves many games the
Python search gives up on); values, and the games neither search caps, cannot.

Every state field must lie in -128..127 (``KEY_MIN``..``KEY_MAX``): the table's key
holds a field in one byte, so the C glue refuses a field outside with a ValueError
naming it (and so does the Python twin). The table lives in the module's state: it is
allocated at the size the caller's ``table_bits`` asks, allocated anew when a call asks
another size, and freed with the module.

The cap counts leaves (terminal positions, and positions won at once) over the
whole game, as the Python players count them, and a capped game is a draw
(``winner`` None). :func:`gamelp.games.mtg.match.play_game` plays exact games
uncapped (every game decided); the cap serves the callers that budget a search.

The Python twin: the extension is optional (pip builds it only where it finds a C
compiler); when it cannot be imported, every function below runs the Python engine and search instead
(:func:`exact_value_python`, :func:`play_exact_python`, ...): the same values and,
for games the cap does not stop, the same games, only slower; node and leaf counts
are the Python search's. The first search says so, once per process, in one line on stderr with
what it costs (:data:`MISSING`). ``COMPILED`` tells which one runs. The tests compare the
two on random positions (tests/games/test_mtg_exact.py) and check the constants the
C source re-states (state layout, phases, moves, the rule parameters it reads)
against the Python ones.
"""

from __future__ import annotations

from typing import NamedTuple

from gamelp.games.mtg.engine import EVAL_CAP, OVER, PHASE, STATE_SIZE, TURN, Game, at_cutoff, winner
from gamelp.games.mtg.search import CapReached, Searcher
from gamelp.notices import say_once

try:
    import gamelp.games.mtg._exact as _exact

    _why = ""
except ImportError as error:  # the extension is not built: the Python twin plays instead
    _exact = None
    _why = f" ({error})"

MISSING = (
    f"the C mini Magic search (gamelp.games.mtg._exact) is not available{_why}; pip builds it only where it finds a "
    "C compiler. Exact games run on the Python search instead, about 14x slower per node and a few hundred times "
    "slower per game"
)
"""The notice, said once per process when the Python twin first searches (:func:`gamelp.notices.say_once`)."""

COMPILED = _exact is not None
"""True when the C search runs, False when its Python twin does."""

DEFAULT_TABLE_BITS = 18

KEY_MIN, KEY_MAX = -128, 127
"""The values a state field may take: the C search keys its table by a signed byte per field."""

_GAME_FIELDS = ("PHASE", "ACTIVE", "TURN", "LAND_PLAYED", "ATTACKERS", "WINNER")
_PLAYER_FIELDS = ("LIFE", "LIB", "HAND_M", "HAND_L", "HAND_C", "LANDS", "MANA", "READY", "SICK", "TAPPED")
FIELD_NAMES = _GAME_FIELDS + tuple(f"player {p}'s {name}" for p in (0, 1) for name in _PLAYER_FIELDS)
"""Each state field's name in the errors (the engine's constants; the C glue names them alike)."""

C_RULE_FIELDS = ("first_player_draws", "instant_bolts", "max_hand", "bolt_damage", "devil_power", "life_payment")
"""The :class:`~gamelp.games.mtg.engine.Rules` fields the C engine reads, in the order of its ``Rules``
struct (the other fields only shape the opening state, which Python builds)."""


class ExactPlay(NamedTuple):
    """A game played exactly.

    The winner (None when capped or stopped early), the last turn, the search counts, whether the cap stopped it, and
    the state where play stopped.
    """

    winner: int | None
    turn: int
    nodes: int
    leaves: int
    capped: bool
    state: tuple


def _deal(game: Game) -> tuple[tuple[bytes, bytes], tuple[int, ...]]:
    rules = game.rules
    libraries = tuple(bytes(library) for library in game.libraries)
    return libraries, tuple(getattr(rules, field) for field in C_RULE_FIELDS)


def _cap(cap: int | None) -> int:
    return -1 if cap is None else cap


def exact_value(
    game: Game, state, cap: int | None = None, table_bits: int = DEFAULT_TABLE_BITS
) -> tuple[int | None, int, int]:
    """(value for player 0: 1 or -1, None when capped; nodes; leaves) of ``state`` by the C search."""
    if _exact is None:
        say_once(MISSING)
        return exact_value_python(game, state, cap, table_bits)
    libraries, rules = _deal(game)
    return _exact.value(libraries, rules, tuple(state), _cap(cap), table_bits)


def play_exact(
    game: Game, state, cap: int | None = EVAL_CAP, table_bits: int = DEFAULT_TABLE_BITS, stop_life: int = 0
) -> ExactPlay:
    """Play ``state`` on, both players choosing their first best move in move order.

    Stops when the game ends or a player has ``stop_life`` life or less (the evaluation cut-off of
    :func:`gamelp.games.mtg.engine.at_cutoff`; 0: to the end).
    """
    if _exact is None:
        say_once(MISSING)
        return play_exact_python(game, state, cap, table_bits, stop_life)
    libraries, rules = _deal(game)
    return ExactPlay(*_exact.play(libraries, rules, tuple(state), _cap(cap), table_bits, stop_life))


def legal_moves(game: Game, state) -> tuple[str, ...]:
    """The C engine's legal moves (the tests compare them with :meth:`Game.legal_moves`)."""
    if _exact is None:
        return legal_moves_python(game, state)
    libraries, rules = _deal(game)
    return _exact.legal_moves(libraries, rules, tuple(state))


def step(game: Game, state, move: str) -> tuple:
    """The C engine's settled state after ``move`` (the tests compare it with :meth:`Game.step`)."""
    if _exact is None:
        return step_python(game, state, move)
    libraries, rules = _deal(game)
    return _exact.step(libraries, rules, tuple(state), move)


# ---- the Python twin -------------------------------------------------------------
def _check(state, table_bits: int | None = None) -> tuple:
    """The checks the C glue makes on its arguments, with its errors."""
    state = tuple(state)
    if len(state) != STATE_SIZE:
        raise ValueError(f"state must hold {STATE_SIZE} fields, got {len(state)}")
    for i, value in enumerate(state):
        if not KEY_MIN <= value <= KEY_MAX:
            raise ValueError(
                f"state field {i} ({FIELD_NAMES[i]}) = {value} lies outside {KEY_MIN}..{KEY_MAX}, "
                "what the table key's byte holds"
            )
    if table_bits is not None and not 4 <= table_bits <= 30:
        raise ValueError(f"table_bits must lie in 4..30, got {table_bits}")
    return state


def exact_value_python(
    game: Game, state, cap: int | None = None, table_bits: int = DEFAULT_TABLE_BITS
) -> tuple[int | None, int, int]:
    """:func:`exact_value` by the Python search (:class:`~gamelp.games.mtg.search.Searcher` with no cut-off).

    ``table_bits`` is checked and otherwise unused.
    """
    state = _check(state, table_bits)
    searcher = Searcher(game, threshold=0, cap=cap)
    try:
        value = int(searcher.value(state))
    except CapReached:
        value = None
    return value, searcher.nodes, searcher.leaves


def play_exact_python(
    game: Game, state, cap: int | None = EVAL_CAP, table_bits: int = DEFAULT_TABLE_BITS, stop_life: int = 0
) -> ExactPlay:
    """:func:`play_exact` by the Python search.

    One searcher (one table, one leaf count for the cap) for the whole game, each player taking
    :meth:`~gamelp.games.mtg.search.Searcher.best_move`.
    """
    state = list(_check(state, table_bits))
    game._settle(state)  # the C play settles its starting state too
    state = tuple(state)
    searcher = Searcher(game, threshold=0, cap=cap)
    capped = False
    while state[PHASE] != OVER and not at_cutoff(state, stop_life):
        try:
            move, _ = searcher.best_move(state)
        except CapReached:
            capped = True
            break
        state = game.step(state, move)
    return ExactPlay(winner(state), state[TURN], searcher.nodes, searcher.leaves, capped, state)


def legal_moves_python(game: Game, state) -> tuple[str, ...]:
    """:func:`legal_moves` by the Python engine."""
    return game.legal_moves(_check(state))


def step_python(game: Game, state, move: str) -> tuple:
    """:func:`step` by the Python engine, refusing an illegal move as the C engine does."""
    state = _check(state)
    if move not in game.legal_moves(state):
        raise ValueError(f"move {move} is not legal here")
    return game.step(state, move)
