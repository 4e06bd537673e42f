"""The poker generator's arrays (games.poker.leduc_arrays): the very game its node walk makes, node for node."""

from dataclasses import replace

import numpy as np
import pytest

from gamelp.game import SequenceFormGame, load_game
from gamelp.games import poker


def _nodes(treeplex):
    return dict(treeplex.points)


VARIANTS = {
    "kuhn": poker.KUHN_RULES,
    "kuhn with 5 cards": replace(poker.KUHN_RULES, ranks=5),
    "leduc": poker.LEDUC_RULES,
    "3 ranks, 1 suit": replace(poker.LEDUC_RULES, suits=1),
    # two ranks of two cards in three rounds: after a public card like its own, one rank is left for the next,
    # so that deal is no observation node and the next decision hangs from the edge above
    "2 ranks x 2 suits, 3 rounds": replace(poker.LEDUC_RULES, ranks=2, raise_sizes=(2, 4, 4)),
    "4 x 3, 3 raises, ante 2": replace(poker.LEDUC_RULES, ranks=4, suits=3, raise_sizes=(1, 3), max_raises=3, ante=2),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_arrays_are_the_game_of_the_node_walk(variant):
    rules = VARIANTS[variant]
    ours = SequenceFormGame.from_arrays(poker._ArrayGame(rules).arrays(), variant)
    theirs = SequenceFormGame.from_dict(rules.game(), variant)
    for mine, walked in ((ours.pl1, theirs.pl1), (ours.pl2, theirs.pl2)):
        assert _nodes(mine) == _nodes(walked)
        assert sorted(mine.labels) == sorted(walked.labels)
    rows = np.array([theirs.pl1.index[s] for s in ours.pl1.sequences])
    cols = np.array([theirs.pl2.index[s] for s in ours.pl2.sequences])
    assert (theirs.A[rows][:, cols] != ours.A).nnz == 0  # bit for bit: both sum the chances exactly
    assert ours.action_names == theirs.action_names


def test_leduc_arrays_written_and_read_is_leducs_value(tmp_path):
    from gamelp.models.nash import solve_equilibrium

    path = tmp_path / "leduc.npz"
    poker.save_arrays(poker.leduc_arrays(), path)
    assert solve_equilibrium(load_game(path)).value == pytest.approx(-0.0856064, abs=1e-6)


def test_leduc_arrays_refuses_rules_as_leduc_does():
    with pytest.raises(poker.PokerRulesError, match="at least 2"):
        poker.leduc_arrays(raise_sizes=(2,))
    with pytest.raises(poker.PokerRulesError, match="fewer than the 4 cards dealt"):
        poker.leduc_arrays(ranks=3, suits=1, raise_sizes=(2, 4, 4))


def test_the_generator_writes_a_binary_variant(tmp_path, capsys):
    assert poker.main([str(tmp_path), "--leduc-ranks", "4", "--binary"]) == 0
    out = capsys.readouterr().out
    path = tmp_path / "leduc_r4_s2_m2_b2-4_a1.npz"
    game = load_game(path)
    assert f"{path}: player 1 {game.pl1.num_decision_points} decision points / {game.pl1.num_sequences - 1} " in out
    assert f"{game.A.nnz} payoff entries" in out
