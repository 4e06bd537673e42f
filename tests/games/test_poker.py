"""Tests of gamelp.games.poker: game files generated from the rules.

The values are checked with an independent sequence-form Nash LP built here
from the JSON dict (scipy's HiGHS), not with gamelp's own loader or models.
"""

import itertools
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from gamelp.game import SequenceFormGame
from gamelp.games import poker
from gamelp.games.poker import PokerRulesError

DATA = Path(poker.__file__).parent / "data"
KEYS = ("decision_problem_pl1", "decision_problem_pl2")


def sequence_form(nodes):
    """Sequence index (empty sequence first), F and f of one decision process."""
    decisions = [node for node in nodes if node["type"] == "decision"]
    index = {None: 0}
    for node in decisions:
        for action in node["actions"]:
            index[(node["id"], action)] = len(index)
    F = np.zeros((1 + len(decisions), len(index)))
    f = np.zeros(1 + len(decisions))
    F[0, 0] = f[0] = 1
    for row, node in enumerate(decisions, start=1):
        parent = node["parent_sequence"]
        F[row, index[tuple(parent) if parent else None]] = -1
        for action in node["actions"]:
            F[row, index[(node["id"], action)]] = 1
    return index, F, f


def payoff_matrix(game):
    (index1, _, _), (index2, _, _) = (sequence_form(game[key]) for key in KEYS)
    A = np.zeros((len(index1), len(index2)))
    for entry in game["utility_pl1"]:
        A[index1[tuple(entry["sequence_pl1"])], index2[tuple(entry["sequence_pl2"])]] = entry["value"]
    return A


def nash_value(game, player):
    """max f_opp^T v s.t. A_p^T x - F_opp^T v >= 0, F_p x = f_p, x >= 0 (A_1 = A, A_2 = -A^T)."""
    (_, F1, f1), (_, F2, f2) = (sequence_form(game[key]) for key in KEYS)
    A = payoff_matrix(game)
    if player == 2:
        A, F1, f1, F2, f2 = -A.T, F2, f2, F1, f1
    n, m = A.shape[0], F2.shape[0]
    result = linprog(
        c=np.concatenate([np.zeros(n), -f2]),
        A_ub=np.hstack([-A.T, F2.T]),
        b_ub=np.zeros(A.shape[1]),
        A_eq=np.hstack([F1, np.zeros((F1.shape[0], m))]),
        b_eq=f1,
        bounds=[(0, None)] * n + [(None, None)] * m,
        method="highs",
    )
    assert result.status == 0, result.message
    return -result.fun


@pytest.fixture(scope="module")
def games():
    return {"rps": poker.rock_paper_superscissors(), "kuhn": poker.kuhn(), "leduc": poker.leduc()}


@pytest.mark.parametrize(
    "name, expected, tolerance",
    [
        ("rps", 0.0, 1e-9),
        ("kuhn", -1 / 18, 1e-9),
        ("leduc", -0.085606, 1e-6),  # the homework's -0.0856; Leduc's known value is -0.0856064...
    ],
)
def test_nash_values_match_the_homework(games, name, expected, tolerance):
    value1 = nash_value(games[name], 1)
    value2 = nash_value(games[name], 2)
    assert value1 == pytest.approx(expected, abs=tolerance)
    assert value2 == pytest.approx(-expected, abs=tolerance)


def test_rps_is_the_true_superscissors_matrix(games):
    A = payoff_matrix(games["rps"])[1:, 1:]
    np.testing.assert_array_equal(A, [[0, -1, 1], [1, 0, -2], [-1, 2, 0]])
    assert [node["id"] for node in games["rps"]["decision_problem_pl1"]] == ["d1_pl1"]
    assert len(games["rps"]["utility_pl1"]) == 6


@pytest.mark.parametrize("name", ["rps", "kuhn", "leduc"])
def test_committed_files_are_the_generated_ones(games, name):
    text = (DATA / f"{name}.json").read_text(encoding="utf-8")
    assert json.loads(text) == games[name]
    assert text == SequenceFormGame.from_dict(games[name]).to_json()


