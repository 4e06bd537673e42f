"""The two players' names in one place: simulator seats, sequence-form players and matrix players.

The simulators number their seats ``0`` and ``1`` (who moves first is
decided per game), the sequence-form games name their players ``1`` and ``2``
(player 1's payoff matrix ``A``, as the game files write them) and the matrix
games ``"row"`` and ``"col"`` (the row player maximises the matrix's payoffs).
The same player is seat 0, player 1 and the row player.  Every conversion
between the three, and the other player of each, is done here.
"""

from __future__ import annotations

from typing import overload

SEATS = (0, 1)
"""The simulators' seats."""
PLAYERS = (1, 2)
"""The sequence-form players."""
MATRIX_PLAYERS = ("row", "col")
"""The matrix players."""


def player_of_seat(seat: int) -> int:
    """The sequence-form player (1 or 2) of simulator seat ``seat`` (0 or 1)."""
    return PLAYERS[SEATS.index(seat)]


def seat_of_player(player: int) -> int:
    """The simulator seat (0 or 1) of sequence-form player ``player`` (1 or 2)."""
    return SEATS[PLAYERS.index(player)]


def matrix_player(player: int) -> str:
    """The matrix player (``"row"`` or ``"col"``) of sequence-form player ``player`` (1 or 2)."""
    return MATRIX_PLAYERS[PLAYERS.index(player)]


def sequence_player(player: str) -> int:
    """The sequence-form player (1 or 2) of matrix player ``player`` (``"row"`` or ``"col"``)."""
    return PLAYERS[MATRIX_PLAYERS.index(player)]


@overload
def opponent_of(player: str) -> str: ...
@overload
def opponent_of(player: int) -> int: ...
def opponent_of(player):
    """The other player, in the same naming: ``"col"`` for ``"row"``, 2 for 1 (sequence form).

    An integer is read as a sequence-form player (1 or 2); a seat's opponent is :func:`other_seat`'s.
    """
    names = MATRIX_PLAYERS if isinstance(player, str) else PLAYERS
    return names[1 - names.index(player)]


def other_seat(seat: int) -> int:
    """The other simulator seat: 1 for 0, 0 for 1."""
    return SEATS[1 - SEATS.index(seat)]
