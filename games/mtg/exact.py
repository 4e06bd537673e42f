"""Exact perfect-information play of the mini Magic game through the C search.

The search of :mod:`gamelp.games.mtg.search` with no evaluation cut-off
(``threshold=0``: every line is played to its end) is the costliest part of the
exact deck matrix (Esche 2018, ch. 2.1-2.2 and Appendix B). The compiled module
``_exact`` re-states the engine and that search in C: same state, same move
order, same "first best move" rule, so a game played by :func:`play_exact` is
the game :func:`gamelp.games.mtg.match.play_game` plays with two perfect players
and ``life_threshold=0``, at a few hundred times the speed. Its transposition
table is a fixed array (``table_bits``: 2**22 entries of 32 bytes by default)
that keeps the entries whose subtrees took the most work, and inside the tree
a player who may play a Mountain plays it first (weakly dominant; see
``_exact.c``). So the counts of nodes and leaves, and hence where the cap
falls, differ from the Python search's (the C search resolves many games the
Python search gives up on); values, and the winners of games neither search
caps, cannot.

The cap counts leaves (terminal positions) over the whole game, as the Python
players count them, and a capped game is a draw (``winner`` None).
"""

from __future__ import annotations

from typing import NamedTuple

from gamelp.games.mtg import _exact
from gamelp.games.mtg.engine import Game

DEFAULT_TABLE_BITS = 22


class ExactPlay(NamedTuple):
    """A game played exactly: the winner (None when capped or stopped early), the last turn, the
    search counts, whether the cap stopped it, and the state where play stopped."""

    winner: int | None
    turn: int
    nodes: int
    leaves: int
    capped: bool
    state: tuple


def _deal(game: Game) -> tuple[tuple[bytes, bytes], tuple[int, ...]]:
    rules = game.rules
    libraries = tuple(bytes(library) for library in game.libraries)
    return libraries, (rules.first_player_draws, rules.instant_bolts, rules.max_hand, rules.bolt_damage,
                       rules.devil_power, rules.life_payment)


def _cap(cap: int | None) -> int:
    return -1 if cap is None else cap


def exact_value(game: Game, state, cap: int | None = None,
                table_bits: int = DEFAULT_TABLE_BITS) -> tuple[int | None, int, int]:
    """(value for player 0: 1 or -1, None when capped; nodes; leaves) of ``state`` by the C search."""
    libraries, rules = _deal(game)
    return _exact.value(libraries, rules, tuple(state), _cap(cap), table_bits)


def play_exact(game: Game, state, cap: int | None = 500_000, table_bits: int = DEFAULT_TABLE_BITS,
               stop_life: int = 0) -> ExactPlay:
    """Play ``state`` on, both players choosing their first best move in move order, until the game
    ends or a player has ``stop_life`` life or less (the evaluation cut-off of
    :func:`gamelp.games.mtg.engine.at_cutoff`; 0: to the end)."""
    libraries, rules = _deal(game)
    return ExactPlay(*_exact.play(libraries, rules, tuple(state), _cap(cap), table_bits, stop_life))


def legal_moves(game: Game, state) -> tuple[str, ...]:
    """The C engine's legal moves (the tests compare them with :meth:`Game.legal_moves`)."""
    libraries, rules = _deal(game)
    return _exact.legal_moves(libraries, rules, tuple(state))


def step(game: Game, state, move: str) -> tuple:
    """The C engine's settled state after ``move`` (the tests compare it with :meth:`Game.step`)."""
    libraries, rules = _deal(game)
    return _exact.step(libraries, rules, tuple(state), move)