def check_well_formed(game):
    """Top-down order, unique ids, edges on real outcomes, parent_sequence = last own sequence."""
    for key in KEYS:
        nodes = {}
        for node in game[key]:
            assert node["id"] not in nodes, f"duplicate id {node['id']}"
            outcomes = node["actions"] if node["type"] == "decision" else node["signals"]
            assert len(set(outcomes)) == len(outcomes) >= 1
            if node["parent_edge"] is None:
                last = None
            else:
                parent_id, label = node["parent_edge"]
                assert parent_id in nodes, f"{node['id']} listed before its parent {parent_id}"
                parent = nodes[parent_id]
                assert label in (parent["actions"] if parent["type"] == "decision" else parent["signals"])
                last = [parent_id, label] if parent["type"] == "decision" else parent["last"]
            if node["type"] == "decision":
                assert node["parent_sequence"] == last, node["id"]
            nodes[node["id"]] = {**node, "last": last}
        edges = [tuple(node["parent_edge"]) for node in game[key] if node["parent_edge"]]
        assert len(edges) == len(set(edges))
        assert sum(node["parent_edge"] is None for node in game[key]) == 1
    pairs = [(tuple(e["sequence_pl1"]), tuple(e["sequence_pl2"])) for e in game["utility_pl1"]]
    assert len(pairs) == len(set(pairs))
    assert all(entry["value"] != 0 for entry in game["utility_pl1"])
    (index1, _, _), (index2, _, _) = (sequence_form(game[key]) for key in KEYS)
    assert all(s1 in index1 and s2 in index2 for s1, s2 in pairs)


@pytest.mark.parametrize(
    "make",
    [
        poker.rock_paper_superscissors,
        poker.kuhn,
        poker.leduc,
        lambda: poker.kuhn(ranks=4),
        lambda: poker.leduc(ranks=4, suits=3),
        lambda: poker.leduc(ranks=3, suits=1, max_raises=1, raise_sizes=(1, 3), ante=2),
    ],
)
def test_games_are_well_formed(make):
    check_well_formed(make())


@pytest.mark.parametrize(
    "name, decision_points, sequences",
    [
        ("rps", 1, 3),
        ("kuhn", 6, 12),
        ("leduc", 144, 336),
    ],
)
def test_sizes(games, name, decision_points, sequences):
    sizes = poker.game_size(games[name])
    assert sizes == dict.fromkeys(KEYS, (decision_points, sequences))


def test_bigger_leduc_has_more_sequences_and_is_zero_sum():
    bigger = poker.leduc(ranks=4)
    assert poker.game_size(bigger) == dict.fromkeys(KEYS, (252, 588))
    assert nash_value(bigger, 1) + nash_value(bigger, 2) == pytest.approx(0, abs=1e-9)
    assert nash_value(bigger, 1) != pytest.approx(nash_value(poker.leduc(), 1), abs=1e-3)


def test_more_raises_add_decision_points():
    sizes = poker.game_size(poker.leduc(max_raises=3))["decision_problem_pl1"]
    assert sizes[0] > 144 and sizes[1] > 336


def test_public_card_signals_follow_card_removal():
    def public_signals(game, node_id):
        return next(n["signals"] for n in game["decision_problem_pl1"] if n["id"] == node_id)

    # With one suit the public card can never pair player 1's own jack.
    assert public_signals(poker.leduc(suits=1), "oJ/kk_pl1") == ["Q", "K"]
    assert public_signals(poker.leduc(), "oJ/kk_pl1") == ["J", "Q", "K"]


def kuhn_expected_utility(behaviour1, behaviour2):
    """Player 1's expected payoff in Kuhn poker, played out hand by hand from the rules."""
    total = 0.0
    for card1, card2 in itertools.permutations("JQK", 2):
        win = 1 if "JQK".index(card1) > "JQK".index(card2) else -1
        p1 = behaviour1[f"d{card1}_pl1"]
        check_p2 = behaviour2[f"d{card2}/k_pl2"]
        bet_p2 = behaviour2[f"d{card2}/b_pl2"]
        call_p1 = behaviour1[f"d{card1}/kb_pl1"]
        value = p1["k"] * (check_p2["k"] * win + check_p2["b"] * (call_p1["f"] * -1 + call_p1["c"] * 2 * win)) + p1[
            "b"
        ] * (bet_p2["f"] * 1 + bet_p2["c"] * 2 * win)
        total += value / 6
    return total


