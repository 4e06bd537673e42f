"""The game registry (gamelp.registry): a game registers itself in its own module and every command finds it by name.

The toy game below is the whole of what adding a game takes: a module that
registers a loader.  The command line then solves, validates and exports it by
name, and a module dropped into the games package is found without any other
edit.  The built-in registrations (the Leduc and Kuhn variants, Gambit's two
formats, the engines) are checked against what they replaced.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from gamelp import load_game, registry
from gamelp.cli import main
from gamelp.errors import GamelpError
from gamelp.game import SequenceFormGame
from gamelp.matrix import MatrixGame

# A toy sequence-form game: both players pick heads or tails at once; player 1 wins 2 on two heads, 1 on two tails,
# and loses 1 otherwise. Its value is (2 * 1 - 1 * 1) / (2 + 1 + 1 + 1) = 0.2.
TOY = {
    "decision_problem_pl1": [
        {"id": "d_pl1", "type": "decision", "actions": ["h", "t"], "parent_edge": None, "parent_sequence": None}
    ],
    "decision_problem_pl2": [
        {"id": "d_pl2", "type": "decision", "actions": ["h", "t"], "parent_edge": None, "parent_sequence": None}
    ],
    "utility_pl1": [
        {"sequence_pl1": ["d_pl1", a], "sequence_pl2": ["d_pl2", b], "value": value}
        for a, b, value in (("h", "h", 2), ("h", "t", -1), ("t", "h", -1), ("t", "t", 1))
    ],
}


@pytest.fixture
def toy():
    """The toy game, registered as ``toy`` as a game module would register it, and unregistered afterwards."""

    @registry.register_game("toy")
    def load_toy() -> SequenceFormGame:
        return SequenceFormGame.from_dict(TOY, "toy")

    yield load_toy
    del registry.GAMES["toy"]


def test_a_registered_toy_game_is_solved_by_name_on_the_command_line(toy, capsys):
    assert main(["solve", "toy", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["value"] == pytest.approx(0.2)
    assert load_game("toy").name == "toy" and "toy" in registry.game_names()


def test_the_other_game_commands_take_the_registered_name_too(toy, tmp_path, capsys):
    assert main(["validate", "toy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["players"]["1"] == {"decision_points": 1, "sequences": 3}
    assert main(["export-game", "toy", "-o", str(tmp_path / "toy.json")]) == 0
    assert abs(load_game(tmp_path / "toy.json").A - toy().A).max() == 0
    assert main(["solve", "toi"]) == 2
    assert "toi: no such file or built-in game; did you mean 'toy'?" in capsys.readouterr().err


def test_a_name_is_registered_once(toy):
    with pytest.raises(ValueError, match="a game named 'toy' is registered already"):
        registry.register_game("toy", toy)
    with pytest.raises(ValueError, match="a game family named 'leduc' is registered already"):
        registry.register_game("leduc", toy, variants=True)
    with pytest.raises(ValueError, match="without ':'"):
        registry.register_game("toy:2", toy)


GAME_MODULE = '''"""A game in one file: it registers itself, and nothing else names it."""

from gamelp.game import SequenceFormGame
from gamelp.registry import register_game


@register_game("dropped")
def dropped():
    return SequenceFormGame.from_dict({toy!r}, "dropped")
'''


def test_a_game_module_dropped_into_the_games_package_is_found_by_name(tmp_path, monkeypatch):
    """Adding a game to the games layer is adding one file: the games' finder imports the modules that register."""
    import gamelp.games

    (tmp_path / "dropped_game.py").write_text(GAME_MODULE.format(toy=TOY), encoding="utf-8")
    (tmp_path / "not_a_game.py").write_text("raise AssertionError('imported')\n", encoding="utf-8")
    monkeypatch.setattr(gamelp.games, "__path__", [*gamelp.games.__path__, str(tmp_path)])
    monkeypatch.setitem(registry._state, "found", False)  # as in a fresh process: the finder has not run
    try:
        assert "gamelp.games.dropped_game" in gamelp.games.registering_modules()
        assert "gamelp.games.not_a_game" not in gamelp.games.registering_modules()
        assert load_game("dropped").name == "dropped"
    finally:
        registry.GAMES.pop("dropped", None)
        sys.modules.pop("gamelp.games.dropped_game", None)


def test_the_games_layer_registers_its_games_simulators_and_formats():
    from gamelp.games import gambit, openspiel, poker
    from gamelp.games.engine import ENGINES

    assert registry.game_names() == ("kuhn", "leduc", "rps")
    assert registry.engine_names() == ("locm", "mtg", "pennies", "rps", "yugioh") and ENGINES is registry.ENGINES
    assert {
        "kuhn": poker.kuhn_variant,
        "leduc": poker.leduc_variant,
        "openspiel": openspiel.load_openspiel,
    } == registry.FAMILIES
    assert {"game": {"efg": gambit.read_efg}, "matrix": {"nfg": gambit.read_nfg}} == registry.READERS
    assert {"efg": gambit.write_efg} == registry.WRITERS


@pytest.mark.parametrize(
    "source, expected",
    [
        ("leduc:4x2", lambda poker: poker.leduc(ranks=4, suits=2)),
        ("leduc:3x2", lambda poker: poker.leduc()),
        ("leduc:3x2x3", lambda poker: poker.leduc(ranks=3, suits=2, raise_sizes=(2, 4, 4))),
        ("kuhn:4", lambda poker: poker.kuhn(4)),
    ],
)
def test_a_variant_string_loads_the_generated_game(source, expected):
    from gamelp.games import poker

    game = load_game(source)
    assert game.name == source
    assert abs(game.A - SequenceFormGame.from_dict(expected(poker)).A).max() == 0


def test_the_leduc_variant_string_works_on_the_command_line(capsys):
    assert main(["solve", "leduc:3x2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == pytest.approx(-0.0856064, abs=1e-6)
    assert main(["solve", "leduc:13y4"]) == 2
    assert "leduc:13y4: not a variant of leduc; expected leduc:RxS" in capsys.readouterr().err


def test_the_leduc_rules_are_written_once():
    from gamelp.games import poker

    assert poker.rules_of("leduc") is poker.LEDUC_RULES and poker.rules_of("kuhn") is poker.KUHN_RULES
    assert poker.leduc_largest_payoff() == 1 + 2 * (2 + 4)
    with pytest.raises(GamelpError, match=r"leduc:RxSxN \(N >= 2 betting rounds\)"):
        load_game("leduc:3x2x1")


def test_both_gambit_formats_go_through_the_suffix_registry(tmp_path, capsys):
    from gamelp.games.gambit import write_nfg

    path = write_nfg(MatrixGame(np.array([[1.0, -1.0], [-1.0, 1.0]])), tmp_path / "pennies.nfg")
    assert registry.reader(str(path), "matrix") is not None and registry.reader(str(path), "game") is None
    assert MatrixGame.load(path).shape == (2, 2)
    with pytest.raises(GamelpError, match="a .nfg file has no deviations"):
        MatrixGame.load(path, std_path=path)
    assert main(["export-game", "leduc:3x1", "-o", str(tmp_path / "small.efg")]) == 0
    written, generated = load_game(tmp_path / "small.efg"), load_game("leduc:3x1")
    assert entries_by_label(written).keys() == entries_by_label(generated).keys()
    assert all(np.isclose(entries_by_label(written)[k], v) for k, v in entries_by_label(generated).items())


def entries_by_label(game):
    A = game.A.tocoo()
    return {(game.pl1.labels[i], game.pl2.labels[j]): v for i, j, v in zip(A.row, A.col, A.data)}
