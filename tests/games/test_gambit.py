"""Gambit .nfg / .efg (gamelp.games.gambit): hand-written files, round trips, and the faults named."""

import json
import re
from fractions import Fraction

import numpy as np
import pytest
from conftest import deep_efg

from gamelp.cli import main
from gamelp.errors import GameFileError
from gamelp.game import load_game
from gamelp.games.gambit import GambitFileError, read_efg, read_nfg, write_nfg
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash, solve_nash

# A card game by hand: chance deals High (1/3) or Low (2/3); player 1 sees it and bets or folds (folding
# costs 1, and a first outcome of +1 on the deal node is paid on every path below it); after a bet player 2,
# who does not see the card, calls (player 1 wins 2 with High, loses 2 with Low) or folds (player 1 wins 1).
SIGNAL_EFG = """EFG 2 R "Bluff" { "Player 1" "Player 2" }
"a chance move, an outcome on an inner node, repeated outcomes and information sets"

c "deal" 1 "" { "High" 1/3 "Low" 2/3 } 1 "ante" { 1, -1 }
p "" 1 1 "H" { "bet" "fold" } 0
p "" 2 1 "facing a bet" { "call" "fold" } 0
t "" 2 "win 2" { 2, -2 }
t "" 3 "win 1" { 1, -1 }
t "" 4 "lose 1" { -1, 1 }
p "" 1 2 "L" { "bet" "fold" } 0
p "" 2 1 "" 0
t "" 5 "lose 2" { -2, 2 }
t "" 3
t "" 4
"""

# The same game in normal form: player 1's plans (action with High / action with Low) against call and fold,
# expected payoffs with the ante included; profile (fold/fold, *) has the null outcome 0.
SIGNAL_NFG = """NFG 1 R "Bluff, normal form" { "Player 1" "Player 2" }
{ { "bet/bet" "bet/fold" "fold/bet" "fold/fold" } { "call" "fold" } }
""
{
{ "" 1/3 -1/3 }
{ "" 1, -1 }
{ "" -2/3 2/3 }
{ "" 2 -2 }
{ "" 2/3 -2/3 }
{ "" 4/3 -4/3 }
}
1 2 3 0 4 5 6 0
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def normal_form_by_hand():
    """Player 1's expected payoff (ante 1 included) for each plan against call and fold."""
    high = {"bet": {"call": 2, "fold": 1}, "fold": {"call": -1, "fold": -1}}
    low = {"bet": {"call": -2, "fold": 1}, "fold": {"call": -1, "fold": -1}}
    plans = [("bet", "bet"), ("bet", "fold"), ("fold", "bet"), ("fold", "fold")]
    return np.array([[1 + high[h][c] / 3 + 2 * low[lo][c] / 3 for c in ("call", "fold")] for h, lo in plans])


def test_efg_and_its_normal_form_nfg_agree(tmp_path):
    efg = read_efg(write(tmp_path, "bluff.efg", SIGNAL_EFG))
    nfg = read_nfg(write(tmp_path, "bluff.nfg", SIGNAL_NFG))
    assert nfg.row_labels == ("bet/bet", "bet/fold", "fold/bet", "fold/fold")
    assert np.allclose(nfg.payoffs, normal_form_by_hand())
    assert efg.pl1.decision_points == ("H", "L") and efg.pl2.decision_points == ("facing a bet",)
    value = solve_nash(efg, 1).value
    assert np.isclose(value, solve_matrix_nash(nfg).value) and np.isclose(value, -solve_nash(efg, 2).value)
    # By hand: bet/bet and bet/fold mixed 1/6 : 5/6 make player 2 indifferent, calling 2/3 makes player 1
    # indifferent; the value is 1 - (2/3)(1/6) = 8/9: player 1 always bets High and bluffs Low 1/6 of the time.
    assert np.isclose(value, 8 / 9)
    behaviour = efg.pl1.to_behavioural(solve_nash(efg, 1).strategy)
    assert np.isclose(behaviour["H"]["bet"], 1) and np.isclose(behaviour["L"]["bet"], 1 / 6)
    assert np.isclose(efg.pl2.to_behavioural(solve_nash(efg, 2).strategy)["facing a bet"]["call"], 2 / 3)