def to_sequence_form(nodes, behaviour):
    index, _, _ = sequence_form(nodes)
    x = np.zeros(len(index))
    x[0] = 1
    for node in nodes:  # top-down, so the parent sequence is already set
        if node["type"] == "decision":
            parent = node["parent_sequence"]
            for action in node["actions"]:
                x[index[(node["id"], action)]] = (
                    x[index[tuple(parent) if parent else None]] * behaviour[node["id"]][action]
                )
    return x


def random_behaviour(nodes, rng):
    behaviour = {}
    for node in nodes:
        if node["type"] == "decision":
            probabilities = rng.dirichlet(np.ones(len(node["actions"])))
            behaviour[node["id"]] = dict(zip(node["actions"], probabilities))
    return behaviour


def test_kuhn_matrix_gives_the_expected_utility_of_random_strategies(games):
    game = games["kuhn"]
    A = payoff_matrix(game)
    rng = np.random.default_rng(2024)
    for _ in range(5):
        b1, b2 = (random_behaviour(game[key], rng) for key in KEYS)
        x, y = to_sequence_form(game[KEYS[0]], b1), to_sequence_form(game[KEYS[1]], b2)
        assert x @ A @ y == pytest.approx(kuhn_expected_utility(b1, b2), abs=1e-12)


def test_leduc_chance_weights_are_exact_card_removal_fractions(games):
    # Every entry sums (chance probability) x (chips won) over the suits of one deal of
    # ranks: each term is a multiple of 1/(6*5*4); a rank deal has probability at most
    # 2/6 * 2/5 * 2/4 = 8/120 and at most 13 chips change hands.
    for entry in games["leduc"]["utility_pl1"]:
        value = Fraction(entry["value"]).limit_denominator(1000)
        assert float(value) == entry["value"]
        assert (120 * value).denominator == 1
        assert abs(value) <= Fraction(13 * 8, 120)


def test_json_floats_round_trip(games):
    reread = json.loads(SequenceFormGame.from_dict(games["leduc"]).to_json())
    assert [e["value"] for e in reread["utility_pl1"]] == [e["value"] for e in games["leduc"]["utility_pl1"]]


THREE_ROUNDS = dict(ranks=3, suits=2, raise_sizes=(2, 4, 4), max_raises=1)  # 984 sequences per player


def test_a_third_round_deals_a_second_public_card_after_card_removal():
    game = poker.leduc(ranks=4, suits=1, raise_sizes=(1, 2, 2), max_raises=1)
    check_well_formed(game)
    signals = {n["id"]: n["signals"] for n in game["decision_problem_pl1"] if n["type"] == "observation"}
    # Player 1 holds the jack and saw the queen: the second public card is the ten or the king.
    assert signals["oJ/kk/Q/kk_pl1"] == ["T", "K"]
    assert (
        poker.game_size(game)["decision_problem_pl1"][1]
        > poker.game_size(poker.leduc(ranks=4, suits=1))["decision_problem_pl1"][1]
    )


def test_largest_payoff_is_the_largest_entry_over_its_deal_probability(games):
    # Leduc's largest entry: both raise twice in both rounds and show down distinct cards, a deal of chance
    # 2/6 * 2/5 * 2/4; the stake is the ante and every raise.
    assert poker.leduc_largest_payoff() == 13
    A = payoff_matrix(games["leduc"])
    assert np.abs(A).max() == pytest.approx(13 * float(Fraction(2, 6) * Fraction(2, 5) * Fraction(2, 4)))
    assert poker.leduc_largest_payoff((2, 4, 4), 2, 1) == 21


