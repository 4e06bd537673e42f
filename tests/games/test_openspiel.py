"""OpenSpiel import (gamelp.games.openspiel): values against OpenSpiel's own LP, exploitability by OpenSpiel."""

import json
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as policy_lib  # noqa: E402
from open_spiel.python.algorithms import sequence_form_lp  # noqa: E402

from gamelp.cli import main  # noqa: E402
from gamelp.game import load_game  # noqa: E402
from gamelp.games.openspiel import OpenSpielImportError, equilibrium_policy, load_openspiel  # noqa: E402
from gamelp.models.nash import solve_nash  # noqa: E402
from gamelp.regret import solve_regret  # noqa: E402

# Two poker games, a dice game and a simultaneous-move game (through the turn-based wrapper).
GAMES = ["kuhn_poker", "leduc_poker", "liars_dice(numdice=1,dice_sides=3)", "goofspiel(num_cards=3)"]


def openspiel_game(name):
    game = pyspiel.load_game(name)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    return game


@pytest.mark.parametrize("name", GAMES)
def test_value_equals_openspiels_sequence_form_lp_and_policy_is_unexploitable(name):
    game = load_openspiel(name)
    value, policy = equilibrium_policy(game)
    theirs, theirs_2, _, _ = sequence_form_lp.solve_zero_sum_game(openspiel_game(name))
    assert abs(value - theirs) < 1e-6 and abs(value + theirs_2) < 1e-6
    assert pyspiel.exploitability(game.spiel_game, policy_lib.python_policy_to_pyspiel_policy(policy)) < 1e-6
    assert abs(value - solve_nash(game, 2).value * -1) < 1e-9


def test_known_values_and_labels_keep_openspiels_strings():
    kuhn = load_openspiel("kuhn_poker")
    assert np.isclose(solve_nash(kuhn, 1).value, -1 / 18)
    assert np.isclose(solve_nash(load_openspiel("leduc_poker"), 1).value, solve_nash(load_game("leduc"), 1).value)
    assert {"0", "1pb", "2"} <= set(kuhn.pl1.decision_points) and kuhn.pl1.actions["1pb"] == ("Pass", "Bet")
    assert "1p:Bet" in kuhn.pl2.labels
    assert kuhn.histories == 58


def test_a_cfr_policy_measured_by_openspiel_matches_our_gap():
    game = load_openspiel("kuhn_poker")
    result = solve_regret(game, "pcfr+", 2000, target_gap=1e-6)
    policy = policy_lib.python_policy_to_pyspiel_policy(game.tabular_policy(result.x, result.y))
    nash_conv = pyspiel.nash_conv(game.spiel_game, policy)
    assert np.isclose(nash_conv, result.gap, atol=1e-12) and nash_conv <= 1e-6


@pytest.mark.parametrize("name, fragment", [
    ("kuhn_poker(players=3)", "3 players; only two-player games"),
    ("first_sealed_auction", "general-sum; only zero-sum games"),
    ("tiny_hanabi", "identical; only zero-sum games"),
    ("no_such_game", "OpenSpiel cannot load it"),
    ("kuhn_pokr", "no game 'kuhn_pokr'; did you mean 'kuhn_poker'"),
    ("kuhn_poker(players=x)", r"cannot load it \(Wrong type for parameter players"),
])
def test_refused_games_name_the_reason(name, fragment):
    with pytest.raises(OpenSpielImportError, match=fragment):
        load_openspiel(name)


def test_too_large_games_are_refused_with_the_histories_visited():
    with pytest.raises(OpenSpielImportError, match=r"more than 1,000 histories \(visited 1,000 before stopping\)"):
        load_openspiel("tic_tac_toe", max_histories=1000)


def test_cli_solves_and_exports_openspiel_games(tmp_path, capsys):
    assert main(["solve", "openspiel:kuhn_poker", "--behavioural", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert np.isclose(payload["value"], -1 / 18)
    assert np.isclose(payload["behavioural"]["1pb"]["Bet"], 1 / 3 + payload["behavioural"]["0"]["Bet"])
    out = tmp_path / "kuhn.json"
    assert main(["export-game", "openspiel:kuhn_poker", "-o", str(out)]) == 0
    exported = load_game(out)
    assert exported.pl1.labels == load_openspiel("kuhn_poker").pl1.labels
    assert np.isclose(solve_nash(exported, 1).value, -1 / 18)
    assert main(["solve", "openspiel:kuhn_poker(players=3)"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("game", ["openspiel:no_such_game", "openspiel:kuhn_poker(players=x)"])
def test_cli_refuses_a_bad_openspiel_game_in_one_line(game):
    """OpenSpiel's C++ prints its own error (for an unknown game, the list of every game) before raising."""
    done = subprocess.run([sys.executable, "-m", "gamelp.cli", "solve", game], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "OpenSpiel cannot load it" in done.stderr