def test_payoff_version_and_strategy_counts(tmp_path):
    text = 'NFG 1 R "pennies" { "P1" "P2" } { 2 2 }\n\n1 -1 -1 1 -1 1 1 -1\n'
    game = read_nfg(write(tmp_path, "pennies.nfg", text))
    assert game.row_labels == ("1", "2") and np.array_equal(game.payoffs, [[1, -1], [-1, 1]])
    assert np.isclose(solve_matrix_nash(game).value, 0.0)


def test_nfg_round_trip_is_exact(tmp_path):
    game = MatrixGame(np.random.default_rng(2).normal(size=(4, 6)), [f'row "{k}"' for k in range(4)], None)
    back = read_nfg(write_nfg(game, tmp_path / "random.nfg"))
    assert np.array_equal(back.payoffs, game.payoffs)
    assert back.row_labels == game.row_labels and back.col_labels == game.col_labels


def test_efg_written_for_an_openspiel_game_reads_back_to_the_same_sequence_form(tmp_path, capsys):
    pytest.importorskip("pyspiel")
    from gamelp.games.openspiel import load_openspiel

    path = tmp_path / "kuhn.efg"
    assert main(["export-game", "openspiel:kuhn_poker", "-o", str(path)]) == 0
    assert "58 nodes, 12 information sets" in capsys.readouterr().out
    ours, theirs = load_game(path), load_openspiel("kuhn_poker")
    assert ours.pl1.labels == theirs.pl1.labels and ours.pl2.labels == theirs.pl2.labels
    assert abs(ours.A - theirs.A).max() < 1e-15
    assert np.isclose(solve_nash(ours, 1).value, -1 / 18)


