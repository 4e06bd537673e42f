"""``gamelp evaluate`` and :func:`gamelp.models.evaluate.evaluate`: any strategy's guarantee, exploitability and
best response, on the JSON gamelp prints, OpenSpiel policies (checked against OpenSpiel's own NashConv) and
matrix-game CSVs, in floats and exactly; the guarantees checked against every pure strategy of the opponent."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from gamelp import load_game
from gamelp.cli import main
from gamelp.errors import StrategyFileError
from gamelp.matrix import MatrixGame
from gamelp.models.evaluate import PROBABILITY_TOLERANCE, evaluate
from gamelp.treeplex import Treeplex

KUHN_VALUE = Fraction(-1, 18)
RPS = ",R,P,S\nR,0,-1,1\nP,1,0,-1\nS,-1,1,0\n"


def _printed(capsys, argv) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def _solve_json(capsys, tmp_path, *options) -> str:
    """The JSON ``gamelp solve kuhn --json OPTIONS`` prints, in a file."""
    path = tmp_path / "solved.json"
    path.write_text(_printed(capsys, ["solve", "kuhn", "--json", *options]))
    return str(path)


def _pure_strategies(treeplex: Treeplex):
    """Every pure strategy of ``treeplex`` in sequence form (one action at every decision point)."""
    sizes = [len(treeplex.actions[point]) for point in treeplex.decision_points]
    for choices in itertools.product(*(range(n) for n in sizes)):
        yield treeplex.pure_strategy(np.array(choices))


# ----------------------------------------------------------------------------- gamelp solve --json
@pytest.mark.parametrize("options", [(), ("--behavioural",), ("--exact",)])
def test_the_solved_strategy_guarantees_the_value(capsys, tmp_path, kuhn, options):
    path = _solve_json(capsys, tmp_path, *options)
    result = evaluate(kuhn, path)
    assert result.player == 1
    assert result.guaranteed_value == pytest.approx(float(KUHN_VALUE), abs=1e-9)
    assert abs(result.exploitability) < 1e-9
    exact = evaluate(kuhn, path, exact=True)
    assert (exact.guaranteed_value, exact.game_value, exact.exploitability) == (KUHN_VALUE, KUHN_VALUE, 0)


def test_the_command_prints_the_exact_guarantee_and_json_strings(capsys, tmp_path):
    path = _solve_json(capsys, tmp_path)
    text = _printed(capsys, ["evaluate", "kuhn", path, "--exact"])
    assert text.splitlines()[0] == (
        f"kuhn: player 1's strategy in {path} guarantees -1/18 (= -0.05555555556); the game's value is "
        "-1/18 (= -0.05555555556): exploitability 0"
    )
    payload = json.loads(_printed(capsys, ["evaluate", "kuhn", path, "--exact", "--json"]))
    assert (payload["guaranteed_value"], payload["game_value"], payload["exploitability"]) == ("-1/18", "-1/18", "0")
    assert payload["players"]["1"]["strategy"]["dJ_pl1:k"] == "2/3"  # 0.666666666667 read by the rule
    assert payload["binary_probabilities"] == 0 and payload["renormalised"] == 0
    floats = json.loads(_printed(capsys, ["evaluate", "kuhn", path, "--json"]))
    assert floats["guaranteed_value"] == pytest.approx(-1 / 18, abs=1e-9) and floats["exact"] is False


def test_player_2s_strategy_and_both_players(capsys, tmp_path, kuhn):
    second = evaluate(kuhn, _solve_json(capsys, tmp_path, "--player", "2"), exact=True)
    assert (second.player, second.guaranteed_value, second.exploitability) == (2, -KUHN_VALUE, 0)
    both = evaluate(kuhn, _solve_json(capsys, tmp_path, "--player", "both"), exact=True)
    assert both.player == "both" and both.game_value is None and both.exploitability == 0
    assert [p.guaranteed_value for p in both.players] == [KUHN_VALUE, -KUHN_VALUE]
    # A player-1 solve with --exact holds player 2's strategy too: --player both evaluates the pair.
    assert evaluate(kuhn, _solve_json(capsys, tmp_path, "--exact"), "both").exploitability == pytest.approx(0)


# ----------------------------------------------------------------------------- the mathematics
def test_the_guarantee_is_the_worst_pure_reply_and_the_best_response_attains_it(kuhn):
    rng = np.random.default_rng(7)
    behaviour = {
        point: dict(zip(actions, rng.dirichlet(np.ones(len(actions))).tolist()))
        for point, actions in kuhn.pl1.actions.items()
    }
    result = evaluate(kuhn, behaviour)
    x = kuhn.pl1.from_behavioural(behaviour)
    replies = [kuhn.utility(x, y) for y in _pure_strategies(kuhn.pl2)]
    assert len(replies) == 64
    assert result.guaranteed_value == pytest.approx(min(replies), abs=1e-12)
    evaluated = result.players[0]
    y = np.array([evaluated.best_response[label] for label in kuhn.pl2.labels])
    assert kuhn.utility(x, y) == pytest.approx(min(replies), abs=1e-12)
    assert result.exploitability == pytest.approx(-1 / 18 - min(replies), abs=1e-9)
    # The response names one action at every information set, those its own play never reaches included.
    assert set(evaluated.best_response_behavioural) == set(kuhn.pl2.decision_points)
    assert all(sorted(local.values()) == [0.0, 1.0] for local in evaluated.best_response_behavioural.values())
    # Exactly, the same number as a fraction, and player 2's evaluation by the worst pure reply of player 1.
    exact = evaluate(kuhn, behaviour, exact=True)
    assert float(exact.guaranteed_value) == pytest.approx(min(replies), abs=1e-12)
    y = kuhn.pl2.from_behavioural({p: dict.fromkeys(acts, 0.5) for p, acts in kuhn.pl2.actions.items()})
    second = evaluate(kuhn, y, 2)
    assert second.guaranteed_value == pytest.approx(-max(kuhn.utility(x, y) for x in _pure_strategies(kuhn.pl1)))


def test_an_unreached_information_set_may_be_left_out(kuhn):
    always_bet = {point: {"b": 1} for point in ("dJ_pl1", "dQ_pl1", "dK_pl1")}
    result = evaluate(kuhn, always_bet, exact=True)
    assert (result.guaranteed_value, result.exploitability) == (Fraction(-1, 3), Fraction(-1, 18) + Fraction(1, 3))


def test_probabilities_within_the_tolerance_are_divided_by_their_sum(kuhn):
    off = 0.5 + PROBABILITY_TOLERANCE / 4
    behaviour = {point: dict.fromkeys(actions, off) for point, actions in kuhn.pl1.actions.items()}
    result = evaluate(kuhn, behaviour, exact=True)
    assert result.renormalised == 6
    assert result.players[0].strategy["dJ_pl1:k"] == Fraction(1, 2)


# ----------------------------------------------------------------------------- OpenSpiel policies
@pytest.mark.parametrize("noise", [0.0, 0.6])
def test_nash_conv_of_an_openspiel_policy_is_openspiels(noise, tmp_path):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    spiel_game = pyspiel.load_game("kuhn_poker")
    policy = policy_lib.TabularPolicy(spiel_game)
    policy = policy.copy_with_noise(alpha=noise, beta=1.0, random_state=np.random.RandomState(3)) if noise else policy
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({s: [[int(a), float(p)] for a, p in pairs] for s, pairs in policy.to_dict().items()}))
    game = load_game("openspiel:kuhn_poker")
    expected = exploitability.nash_conv(spiel_game, policy)
    result = evaluate(game, str(path))
    assert result.player == "both"
    assert result.exploitability == pytest.approx(expected, abs=1e-12)
    assert float(evaluate(game, str(path), exact=True).exploitability) == pytest.approx(expected, abs=1e-12)
    if not noise:
        assert evaluate(game, str(path), exact=True).exploitability == Fraction(11, 12)
    # One player's part of the policy: exploitable by the value minus its guarantee.
    first = evaluate(game, str(path), 1)
    assert first.exploitability == pytest.approx(-1 / 18 - first.guaranteed_value, abs=1e-9)


# ----------------------------------------------------------------------------- matrix games
@pytest.mark.parametrize(
    "rows, player, guarantee, exploitability",
    [
        ("R,0.3333333333333333\nP,0.3333333333333333\nS,0.3333333333333334\n", "row", 0, 0),
        ("label,probability\nR,1/3\nP,1/3\nS,1/3\n", "col", 0, 0),
        ("R,1\n", "row", -1, 1),
        ("P,1\n", "col", 1, 1),
    ],
)
def test_matrix_csv_strategies(tmp_path, capsys, rows, player, guarantee, exploitability):
    (tmp_path / "rps.csv").write_text(RPS)
    (tmp_path / "s.csv").write_text(rows)
    game = MatrixGame.load(tmp_path / "rps.csv")
    for exact in (False, True):
        result = evaluate(game, str(tmp_path / "s.csv"), player, exact=exact)
        assert result.guaranteed_value == pytest.approx(guarantee, abs=1e-12)
        assert result.exploitability == pytest.approx(exploitability, abs=1e-12)
    assert result.guaranteed_value == guarantee and result.exploitability == exploitability  # exactly
    text = _printed(
        capsys, ["evaluate", str(tmp_path / "rps.csv"), str(tmp_path / "s.csv"), "--player", player, "--exact"]
    )
    assert f"exploitability {exploitability}" in text.splitlines()[0]


def test_the_matrix_solve_json_and_a_profile(tmp_path, capsys):
    (tmp_path / "rps.csv").write_text(RPS)
    solved = tmp_path / "solved.json"
    solved.write_text(_printed(capsys, ["matrix", "solve", str(tmp_path / "rps.csv"), "--json"]))
    game = MatrixGame.load(tmp_path / "rps.csv")
    both = evaluate(game, str(solved), "both", exact=True)
    assert (both.exploitability, [p.guaranteed_value for p in both.players]) == (0, [0, 0])
    (tmp_path / "s.csv").write_text("R,1\n")
    pure = evaluate(game, str(tmp_path / "s.csv"), "both")  # the labels are both players': one strategy for each
    assert pure.exploitability == 2
    assert pure.players[0].best_response == {"R": 0.0, "P": 1.0, "S": 0.0}


# ----------------------------------------------------------------------------- hostile strategy files
KUHN_FIRST = {
    "dJ_pl1": {"k": 1, "b": 0},
    "dJ/kb_pl1": {"f": 1, "c": 0},
    "dQ_pl1": {"k": 1, "b": 0},
    "dQ/kb_pl1": {"f": 1, "c": 0},
    "dK_pl1": {"k": 0, "b": 1},
}


def _with(**changes) -> str:
    return json.dumps({**KUHN_FIRST, **changes})


# (file name, its contents (None: a directory), extra options, game, what the one line must say)
HOSTILE = [
    ("a.json", "{not json", [], "kuhn", "not valid JSON"),
    ("dir.json", None, [], "kuhn", "it is a directory"),
    ("big.json", " " * 5000 + "{}", [], "kuhn", "larger than the"),
    ("binary.json", b"\xff\xfe{}", [], "kuhn", "not valid UTF-8"),
    ("list.json", "[1, 2]", [], "kuhn", "expected a JSON object, got list"),
    ("empty.json", "{}", [], "kuhn", "an empty strategy"),
    (
        "missing.json",
        json.dumps({k: v for k, v in KUHN_FIRST.items() if k != "dQ_pl1"}),
        [],
        "kuhn",
        "missing information set 'dQ_pl1'",
    ),
    ("sum.json", _with(dJ_pl1={"k": 0.5, "b": 0.4}), [], "kuhn", "sum to 0.9, not 1 (tolerance 1e-06)"),
    ("negative.json", _with(dJ_pl1={"k": -0.2, "b": 1.2}), [], "kuhn", "negative probability -0.2"),
    ("nan.json", _with(dJ_pl1={"k": 0.5}).replace("0.5", "NaN"), [], "kuhn", "probability NaN is not a number"),
    ("inf.json", _with(dJ_pl1={"k": 0.5}).replace("0.5", "Infinity"), [], "kuhn", "probability inf is not finite"),
    ("above.json", _with(dJ_pl1={"k": 1.5, "b": -0.5}), [], "kuhn", "probability 1.5 is above 1"),
    ("action.json", _with(dJ_pl1={"k": 0.5, "x": 0.5}), [], "kuhn", "'dJ_pl1' has no action 'x'"),
    ("infoset.json", _with(dZ_pl1={"k": 1}), [], "kuhn", "unknown information set 'dZ_pl1'"),
    (
        "player.json",
        json.dumps({"dJ/k_pl2": {"k": 1}}),
        ["--player", "1"],
        "kuhn",
        "holds no strategy of player 1 (it holds player 2's)",
    ),
    ("game.json", json.dumps({"d1_pl1": {"r": 1}}), [], "kuhn", "none of its 1 information sets is one of kuhn's"),
    ("text.json", _with(dJ_pl1={"k": "abc", "b": 0}), [], "kuhn", "'abc' is not a probability"),
    ("bool.json", _with(dJ_pl1={"k": True, "b": 0}), [], "kuhn", "True is not a probability"),
    ("zero.json", _with(dJ_pl1={"k": "1/0", "b": 0}), [], "kuhn", "'1/0' is not a probability"),
    ("duplicate.json", '{"dJ_pl1": {"k": 1, "k": 0}}', [], "kuhn", "duplicate key 'k'"),
    (
        "weights.json",
        json.dumps({"dJ_pl1:k": 0.5, "dJ_pl1:b": 0.5, "dJ/kb_pl1:f": 0.9, "dQ_pl1:k": 1, "dK_pl1:b": 1}),
        [],
        "kuhn",
        "sum to 0.9, not 0.5",
    ),
    (
        "matrix.json",
        json.dumps({"player": "row", "strategy": {"R": 1}}),
        [],
        "kuhn",
        "the solve output of a matrix game's player 'row'",
    ),
    ("s.csv", "R,1\n", [], "kuhn", "a CSV strategy is a matrix game's"),
    ("cells.csv", "R,1,2\n", [], "rps.csv", "line 1 has 3 cells"),
    ("twice.csv", "R,0.5\nR,0.5\n", [], "rps.csv", "line 2: label 'R' appears twice"),
    ("label.csv", "R,0.5\nX,0.5\n", [], "rps.csv", "unknown label 'X'"),
    (
        "second.json",
        json.dumps({"player": 1, "strategy": {"∅": 1, "dJ_pl1:k": 1}}),
        ["--player", "2"],
        "kuhn",
        "holds no strategy of player 2 (it holds player 1's)",
    ),
    ("pairs.json", json.dumps({"dJ_pl1": [[0]]}), [], "kuhn", "expected [action, probability] pairs"),
]


@pytest.mark.parametrize("name, contents, options, game, says", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_hostile_strategy_file_is_one_line(name, contents, options, game, says, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("gamelp.models.evaluate.MAX_STRATEGY_BYTES", 4096)
    path = tmp_path / name
    if contents is None:
        path.mkdir()
    elif isinstance(contents, bytes):
        path.write_bytes(contents)
    else:
        path.write_text(contents)
    (tmp_path / "rps.csv").write_text(RPS)
    game_argument = str(tmp_path / game) if game.endswith(".csv") else game
    assert main(["evaluate", game_argument, str(path), *options]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"gamelp: error: {path}: ") and says in err, err
    loaded = MatrixGame.load(game_argument) if game.endswith(".csv") else load_game(game)
    player = options[1] if options else None
    with pytest.raises(StrategyFileError, match=r"^" + str(path)) as raised:
        evaluate(loaded, str(path), int(player) if player else None)
    assert says in str(raised.value)


def test_an_openspiel_policy_with_an_illegal_action_or_on_another_game(tmp_path, capsys):
    pytest.importorskip("pyspiel")
    game = load_game("openspiel:kuhn_poker")
    policy = {point: [[0, 0.5], [1, 0.5], [7, 0.0]] for point in game.pl1.decision_points}  # 7: not legal, at 0
    assert evaluate(game, policy, 1, source="p.json").players[0].strategy["0:Pass"] == 0.5
    with pytest.raises(StrategyFileError, match="p.json: information set '0' has no action 7"):
        evaluate(game, {**policy, "0": [[0, 0.5], [7, 0.5]]}, 1, source="p.json")
    with pytest.raises(StrategyFileError, match="none of its 6 information sets is one of kuhn's"):
        evaluate(load_game("kuhn"), policy, source="p.json")


def test_an_array_needs_its_player_and_length(kuhn):
    with pytest.raises(StrategyFileError, match="needs its player"):
        evaluate(kuhn, np.ones(13))
    with pytest.raises(StrategyFileError, match="3 weights, but player 1 has 13"):
        evaluate(kuhn, [1.0, 0.5, 0.5], 1)


def test_a_long_exact_fraction_is_shown_by_its_float_and_size(capsys, tmp_path, kuhn):
    odd = {
        point: {actions[0]: 0.723456789012345, actions[1]: 0.276543210987655}
        for point, actions in kuhn.pl1.actions.items()
    }
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(odd))
    first = _printed(capsys, ["evaluate", "kuhn", str(path), "--exact"]).splitlines()
    assert "exactly a fraction whose denominator has" in first[0] and "; --json writes it)" in first[0]
    assert first[-1].startswith("exact: probabilities read as fractions (12 taken as binary values)")
    payload = json.loads(_printed(capsys, ["evaluate", "kuhn", str(path), "--exact", "--json"]))
    assert Fraction(payload["guaranteed_value"]) == evaluate(kuhn, str(path), exact=True).guaranteed_value
