"""OpenSpiel import (gamelp.games.openspiel): values against OpenSpiel's own LP, exploitability by OpenSpiel."""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import deep_efg

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


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("kuhn_poker(players=3)", "3 players; only two-player games"),
        ("first_sealed_auction", "general-sum; only zero-sum games"),
        ("tiny_hanabi", "identical; only zero-sum games"),
        ("no_such_game", "OpenSpiel cannot load it"),
        ("kuhn_pokr", "no game 'kuhn_pokr'; did you mean 'kuhn_poker'"),
        ("kuhn_poker(players=x)", r"cannot load it \(Wrong type for parameter players"),
    ],
)
def test_refused_games_name_the_reason(name, fragment):
    with pytest.raises(OpenSpielImportError, match=fragment):
        load_openspiel(name)


def test_too_large_games_are_refused_with_the_histories_visited():
    # Leduc has 9,457 histories: within the estimate's margin of 1,000, so the walk itself stops it.
    with pytest.raises(OpenSpielImportError, match=r"more than 1,000 histories \(visited 1,000 before stopping\)"):
        load_openspiel("leduc_poker", max_histories=1000)


@pytest.mark.parametrize("name", ["chess", "go", "tic_tac_toe"])
def test_games_far_too_large_are_refused_up_front_with_their_estimated_size(name):
    """Chess is two-player zero-sum, but not small: refused from a few random playouts, within seconds."""
    limit = 1000 if name == "tic_tac_toe" else 2_000_000  # tic-tac-toe: 549,946 histories, far beyond 1,000
    started = time.perf_counter()
    with pytest.raises(
        OpenSpielImportError,
        match=rf"openspiel:{name}: too large to enumerate: an estimated "
        rf"[\d.e+]+ histories or more \(random playouts\), beyond the "
        rf"{limit:,} gamelp enumerates",
    ):
        load_openspiel(name, max_histories=limit)
    assert time.perf_counter() - started < 10


def test_the_size_estimate_is_close_on_a_game_of_known_size():
    from gamelp.games.openspiel import estimate_histories, load_spiel_game

    estimate = estimate_histories(load_spiel_game("tic_tac_toe"), 10**9)
    assert 549_946 / 3 < estimate < 549_946 * 3


def test_a_deep_game_is_walked_without_recursion(tmp_path):
    """OpenSpiel's own .efg reader gives a 3,000-move game: the walk is deeper than Python's recursion limit."""
    path = tmp_path / "deep.efg"
    path.write_text(deep_efg(3000))
    game = load_openspiel(f"efg_game(filename={path})")
    assert game.pl1.num_decision_points == 3001 and np.isclose(solve_nash(game, 1).value, 3000)


def test_export_of_a_game_far_too_large_is_refused_up_front(tmp_path, capsys):
    started = time.perf_counter()
    assert main(["export-game", "openspiel:chess", "-o", str(tmp_path / "chess.efg")]) == 2
    assert "too large to enumerate: an estimated" in capsys.readouterr().err
    assert time.perf_counter() - started < 10 and not (tmp_path / "chess.efg").exists()


@pytest.mark.parametrize("kind", ["fifo", "directory", "missing"])
def test_a_game_file_named_in_the_game_string_must_be_a_regular_file(tmp_path, kind):
    path = tmp_path / "game.efg"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    with pytest.raises(OpenSpielImportError, match=f"openspiel:efg_game\\(filename={path}\\): {path}: cannot read"):
        load_openspiel(f"efg_game(filename={path})")


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


