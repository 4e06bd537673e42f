"""Loading and validating sequence-form game files: every fault is named, nothing else escapes."""

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamelp.errors import GameFileError, GamelpError
from gamelp.game import SequenceFormGame, load_game

RPS_MATRIX = np.array([[0, -1, 1], [1, 0, -2], [-1, 2, 0]], dtype=float)


def rps_file(entries):
    point = {"type": "decision", "actions": ["r", "p", "s"], "parent_edge": None, "parent_sequence": None}
    return {
        "decision_problem_pl1": [dict(point, id="d1_pl1")],
        "decision_problem_pl2": [dict(point, id="d1_pl2")],
        "utility_pl1": [
            {"sequence_pl1": ["d1_pl1", a], "sequence_pl2": ["d1_pl2", b], "value": v} for a, b, v in entries
        ],
    }


# The homework's printed example: (p, s) and (s, r) listed twice, (s, p) missing.
SEED_RPS_ENTRIES = [
    ("r", "p", -1),
    ("r", "s", 1),
    ("p", "r", 1),
    ("p", "s", -2),
    ("p", "s", -2),
    ("s", "r", -1),
    ("s", "r", 2),
]


def load(data, tmp_path, name="game.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return load_game(path)


def test_builtin_games_have_the_expected_sizes(rps, kuhn, leduc):
    assert (rps.pl1.num_sequences, rps.pl2.num_sequences) == (4, 4)
    assert (kuhn.pl1.num_decision_points, kuhn.pl1.num_sequences) == (6, 13)
    assert (kuhn.pl2.num_decision_points, kuhn.pl2.num_sequences) == (6, 13)
    assert leduc.pl1.num_sequences == leduc.pl2.num_sequences == 337
    assert np.allclose(rps.A[1:, 1:].toarray(), RPS_MATRIX)


def test_polytope_contains_uniform_and_best_responses(kuhn):
    for tp in (kuhn.pl1, kuhn.pl2):
        x = tp.uniform_strategy()
        assert tp.infeasibility(x) < 1e-12
        value, pure = tp.best_response(np.arange(tp.num_sequences, dtype=float))
        assert tp.infeasibility(pure) < 1e-12
        assert value == pytest.approx(np.arange(tp.num_sequences) @ pure)
        assert set(np.unique(pure)) <= {0.0, 1.0}


def test_behavioural_round_trip(leduc):
    rng = np.random.default_rng(0)
    tp = leduc.pl1
    behaviour = {j: dict(zip(tp.actions[j], rng.dirichlet(np.ones(len(tp.actions[j]))))) for j in tp.decision_points}
    x = tp.from_behavioural(behaviour)
    assert tp.infeasibility(x) < 1e-12
    back = tp.from_behavioural(tp.to_behavioural(x))
    assert np.allclose(back, x)


def test_saddle_point_gap_is_zero_only_at_equilibrium(rps):
    eq = np.array([1, 0.5, 0.25, 0.25])
    assert rps.saddle_point_gap(eq, eq) == pytest.approx(0.0, abs=1e-12)
    uniform = rps.pl1.uniform_strategy()
    assert rps.saddle_point_gap(uniform, uniform) > 0.1


def test_save_and_reload_round_trip(kuhn, tmp_path):
    path = tmp_path / "kuhn_copy.json"
    kuhn.save(path)
    again = load_game(path)
    assert (again.A != kuhn.A).nnz == 0
    assert again.pl1.labels == kuhn.pl1.labels and again.pl2.labels == kuhn.pl2.labels


def test_seed_rps_example_is_refused_naming_the_duplicates(tmp_path):
    with pytest.raises(GameFileError) as err:
        load(rps_file(SEED_RPS_ENTRIES), tmp_path, "seed_rps.json")
    message = str(err.value)
    assert "seed_rps.json" in message and "duplicate" in message
    assert "(d1_pl1:p, d1_pl2:s)" in message and "(d1_pl1:s, d1_pl2:r)" in message


def test_duplicates_are_summed_only_on_request(tmp_path):
    path = tmp_path / "seed_rps.json"
    path.write_text(json.dumps(rps_file(SEED_RPS_ENTRIES)))
    game = load_game(path, sum_duplicates=True)
    assert game.A[2, 3] == -4 and game.A[3, 1] == 1


def mutate(data, fn):
    fn(data)
    return data


FAULTS = {
    "not JSON": (None, "not valid JSON"),
    "missing top key": (lambda d: d.pop("utility_pl1"), "missing key 'utility_pl1'"),
    "missing node key": (lambda d: d["decision_problem_pl1"][0].pop("type"), "missing key 'type'"),
    "missing actions": (lambda d: _first_decision(d).pop("actions"), "missing key 'actions'"),
    "unknown node type": (lambda d: d["decision_problem_pl2"][1].update(type="chance"), "unknown type 'chance'"),
    "duplicate node id": (
        lambda d: d["decision_problem_pl1"][2].update(id=d["decision_problem_pl1"][1]["id"]),
        "duplicate node id",
    ),
    "parent does not exist": (
        lambda d: d["decision_problem_pl1"][1].update(parent_edge=["nowhere", "x"]),
        "unknown node 'nowhere'",
    ),
    "parent comes later": (lambda d: d["decision_problem_pl1"].reverse(), "comes before its parent"),
    "unknown signal": (
        lambda d: d["decision_problem_pl1"][1]["parent_edge"].__setitem__(1, "zz"),
        "node 'dJ_pl1' hangs from signal 'zz', which its parent 'o_pl1' does not have (it has ['J', 'Q', 'K'])",
    ),
    "unknown action": (
        lambda d: d["decision_problem_pl1"][2]["parent_edge"].__setitem__(1, "zz"),
        "node 'dJ/kb_pl1' hangs from action 'zz', which its parent 'dJ_pl1' does not have (it has ['k', 'b'])",
    ),
    "no actions": (
        lambda d: d["decision_problem_pl1"][1].update(actions=[]),
        "node 'dJ_pl1' needs a non-empty list of string actions, got []",
    ),
    "wrong parent_sequence": (
        lambda d: _break_parent_sequence(d),
        "decision point 'dJ/kb_pl1' has parent_sequence ['dJ_pl1', 'not-an-action'], but the last own sequence on "
        "its path is ['dJ_pl1', 'k']",
    ),
    "missing parent_sequence": (
        lambda d: d["decision_problem_pl1"][2].update(parent_sequence=None),
        "decision point 'dJ/kb_pl1' has parent_sequence null, but the last own sequence on its path is ['dJ_pl1', 'k']",
    ),
    "cycle": (lambda d: _make_cycle(d), "cycle"),
    "unknown sequence in utility": (
        lambda d: d["utility_pl1"][0].update(sequence_pl2=["ghost", "b"]),
        "unknown sequence ['ghost', 'b']",
    ),
    "non-finite value": (lambda d: d["utility_pl1"][3].update(value=float("nan")), "finite"),
    "infinite value": (lambda d: d["utility_pl1"][3].update(value=float("inf")), "finite"),
    "string value": (lambda d: d["utility_pl1"][3].update(value="1"), "finite"),
    "duplicate entry": (lambda d: d["utility_pl1"].append(dict(d["utility_pl1"][0])), "duplicate utility entries"),
}


def _first_decision(data):
    return next(n for n in data["decision_problem_pl1"] if n["type"] == "decision")


def _break_parent_sequence(data):
    for node in data["decision_problem_pl1"]:
        if node["type"] == "decision" and node["parent_sequence"] is not None:
            node["parent_sequence"] = [node["parent_sequence"][0], "not-an-action"]
            return
    raise AssertionError("kuhn has nested decision points")


def _make_cycle(data):
    nodes = data["decision_problem_pl1"]
    root = nodes[0]
    child = next(n for n in nodes if n["parent_edge"] and n["parent_edge"][0] == root["id"])
    outcome = (child.get("actions") or child.get("signals"))[0]
    root["parent_edge"] = [child["id"], outcome]


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_is_named(fault, kuhn_dict, tmp_path):
    fn, expected = FAULTS[fault]
    path = tmp_path / "broken.json"
    if fn is None:
        path.write_text("{ this is not json")
    else:
        fn(kuhn_dict)
        path.write_text(json.dumps(kuhn_dict))
    with pytest.raises(GameFileError) as err:
        load_game(path)
    assert "broken.json" in str(err.value)
    assert expected in str(err.value)


def test_missing_file_is_a_game_file_error(tmp_path):
    with pytest.raises(GameFileError, match="cannot read"):
        load_game(tmp_path / "nope.json")


def test_an_unknown_bare_name_lists_the_built_in_games(tmp_path, monkeypatch):
    """A name with no path and no suffix was likely meant as a built-in game: the error says which there are."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        GameFileError,
        match=r"nosuchgame: no such file or built-in game \(the built-in games: "
        r"kuhn, leduc.*families: .*leduc:\.\.\.",
    ):
        load_game("nosuchgame")


# ---------------------------------------------------------------------- random mutations
_KEYS = (
    "id",
    "type",
    "actions",
    "signals",
    "parent_edge",
    "parent_sequence",
    "sequence_pl1",
    "sequence_pl2",
    "value",
    "decision_problem_pl1",
    "decision_problem_pl2",
    "utility_pl1",
)
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.lists(st.text(max_size=3), max_size=3),
    st.sampled_from(["decision", "observation", "d1_pl1", "r"]),
)


def _containers(obj, path=()):
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _containers(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _containers(v, path + (i,))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_files_load_or_raise_gamelp_error(kuhn_dict, data):
    doc = _mutated(kuhn_dict, data)
    try:
        game = SequenceFormGame.from_dict(doc, "mutated.json")
    except GamelpError:
        return
    for tp in (game.pl1, game.pl2):
        assert tp.infeasibility(tp.uniform_strategy()) < 1e-9


def _mutated(original, data):
    """A copy of ``original`` with one to three random sets, deletions or swaps anywhere in it."""
    doc = json.loads(json.dumps(original))
    for _ in range(data.draw(st.integers(1, 3))):
        places = [(p, o) for p, o in _containers(doc) if isinstance(o, (dict, list)) and o]
        _path, target = data.draw(st.sampled_from(places))
        action = data.draw(st.sampled_from(["set", "delete", "swap"]))
        if isinstance(target, dict):
            key = data.draw(st.sampled_from(sorted(target, key=str) + list(_KEYS)))
        else:
            key = data.draw(st.integers(0, len(target) - 1))
        if action == "delete" and (isinstance(target, list) or key in target):
            del target[key]
        elif action == "swap" and isinstance(target, list) and len(target) > 1:
            other = data.draw(st.integers(0, len(target) - 1))
            target[key], target[other] = target[other], target[key]
        else:
            target[key] = data.draw(_VALUES)
    return doc


def test_colliding_sequence_labels_are_refused_naming_both_nodes(tmp_path):
    """Node 'a:b' action 'c' and node 'a' action 'b:c' both print as 'a:b:c'."""
    tree = [
        {"id": "a", "type": "decision", "actions": ["b:c", "x"], "parent_edge": None, "parent_sequence": None},
        {
            "id": "a:b",
            "type": "decision",
            "actions": ["c", "d"],
            "parent_edge": ["a", "x"],
            "parent_sequence": ["a", "x"],
        },
    ]
    other = [{"id": "o", "type": "decision", "actions": ["l", "r"], "parent_edge": None, "parent_sequence": None}]
    data = {
        "decision_problem_pl1": tree,
        "decision_problem_pl2": other,
        "utility_pl1": [{"sequence_pl1": ["a:b", "c"], "sequence_pl2": ["o", "l"], "value": 1}],
    }
    with pytest.raises(GameFileError) as err:
        load(data, tmp_path)
    message = str(err.value)
    assert "decision_problem_pl1" in message and "'a:b:c'" in message
    assert "node 'a:b' action 'c'" in message and "node 'a' action 'b:c'" in message


def test_an_integer_payoff_beyond_float_is_refused(kuhn_dict, tmp_path):
    kuhn_dict["utility_pl1"][2]["value"] = int("9" * 400)
    with pytest.raises(GameFileError, match=r"game.json: utility_pl1 entry 2: value is an integer of 400 digits"):
        load(kuhn_dict, tmp_path)


def test_absurdly_nested_json_is_refused(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(GameFileError, match="deep.json: JSON nested too deeply"):
        load_game(path)


def test_duplicate_keys_are_refused_not_resolved_last_wins(tmp_path):
    text = json.dumps(rps_file([("r", "p", -1)]))
    path = tmp_path / "dup.json"
    path.write_text(text.replace('"type": "decision"', '"type": "decision", "type": "observation"', 1))
    with pytest.raises(GameFileError, match="dup.json: duplicate key 'type' in node 'd1_pl1'"):
        load_game(path)


def test_unknown_keys_are_warned_once_each_naming_where(kuhn_dict, tmp_path, caplog):
    kuhn_dict["comment"] = "hand-written"
    for node in kuhn_dict["decision_problem_pl2"][1:4]:
        node["probability"] = 0.5
    kuhn_dict["utility_pl1"][0]["weight"] = 1
    load(kuhn_dict, tmp_path)
    messages = sorted(r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    node = kuhn_dict["decision_problem_pl2"][1]["id"]
    assert messages == sorted(
        [
            f"{tmp_path / 'game.json'}: ignoring unknown key 'comment' in the top-level object",
            f"{tmp_path / 'game.json'}: ignoring unknown key 'probability' in node {node!r} of decision_problem_pl2 "
            "(and 2 more)",
            f"{tmp_path / 'game.json'}: ignoring unknown key 'weight' in utility_pl1 entry 0",
        ]
    )


def test_a_named_pipe_is_refused_instead_of_waiting_forever(tmp_path):
    import os

    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    with pytest.raises(GameFileError, match="pipe.json: cannot read, it is a named pipe, not a regular file"):
        load_game(pipe)
    with pytest.raises(GameFileError, match="it is a directory"):
        load_game(tmp_path)


def test_a_miscapitalised_builtin_name_gets_a_suggestion():
    with pytest.raises(GameFileError, match="Kuhn: no such file or built-in game; did you mean 'kuhn'"):
        load_game("Kuhn")
    with pytest.raises(GameFileError, match="leduk: .* did you mean 'leduc'"):
        load_game("leduk")


# ---------------------------------------------------------------------- the documented format and its schema
def documented_game():
    from pathlib import Path

    return json.loads((Path(__file__).parents[2] / "docs" / "guide" / "pennies.json").read_text(encoding="utf-8"))


def test_the_documented_example_validates_and_solves_as_described(tmp_path, capsys):
    from gamelp.cli import main
    from gamelp.models.nash import solve_nash

    path = tmp_path / "pennies.json"
    path.write_text(json.dumps(documented_game()))
    assert main(["validate", str(path)]) == 0
    assert (
        "valid; player 1: 1 decision points, 3 sequences; player 2: 2 decision points, 5 sequences; "
        "8 utility entries" in capsys.readouterr().out
    )
    game = load_game(path, schema=True)
    result = solve_nash(game, 1)
    assert result.value == pytest.approx(0.0, abs=1e-12)
    assert result.strategy == pytest.approx([1.0, 0.5, 0.5], abs=1e-9)
    # Player 2 sees the stakes; payoffs are chance-weighted: heads against heads at high stakes is 3 x 1/2.
    assert game.A[game.pl1.index[("p1", "heads")], game.pl2.index[("p2_high", "heads")]] == 1.5


def test_built_in_games_satisfy_the_shipped_schema():
    for name in ("rps", "kuhn", "leduc"):
        load_game(name, schema=True)


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["decision_problem_pl1"][2].update(actions="kb"),
            "decision_problem_pl1[2].actions breaks the game file schema: 'kb' is not of type 'array'",
        ),
        (
            lambda d: d["decision_problem_pl2"][3].pop("parent_sequence"),
            "decision_problem_pl2[3] breaks the game file schema: 'parent_sequence' is a required property",
        ),
        (lambda d: d["utility_pl1"][4].update(value="3"), "utility_pl1[4].value breaks the game file schema"),
        (lambda d: d.pop("utility_pl1"), "the top-level object breaks the game file schema: 'utility_pl1'"),
    ],
)
def test_the_schema_names_the_offending_place(kuhn_dict, tmp_path, change, message):
    change(kuhn_dict)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(kuhn_dict))
    with pytest.raises(GameFileError, match=re.escape(f"{path}: {message}")):
        load_game(path, schema=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_whatever_the_schema_refuses_the_loader_refuses_too(kuhn_dict, data):
    """The schema documents the format; the loader must be at least as strict, never looser."""
    import jsonschema

    from gamelp.game import game_schema

    validator = jsonschema.Draft202012Validator(game_schema())
    doc = _mutated(kuhn_dict, data)
    if validator.is_valid(doc):
        return
    with pytest.raises(GamelpError):
        SequenceFormGame.from_dict(doc, "mutated.json")


def test_deep_or_huge_values_are_shown_short(kuhn_dict, tmp_path):
    deep = json.loads("[" * 900 + "]" * 900)
    for place in (kuhn_dict["utility_pl1"][0], kuhn_dict["decision_problem_pl2"][0]):
        place["value" if "value" in place else "id"] = deep
        with pytest.raises(GameFileError) as err:
            load(kuhn_dict, tmp_path)
        assert len(str(err.value)) < 200 and "[[[[...]]]]" in str(err.value)