def test_three_round_leduc_one_lp_regret_and_an_independent_lp_agree():
    from gamelp.models.nash import solve_equilibrium, solve_nash
    from gamelp.regret import solve_regret
    from gamelp.units import payoff_range

    data = poker.leduc(**THREE_ROUNDS)
    game = SequenceFormGame.from_dict(data)
    independent = nash_value(data, 1)  # scipy's HiGHS on the LP built here from the dict
    both = solve_equilibrium(game)
    assert both.value == pytest.approx(independent, abs=1e-9)
    assert solve_nash(game, 2).value == pytest.approx(-independent, abs=1e-9)
    # Both strategies from the one LP: neither player gains by a best response.
    assert game.saddle_point_gap(both.x, both.y) < 1e-9
    assert game.guaranteed_value(1, both.x) == pytest.approx(independent, abs=1e-9)
    assert game.guaranteed_value(2, both.y) == pytest.approx(-independent, abs=1e-9)
    # Regret self-play to NashConv 1e-3 of the largest payoff: its average strategies are within that gap.
    unit = poker.leduc_largest_payoff(THREE_ROUNDS["raise_sizes"], THREE_ROUNDS["max_raises"])
    regret = solve_regret(game, "pdcfr+", 100_000, target_gap=1e-3 * unit / payoff_range(game.A))
    assert regret.converged and 0 < regret.gap <= 1e-3 * unit
    assert regret.gap == pytest.approx(game.saddle_point_gap(regret.x, regret.y))
    assert abs(regret.value - independent) <= regret.gap
    assert independent - regret.gap <= game.guaranteed_value(1, regret.x) <= independent


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(ranks=1), "ranks"),
        (dict(suits=0), "suits"),
        (dict(ranks=2, suits=1), "fewer than the 3 cards"),
        (dict(raise_sizes=(2,)), "raise_sizes"),
        (dict(raise_sizes=(2, 0)), "raise size"),
        (dict(max_raises=0), "max_raises"),
        (dict(ante=1.5), "ante"),
    ],
)
def test_bad_rules_are_refused(kwargs, fragment):
    with pytest.raises(PokerRulesError, match=fragment):
        poker.leduc(**kwargs)


def test_command_line_writes_builtin_files_and_a_variant(tmp_path, capsys):
    assert poker.main([str(tmp_path), "--leduc-ranks", "4", "--leduc-suits", "3"]) == 0
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == ["kuhn.json", "leduc.json", "leduc_r4_s3_m2_b2-4_a1.json", "rps.json"]
    variant = json.loads((tmp_path / "leduc_r4_s3_m2_b2-4_a1.json").read_text(encoding="utf-8"))
    assert variant == poker.leduc(ranks=4, suits=3)
    assert "252 decision points / 588 sequences" in capsys.readouterr().out


def test_command_line_writes_a_variant_with_three_betting_rounds(tmp_path, capsys):
    argv = [str(tmp_path), "--leduc-raise-sizes", "2", "4", "4", "--leduc-max-raises", "1"]
    assert poker.main(argv) == 0
    variant = json.loads((tmp_path / "leduc_r3_s2_m1_b2-4-4_a1.json").read_text(encoding="utf-8"))
    assert variant == poker.leduc(**THREE_ROUNDS)
    assert "492 decision points / 984 sequences" in capsys.readouterr().out  # the solvers add the empty one
    with pytest.raises(SystemExit) as exit_info:
        poker.main([str(tmp_path), "--leduc-raise-sizes", "2"])
    assert exit_info.value.code == 2 and "at least 2" in capsys.readouterr().err


def test_command_line_reports_bad_rules(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        poker.main([str(tmp_path / "out"), "--leduc-suits", "0"])
    assert exit_info.value.code == 2
    assert "suits" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "variant, rounds, numbers",
    [("13x4", False, (13, 4)), (" 3x2 ", False, (3, 2)), ("4x2", True, (4, 2, 2)), ("5x2x3", True, (5, 2, 3))],
)
def test_a_leduc_variant_is_read_as_its_numbers(variant, rounds, numbers):
    assert poker.parse_leduc_variant(variant, rounds=rounds) == numbers


@pytest.mark.parametrize("variant", ["13x", "x4", "0x2", "-1x2", "4x2x3", "4 x 2", "4X2", "13x4a", ""])
def test_what_is_not_a_leduc_variant_is_refused_naming_the_form(variant):
    with pytest.raises(PokerRulesError, match=r"is not a Leduc variant: expected RxS \(R ranks, S suits\), such as"):
        poker.parse_leduc_variant(variant)


@pytest.mark.parametrize("variant", ["4x2x1", "4x2x3x2", "4x0x3"])
def test_a_variant_with_rounds_plays_two_rounds_at_least(variant):
    with pytest.raises(PokerRulesError, match=r"or RxSxN \(N >= 2 betting rounds\)"):
        poker.parse_leduc_variant(variant, rounds=True)