@pytest.mark.parametrize(
    "game", ["openspiel:no_such_game", "openspiel:kuhn_poker(players=x)", "openspiel:nfg_game", "openspiel:efg_game"]
)
def test_cli_refuses_a_bad_openspiel_game_in_one_line(game):
    """OpenSpiel's C++ prints its own error (for an unknown game, the list of every game) before raising."""
    done = subprocess.run([sys.executable, "-m", "gamelp.cli", "solve", game], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "OpenSpiel cannot load it" in done.stderr


def test_a_deeply_nested_game_string_is_refused_before_openspiel_parses_it():
    """OpenSpiel's game-string parser recurses: 20,000 nested games crashed the process (signal 11)."""
    code = (
        "import sys\nfrom gamelp.games.openspiel import OpenSpielImportError, load_openspiel\n"
        "try:\n    load_openspiel('turn_based_simultaneous_game(game=' * 20000 + 'matrix_rps' + ')' * 20000)\n"
        "except OpenSpielImportError as exc:\n    print(str(exc)[-80:])\n    sys.exit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr[-500:]
    assert "brackets nested 20000 deep, more than the 100 a game string may have" in done.stdout


def test_nfg_game_without_a_file_is_one_line_naming_the_game_string(capsys):
    """Issue 45: OpenSpiel's nfg_game without filename raises IndexError (map::at), not SpielError: a traceback."""
    with pytest.raises(OpenSpielImportError, match=r"^openspiel:nfg_game: OpenSpiel cannot load it \(IndexError: "):
        load_openspiel("nfg_game")
    assert main(["solve", "openspiel:nfg_game", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "openspiel:nfg_game: " in captured.err


# P2 picks x or y; then P1 has two actions both named "a", worth 0 and 5: the game is worth 5.
DUPLICATE_ACTIONS_EFG = """EFG 2 R "duplicate action names" { "P1" "P2" } ""
p "" 2 1 "" { "x" "y" } 0
p "" 1 1 "" { "a" "a" } 0
t "" 1 "" { 0, 0 }
t "" 2 "" { 5, -5 }
p "" 1 2 "" { "a" "a" } 0
t "" 1 "" { 0, 0 }
t "" 2 "" { 5, -5 }
"""


def test_efg_games_merging_actions_named_alike_are_refused(tmp_path, capsys):
    """Issue 45: OpenSpiel's efg_game gives both actions "a" one id (one child): the game read was worth 0, not 5."""
    path = tmp_path / "duplicate.efg"
    path.write_text(DUPLICATE_ACTIONS_EFG)
    with pytest.raises(OpenSpielImportError, match=r"lists action 2 \('a'\) twice .*read the .efg file itself"):
        load_openspiel(f"efg_game(filename={path})")
    assert main(["solve", f"openspiel:efg_game(filename={path})"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert np.isclose(solve_nash(load_game(path), 1).value, 5)  # the .efg reader keeps them apart


class _NamedAlike:
    """A stand-in OpenSpiel state: player 2 picks x or y, then player 1 picks one of two actions named "a"."""

    def __init__(self, history=()):
        self.history = history

    def is_terminal(self):
        return len(self.history) == 2

    def is_chance_node(self):
        return False

    def current_player(self):
        return 1 - len(self.history)

    def information_state_string(self, player):
        return "".join(map(str, self.history[: 2 - player]))

    def legal_actions(self, player):
        return [0, 1]

    def action_to_string(self, player, action):
        return "xy"[action] if player == 1 else "a"

    def child(self, action):
        return _NamedAlike((*self.history, action))

    def returns(self):
        return [5.0 * self.history[1], -5.0 * self.history[1]]


def test_actions_of_distinct_ids_named_alike_are_kept_apart():
    """Issue 45: the import keyed actions by name, so two OpenSpiel actions named "a" merged (worth 0, not 5)."""
    from gamelp.game import SequenceFormGame
    from gamelp.games.openspiel import _Walk

    walk = _Walk("openspiel:named_alike", 100)
    walk.run(_NamedAlike())
    game = SequenceFormGame(*walk.builder.build(), "named_alike")
    assert set(game.pl1.actions.values()) == {("1:a", "2:a")} and walk.action_ids[(0, "0")] == {"1:a": 0, "2:a": 1}
    assert np.isclose(solve_nash(game, 1).value, 5)


def test_a_file_named_in_the_game_string_is_read_under_gamelps_cap(tmp_path, monkeypatch):
    """Issue 45: filename= was only checked to be a regular file; gamelp's text-file cap and UTF-8 check apply."""
    import gamelp.io

    path = tmp_path / "game.efg"
    path.write_text(DUPLICATE_ACTIONS_EFG)
    monkeypatch.setattr(gamelp.io, "MAX_TEXT_BYTES", len(DUPLICATE_ACTIONS_EFG) - 1)
    with pytest.raises(OpenSpielImportError, match=rf"^openspiel:efg_game\(filename={path}\): {path}: larger than"):
        load_openspiel(f"efg_game(filename={path})")
    monkeypatch.undo()
    path.write_bytes(DUPLICATE_ACTIONS_EFG.replace("P1", "P\xe9").encode("latin-1"))
    with pytest.raises(OpenSpielImportError, match="not a text file"):
        load_openspiel(f"efg_game(filename={path})")