def entries_by_label(game):
    A = game.A.tocoo()
    return {(game.pl1.labels[i], game.pl2.labels[j]): v for i, j, v in zip(A.row, A.col, A.data) if v != 0}


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_efg_of_the_poker_generators_reads_back_to_the_built_in_game(tmp_path, name):
    path = tmp_path / f"{name}.efg"
    assert main(["export-game", name, "-o", str(path)]) == 0
    ours, builtin = load_game(path), load_game(name)
    for p in (1, 2):
        assert set(ours.player(p).labels) == set(builtin.player(p).labels)
    theirs = entries_by_label(builtin)
    read = entries_by_label(ours)
    assert read.keys() == theirs.keys()
    assert max(abs(read[key] - theirs[key]) for key in theirs) < 1e-12


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('NFG 1 R "" { "a" "b" "c" } { 1 1 1 }\n0 0 0\n', "3 players; gamelp handles two-player zero-sum games only"),
        (
            'NFG 1 R "" { "a" "b" } { 1 2 }\n1 1 0 0\n',
            "line 2: profile (1, 2): payoffs 0 and 0 sum to 0, but those of profile (1, 1) to 2: a general-sum game",
        ),
        ('NFG 1 R "" { "a" "b" } { 1 2 }\n1 -1 x 1\n', "line 2: expected payoffs of profile (1, 2)"),
        ('NFG 1 R "" { "a" "b" } { 1 1 }\n{ { "" 1 -1 } }\n2\n', "outcome 2 of profile (1, 1) is not defined"),
        ('EFG 2 R "" { "a" "b" }\n""\np "" 1 1 "" { "x" "y" } 0\nt "" 1 "" { 1, -1 }\n', "expected a node"),
        ('EFG 2 R "" { "a" "b" }\np "" 3 1 "" { "x" } 0\nt "" 0\n', "player 3 does not exist"),
        ('EFG 2 R "" { "a" "b" }\nc "" 1 "" { "x" 1/2 "y" 1/3 } 0\nt "" 0\nt "" 0\n', "are not a distribution"),
        ("GARBAGE", "not a Gambit"),
    ],
)
def test_bad_files_name_the_fault(tmp_path, text, fragment):
    suffix = ".nfg" if text.startswith(("NFG", "GARBAGE")) else ".efg"
    with pytest.raises(GambitFileError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        (read_nfg if suffix == ".nfg" else read_efg)(write(tmp_path, "bad" + suffix, text))


@pytest.mark.parametrize("player", [1, 2])
def test_imperfect_recall_is_refused_naming_the_player(tmp_path, player):
    # The player acts at information set 2 after both of its own actions at information set 1: it forgot.
    text = (
        f'EFG 2 R "" {{ "a" "b" }}\np "" {player} 1 "" {{ "x" "y" }} 0\np "" {player} 2 "" {{ "u" "v" }} 0\n'
        f't "" 0\nt "" 0\np "" {player} 2 "" {{ "u" "v" }} 0\nt "" 0\nt "" 0\n'
    )
    with pytest.raises(GameFileError, match=f"player {player} forgets its own past"):
        read_efg(write(tmp_path, "forget.efg", text))


def test_matrix_solve_reads_nfg(tmp_path, capsys):
    path = write(tmp_path, "bluff.nfg", SIGNAL_NFG)
    assert main(["matrix", "solve", str(path), "--json"]) == 0
    assert '"value"' in capsys.readouterr().out
    assert main(["matrix", "solve", str(write(tmp_path, "bad.nfg", "NFG 1 R"))]) == 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pygambit_solves_our_nfg_to_our_equilibrium(tmp_path, seed):
    """Gambit itself reads the .nfg we write and its LP (pygambit.nash.lp_solve) finds our game's value;
    its mixes are optimal in our game and ours in its (equilibria may differ when they are not unique)."""
    gbt = pytest.importorskip("pygambit")
    rng = np.random.default_rng(seed)
    C = rng.integers(-5, 6, size=(4 + seed, 5)).astype(float)
    game = MatrixGame(C, [f"r{i}" for i in range(C.shape[0])], [f"c{j}" for j in range(C.shape[1])])
    write_nfg(game, tmp_path / "game.nfg")
    read = gbt.read_nfg(str(tmp_path / "game.nfg"))
    equilibrium = gbt.nash.lp_solve(read, rational=True).equilibrium
    players = list(read.players)
    assert read.get_strategies(players[0]) == list(game.row_labels)
    assert read.get_strategies(players[1]) == list(game.col_labels)
    p = np.array([float(share) for _, share in equilibrium[players[0]]])
    q = np.array([float(share) for _, share in equilibrium[players[1]]])
    value = solve_matrix_nash(game, "row").value
    assert float(dict(equilibrium.payoffs)[players[0]]) == pytest.approx(value, abs=1e-9)
    assert (p @ C).min() == pytest.approx(value, abs=1e-9) and (C @ q).max() == pytest.approx(value, abs=1e-9)
    ours = solve_matrix_nash(game, "row").strategy
    assert (ours @ C).min() == pytest.approx(value, abs=1e-9)


# ---------------------------------------------------------------------- hostile files (issue 23, items 6-8)
@pytest.mark.parametrize(
    "payoff, fragment",
    [
        ("1e400", "'1e400' is out of the floating-point range"),
        ("1e999999999", "'1e999999999' is out of the floating-point range"),
        ("-2e308", "'-2e308' is out of the floating-point range"),
        ("9" * 400, "is out of the floating-point range"),
        ("1" * 5000 + "/3", "has more than 4,000 digits"),
        ("1e" + "9" * 5000, "has more than 4,000 digits"),
    ],
)
@pytest.mark.parametrize("kind", ["nfg", "efg"])
def test_huge_payoffs_are_refused_naming_the_entry_without_big_number_arithmetic(tmp_path, payoff, fragment, kind):
    negated = payoff[1:] if payoff.startswith("-") else "-" + payoff
    text = (
        f'NFG 1 R "" {{ "a" "b" }} {{ 1 1 }}\n{payoff} {negated}\n'
        if kind == "nfg"
        else f'EFG 2 R "" {{ "a" "b" }}\np "" 1 1 "" {{ "x" }} 0\np "" 2 1 "" {{ "y" }} 0\n'
        f't "" 1 "win" {{ {payoff}, {negated} }}\n'
    )
    where = "profile (1, 1)" if kind == "nfg" else "outcome 1"
    with pytest.raises(GambitFileError, match=rf"line \d+: .*{re.escape(where)}.*{re.escape(fragment)}"):
        (read_nfg if kind == "nfg" else read_efg)(write(tmp_path, f"huge.{kind}", text))


@pytest.mark.parametrize(
    "text, value",
    [
        ('NFG 1 R "" { "a" "b" } { 1 2 }\n0e999999999 0 1e-999999999 -1e-999999999\n', 0.0),
        ('NFG 1 R "" { "a" "b" } { 1 2 }\n1.5e300 -15e299 1e308 -1e308\n', 1.5e300),
    ],
)
def test_extreme_but_representable_payoffs_are_read(tmp_path, text, value):
    assert read_nfg(write(tmp_path, "extreme.nfg", text)).payoffs[0, 0] == value


def test_a_huge_chance_exponent_is_refused(tmp_path):
    text = 'EFG 2 R "" { "a" "b" }\nc "" 1 "" { "x" 1e999999999 } 0\nt "" 0\n'
    with pytest.raises(GambitFileError, match="line 2: chance probability .*'1e999999999' is out of the floating"):
        read_efg(write(tmp_path, "chance.efg", text))


@pytest.mark.parametrize(
    "strategies, fragment",
    [
        ("{ 100000 100000 }", "declares 100000 x 100000 strategy profiles, more than the 10,000,000 gamelp reads"),
        ("{ 3000 3000 }", "declares 3000 x 3000 strategy profiles, which need 18,000,000 payoffs; the file has 2"),
        ("{ 1" + "0" * 5000 + " 1 }", "player 1's number of strategies has more than 4,000 digits"),
    ],
)
def test_declared_sizes_are_checked_before_allocating(tmp_path, strategies, fragment):
    path = write(tmp_path, "big.nfg", f'NFG 1 R "" {{ "a" "b" }} {strategies}\n1 -1\n')
    with pytest.raises(GambitFileError, match=re.escape(fragment)):
        read_nfg(path)


def test_declared_outcome_profiles_are_checked_against_the_outcome_numbers_present(tmp_path):
    path = write(tmp_path, "big.nfg", 'NFG 1 R "" { "a" "b" } { 2000 2000 }\n{ { "" 1 -1 } }\n1 1 1\n')
    with pytest.raises(
        GambitFileError, match="2000 x 2000 strategy profiles, which need 4,000,000 outcome numbers; the file has 3"
    ):
        read_nfg(path)


def test_a_deeply_nested_efg_is_read_without_recursion(tmp_path):
    game = read_efg(write(tmp_path, "deep.efg", deep_efg(5000)))
    assert game.pl1.num_decision_points == 5001 and np.isclose(solve_nash(game, 1).value, 5000)
    # Chance halves at each level: the expected payoff is sum_k k / 2^(k+1) for k < n, plus n / 2^n.
    value = solve_nash(read_efg(write(tmp_path, "chance.efg", deep_efg(3000, chance=True))), 1).value
    assert np.isclose(value, 1.0)


def test_the_cli_solves_a_deeply_nested_efg(tmp_path, capsys):
    assert main(["solve", str(write(tmp_path, "deep.efg", deep_efg(3000))), "--json"]) == 0
    assert np.isclose(json.loads(capsys.readouterr().out)["value"], 3000)


@pytest.mark.parametrize("players", ['{ "alone" }', "{ }"])
def test_a_game_without_two_players_is_refused_saying_what_gamelp_handles(tmp_path, capsys, players):
    path = write(tmp_path, "solo.efg", f'EFG 2 R "" {players}\np "" 1 1 "" {{ "x" }} 0\nt "" 1 "" {{ 1 }}\n')
    with pytest.raises(GambitFileError, match="gamelp handles two-player zero-sum games"):
        read_efg(path)
    assert main(["solve", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gamelp handles two-player zero-sum games" in err


def test_a_two_player_efg_where_one_player_never_acts_says_so(tmp_path):
    path = write(
        tmp_path, "solo.efg", 'EFG 2 R "" { "a" "b" }\np "" 1 1 "" { "x" "y" } 0\nt "" 1 "" { 1, -1 }\nt "" 0\n'
    )
    with pytest.raises(
        GameFileError, match="player 2 never acts; gamelp handles two-player zero-sum games in which both players act"
    ):
        read_efg(path)


def test_an_outcome_given_two_different_payoffs_is_refused(tmp_path):
    """Gamelp kept the first payoffs of an outcome number and silently ignored different ones given later."""
    text = (
        'EFG 2 R "" { "a" "b" }\np "" 1 1 "" { "x" "y" } 0\np "" 2 1 "" { "u" } 0\nt "" 1 "win" { 1, -1 }\n'
        'p "" 2 1 "" { "u" } 0\nt "" 1 "win" { 5, -5 }\n'
    )
    with pytest.raises(GambitFileError, match="line 6: outcome 1 is given the payoffs 5, -5 here and 1, -1 before"):
        read_efg(write(tmp_path, "twice.efg", text))


# ---------------------------------------------------------------------- constant-sum games (issue 45, item 1)
# Matching pennies worth 10 in all: each player's payoffs add up to 10 at every terminal, 2 of them paid by an
# outcome on the root.  Player 1's payoffs less 5 are [[2, -3], [-1, 1]]: p(H) = 2/7, value -1/7, so player 1
# gets 5 - 1/7 = 34/7 and player 2 5 + 1/7 = 36/7.
CONSTANT_SUM_EFG = """EFG 2 R "pennies worth 10" { "P1" "P2" } ""
p "" 1 1 "" { "H" "T" } 1 "stake" { 1, 1 }
p "" 2 1 "" { "h" "t" } 0
t "" 2 "" { 6, 2 }
t "" 3 "" { 1, 7 }
p "" 2 1 "" { "h" "t" } 0
t "" 4 "" { 3, 5 }
t "" 5 "" { 5, 3 }
"""
CONSTANT_SUM_NFG = """NFG 1 R "pennies worth 10" { "P1" "P2" } { { "H" "T" } { "h" "t" } } ""
7 3 4 6 2 8 6 4
"""
CONSTANT_SUM_OUTCOME_NFG = """NFG 1 R "pennies worth 10" { "P1" "P2" } { { "H" "T" } { "h" "t" } } ""
{ { "" 7, 3 } { "" 4, 6 } { "" 2, 8 } { "" 6, 4 } { "unused, any sum" 0, 0 } }
1 2 3 4
"""


@pytest.mark.parametrize(
    "name, text", [("g.efg", CONSTANT_SUM_EFG), ("g.nfg", CONSTANT_SUM_NFG), ("o.nfg", CONSTANT_SUM_OUTCOME_NFG)]
)
def test_a_constant_sum_game_is_read_as_zero_sum_with_its_constant(tmp_path, name, text):
    """Issue 45: Gambit's constant-sum games (4cards.efg, csg4.nfg, ...) were refused as not zero-sum."""
    path = write(tmp_path, name, text)
    game = read_efg(path) if name.endswith(".efg") else read_nfg(path)
    assert game.constant_sum == 10
    value = solve_nash(game, 1).value if name.endswith(".efg") else solve_matrix_nash(game).value
    assert np.isclose(value, -1 / 7)  # the zero-sum game u1 - c/2


def test_the_cli_reports_constant_sum_values_with_the_constant(tmp_path, capsys):
    efg, nfg = write(tmp_path, "g.efg", CONSTANT_SUM_EFG), write(tmp_path, "g.nfg", CONSTANT_SUM_NFG)
    for argv, value in [
        (["solve", str(efg)], 34 / 7),
        (["solve", str(efg), "--player", "2"], 36 / 7),
        (["solve", str(efg), "--method", "cfr+", "--iterations", "3000"], 34 / 7),
        (["matrix", "solve", str(nfg)], 34 / 7),
        (["matrix", "solve", str(nfg), "--player", "col"], 34 / 7),  # the game's (row player's) value
    ]:
        assert main([*argv, "--json"]) == 0
        payload = json.loads(capsys.readouterr().out)
        assert payload["constant_sum"] == 10 and np.isclose(payload["zero_sum_value"], value - 5, atol=1e-3)
        assert np.isclose(payload["value"], value, atol=1e-3)
    assert main(["solve", str(efg), "--exact", "--json"]) == 0
    exact = json.loads(capsys.readouterr().out)["exact"]
    assert (exact["value"], exact["constant_sum"]) == ("34/7", "10")
    assert main(["matrix", "solve", str(nfg), "--exact", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exact"]["value"] == "34/7"
    assert main(["solve", str(efg), "--player", "both"]) == 0
    out = capsys.readouterr().out
    assert "player 1 value 4.857142857" in out and "player 2 value 5.142857143" in out
    assert "constant-sum game: the payoffs sum to 10" in out
    assert main(["solve", str(efg), "--player", "both", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "player 1 value 34/7" in out and "player 2 value 36/7" in out


def test_a_deep_efg_is_read_in_linear_time_and_its_errors_name_the_line(tmp_path, monkeypatch):
    """Reading OpenSpiel's Liar's Dice as .efg (294,883 nodes) ran past 15 minutes: each terminal counted the lines
    before it.  The line ends are now found once; an error on the last line of a long file still names it."""
    from gamelp.games import gambit

    scans = []
    finditer = re.finditer
    monkeypatch.setattr(gambit.re, "finditer", lambda pattern, text: scans.append(pattern) or finditer(pattern, text))
    deal = " ".join(f'"{i}" 1/2000' for i in range(2000))
    head = f'EFG 2 R "" {{ "1" "2" }}\n""\np "" 1 1 "" {{ "a" }} 0\np "" 2 1 "" {{ "b" }} 0\nc "" 1 "" {{ {deal} }} 0\n'
    terminals = "\n".join(f't "" {i + 1} "" {{ {i}, {-i} }}' for i in range(2000))
    game = read_efg(write(tmp_path, "wide.efg", head + terminals + "\n"))
    assert game.A.sum() == pytest.approx(sum(range(2000)) / 2000) and scans.count("\n") == 1  # once, not per terminal
    with pytest.raises(GambitFileError, match="line 2006: unexpected text after the last node"):
        read_efg(write(tmp_path, "bad.efg", head + terminals + '\nx ""\n'))


def test_kdet_reports_a_constant_sum_games_values_with_the_constant(tmp_path, capsys):
    """Issue 45: ``kdet`` printed the zero-sum game's values of a constant-sum game, without its constant."""
    efg = write(tmp_path, "g.efg", CONSTANT_SUM_EFG)
    assert main(["kdet", str(efg), "--sweep", "--json", "--quiet"]) == 0
    rows = json.loads(capsys.readouterr().out)
    # k = 0 is the Nash value 34/7; k = 1 the best pure strategy: H guarantees -3 + 5 = 2, T -1 + 5 = 4.
    assert [row["k"] for row in rows] == [0, 1]
    assert np.isclose(rows[0]["value"], 34 / 7) and np.isclose(rows[1]["value"], 4)
    assert all(row["constant_sum"] == 10 and np.isclose(row["zero_sum_value"], row["value"] - 5) for row in rows)
    assert all(np.isclose(row["bound"], row["value"], atol=1e-6) for row in rows)
    assert main(["kdet", str(efg), "--k", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "constant-sum game: the payoffs sum to 10" in out and "value= 4.00000000" in out


def test_a_json_game_file_keeps_the_constant_sum(tmp_path, capsys):
    """Issue 45: ``export-game`` to JSON dropped a constant-sum game's constant; the file now keeps it exactly."""
    efg, out = write(tmp_path, "g.efg", CONSTANT_SUM_EFG), tmp_path / "g.json"
    assert main(["export-game", str(efg), "-o", str(out)]) == 0
    capsys.readouterr()
    assert json.loads(out.read_text())["constant_sum"] == "10"
    assert load_game(out).constant_sum == 10
    assert main(["solve", str(out), "--exact", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exact"]["value"] == "34/7"
    data = json.loads(out.read_text())
    for bad in ["1e999999999", "ten", "1/0", " 10", True, float("nan"), [10]]:
        data["constant_sum"] = bad
        out.write_text(json.dumps(data))
        with pytest.raises(GameFileError, match="constant_sum"):
            load_game(out)
    data["constant_sum"] = 7.5
    out.write_text(json.dumps(data))
    assert load_game(out).constant_sum == Fraction(15, 2)


def test_pygambit_values_the_constant_sum_game_as_gamelp_reports_it(tmp_path, capsys):
    """Gambit's own LP solves the constant-sum file: its equilibrium payoffs are gamelp's values with the constant."""
    gbt = pytest.importorskip("pygambit")
    for name, text, read in [("g.efg", CONSTANT_SUM_EFG, gbt.read_efg), ("g.nfg", CONSTANT_SUM_NFG, gbt.read_nfg)]:
        path = write(tmp_path, name, text)
        payoffs = [payoff for _, payoff in gbt.nash.lp_solve(read(str(path)), rational=True).equilibrium.payoffs]
        command = ["solve", str(path), "--player", "both"] if name.endswith(".efg") else ["matrix", "solve", str(path)]
        assert main([*command, "--json"]) == 0
        payload = json.loads(capsys.readouterr().out)
        assert float(payoffs[0]) == pytest.approx(payload["value"], abs=1e-9)
        assert float(payoffs[1]) == pytest.approx(payload["constant_sum"] - payload["value"], abs=1e-9)


@pytest.mark.parametrize(
    "text, fragment",
    [
        (
            CONSTANT_SUM_EFG.replace("{ 5, 3 }", "{ 5, 4 }"),
            "line 8: this terminal: payoffs 6 and 5 sum to 11, but those of the terminal on line 4 to 10",
        ),
        (CONSTANT_SUM_NFG.replace("6 4\n", "6 5\n"), "profile (T, t): payoffs 6 and 5 sum to 11, but those of"),
        (
            CONSTANT_SUM_OUTCOME_NFG.replace("1 2 3 4", "1 2 3 0"),
            "profile (T, t) (outcome 0): payoffs 0 and 0 sum to 0",
        ),
    ],
)
def test_a_general_sum_game_is_refused_in_one_line(tmp_path, capsys, text, fragment):
    path = write(tmp_path, "general.efg" if text.startswith("EFG") else "general.nfg", text)
    command = ["solve", str(path)] if text.startswith("EFG") else ["matrix", "solve", str(path)]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and "a general-sum game" in err


def test_strategies_sharing_a_label_are_numbered_apart(tmp_path, capsys):
    """Issue 45: Gambit's 2x2_bimatrix_all_zero_payoffs.nfg labels strategies "" or both "1": it was refused."""
    text = 'NFG 1 R "all zero" { "P1" "P2" } { { "" "" } { "1" "1" } } ""\n0 0 0 0 0 0 0 0\n'
    game = read_nfg(write(tmp_path, "zero.nfg", text))
    assert game.row_labels == ("1", "2") and game.col_labels == ("1:1", "2:1")
    assert main(["matrix", "solve", str(tmp_path / "zero.nfg"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 0


# ---------------------------------------------------------------------- .efg that Gambit reads (issue 45, item 5)
# Small OpenSpiel games whose names Gambit refused as labels: goofspiel's multi-line information states,
# matrix_rps's and battleship's padded or multi-line names, dark_hex's boards.
GAMBIT_ROUND_TRIP = [
    "kuhn_poker",
    "matrix_rps",
    "goofspiel(num_cards=3)",
    "dark_hex(num_rows=2,num_cols=2)",
    "battleship(board_width=2,board_height=1,ship_sizes=[1],ship_values=[1],num_shots=2)",
]


@pytest.mark.parametrize("name", GAMBIT_ROUND_TRIP)
def test_gambit_reads_the_efg_written_for_an_openspiel_game_to_the_same_value(tmp_path, capsys, name):
    """pygambit 17 refused these files ("Invalid label: ... no control characters, must not begin or end with
    whitespace ..."); its sequence-form LP now values them as gamelp values the OpenSpiel game."""
    gbt = pytest.importorskip("pygambit")
    pytest.importorskip("pyspiel")
    from gamelp.games.openspiel import load_openspiel

    path = tmp_path / "game.efg"
    assert main(["export-game", f"openspiel:{name}", "-o", str(path)]) == 0
    capsys.readouterr()
    equilibrium = gbt.nash.lp_solve(gbt.read_efg(str(path)), rational=True).equilibrium
    theirs = [float(payoff) for _, payoff in equilibrium.payoffs]
    ours = solve_nash(load_openspiel(name), 1).value
    assert theirs == pytest.approx([ours, -ours], abs=1e-9)
    assert solve_nash(read_efg(path), 1).value == pytest.approx(ours, abs=1e-9)  # and gamelp reads it back


# Gambit's LP takes minutes on these (Leduc: more than 300 s on this machine), so Gambit checks gamelp's
# equilibrium instead: read by pygambit, the .efg must hold a game in which gamelp's equilibrium of the OpenSpiel
# game (set at each of Gambit's information sets, found by its label) has no regret and pays gamelp's value.
_EFG_DECISION = re.compile(r'p "(?:[^"\\]|\\.)*" (\d+) (\d+) "((?:[^"\\]|\\.)*)"')


def _infoset_labels(path) -> dict[int, list[str]]:
    """Each player's information-set labels in the order a preorder walk first meets them (the file's order)."""
    labels: dict[int, list[str]] = {1: [], 2: []}
    seen = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if match := _EFG_DECISION.match(line):
            player, number, label = int(match[1]), int(match[2]), match[3]
            if (player, number) not in seen:
                seen.add((player, number))
                labels[player].append(label)
    return labels


@pytest.mark.slow
@pytest.mark.parametrize("name", ["leduc_poker", "liars_dice"])
def test_gambit_finds_no_regret_in_gamelps_equilibrium_of_an_openspiel_game_written_as_efg(tmp_path, capsys, name):
    """Issue 45: the round trip through pygambit for the OpenSpiel games the tests export that are too large for
    Gambit's LP."""
    gbt = pytest.importorskip("pygambit")
    pytest.importorskip("pyspiel")
    from gamelp.games.gambit import gambit_label
    from gamelp.games.openspiel import load_openspiel
    from gamelp.models.nash import solve_equilibrium

    path = tmp_path / "game.efg"
    assert main(["export-game", f"openspiel:{name}", "-o", str(path)]) == 0
    capsys.readouterr()
    game = load_openspiel(name)
    equilibrium = solve_equilibrium(game)
    gambit = gbt.read_efg(str(path))
    profile = gambit.mixed_behavior_profile()
    labels = _infoset_labels(path)
    for number, (player, strategy) in enumerate(zip(gambit.players, (equilibrium.x, equilibrium.y)), 1):
        behaviour = {gambit_label(point): p for point, p in game.player(number).to_behavioural(strategy).items()}
        members = gambit.get_infosets(player)
        assert len(members) == len(labels[number]) == len(behaviour) == game.player(number).num_decision_points
        for history, label in zip(members, labels[number]):
            where = gbt.H.path(*history.actions)
            actions = gambit.get_actions(where)  # OpenSpiel's legal actions in order, as the file labels them
            assert len(actions) == len(behaviour[label])
            profile[where] = dict(zip(actions, behaviour[label].values()))
    assert profile.max_regret() < 1e-9
    assert [profile.payoffs[p] for p in gambit.players] == pytest.approx([equilibrium.value, -equilibrium.value])


@pytest.mark.parametrize(
    "text, label",
    [
        ("  Rock  ", "Rock"),
        ("P0 hand\nP1 bets:\t1  2\r\n", "P0 hand P1 bets: 1 2"),
        ("a\x00b\x7fc\x85d", "a b c d"),
        ("\ud800x", "?x"),
        ("ok label", "ok label"),
    ],
)
def test_labels_are_made_ones_gambit_accepts(text, label):
    from gamelp.games.gambit import gambit_label

    assert gambit_label(text) == label


def test_labels_made_alike_stay_distinct():
    from gamelp.games.gambit import _EfgWriter

    writer = _EfgWriter()
    writer.player(1, "a\nb", [" x", "x ", "y"])
    writer.player(1, "a b", ["x"])
    writer.player(1, "a\nb", [" x", "x ", "y"])
    assert writer.lines == [
        'p "" 1 1 "a b" { "1:x" "2:x" "3:y" } 0',
        'p "" 1 2 "a b #2" { "x" } 0',
        'p "" 1 1 "a b" { "1:x" "2:x" "3:y" } 0',
    ]
