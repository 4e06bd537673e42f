"""The players' names (gamelp.players): seat 0 is player 1 is the row player, and each has one opponent."""

import pytest

from gamelp.players import (
    matrix_player,
    opponent_of,
    other_seat,
    player_of_seat,
    seat_of_player,
    sequence_player,
)


def test_the_three_namings_convert_both_ways():
    assert [player_of_seat(s) for s in (0, 1)] == [1, 2] and [seat_of_player(p) for p in (1, 2)] == [0, 1]
    assert [matrix_player(p) for p in (1, 2)] == ["row", "col"] and [sequence_player(m) for m in ("row", "col")] == [
        1,
        2,
    ]


def test_each_player_has_one_opponent_in_its_own_naming():
    assert [opponent_of(p) for p in (1, 2, "row", "col")] == [2, 1, "col", "row"]
    assert [other_seat(s) for s in (0, 1)] == [1, 0]


@pytest.mark.parametrize(
    "convert, bad", [(player_of_seat, 2), (seat_of_player, 0), (opponent_of, 3), (matrix_player, "row")]
)
def test_a_name_of_no_player_is_refused(convert, bad):
    with pytest.raises(ValueError):
        convert(bad)
