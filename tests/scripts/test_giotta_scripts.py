"""The Giotta (2020) scripts (scripts/giotta/) at a tiny scale: the figures main() returns, checked.

Each test imports a script and calls ``main`` with small sizes, then checks
the returned figures against the binomial laws of the fixed-weight matches,
the paper's Tables 1, 2 and 4, an independent recomputation of the ADP
weights, and the JSON summary the script wrote.
"""

import json

import numpy as np
import pytest
from conftest import load_script, refusal


def test_giotta_pennies_scores_and_step_rule(tmp_path, capsys):
    script = load_script("giotta/giotta_pennies.py")
    result = script.main(["--plays", "1200", "--runs", "20", "--games", "200", "--reps", "400", "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "pennies.json").read_text())
    assert saved["fixed_weights"] == json.loads(json.dumps(result.fixed_weights))
    assert saved["step_rule"] == result.step_rule and saved["regret"] == result.regret
    assert (result.plays, result.runs, result.games) == (1200, 20, 200)
    assert list(result.fixed_weights) == ["favours A", "favours B", "equilibrium"]
    for pair in result.fixed_weights.values():
        match = pair["A"][0] * pair["B"][0] + pair["A"][1] * pair["B"][1]  # A wins when the coins match
        assert (pair["expected_A"], pair["expected_B"]) == pytest.approx((200 * match, 200 * (1 - match)))
        assert pair["mean_A"] + pair["mean_B"] == pytest.approx(200)  # every game has a winner
        assert abs(pair["mean_A"] - 200 * match) <= 4 * (200 * match * (1 - match) / 400) ** 0.5
    assert [result.fixed_weights[k]["expected_A"] for k in ("favours A", "favours B")] == pytest.approx([108, 84])
    rule = result.step_rule
    for player in "AB":  # weights start pure and move in steps of 0.05: a mean of 20 runs is a multiple of 0.0025
        steps = rule[f"final_mean_heads_{player}"] * 400
        assert steps == pytest.approx(round(steps))
        assert rule[f"mean_abs_dev_{player}_after_1000"] < 0.25  # settled near 1/2 (the paper), not at 0 or 1
    assert result.regret["mwu_average_heads_A"] == pytest.approx(0.5, abs=0.01)  # MWU's average: the equilibrium
    assert all((tmp_path / f"pennies_{name}.png").stat().st_size > 1000 for name in ("weights", "regret", "scores"))
    script.report(result)
    out = capsys.readouterr().out
    for label, pair in result.fixed_weights.items():
        assert f"fixed {label:12s}: A wins {pair['mean_A']:7.1f} (expected {pair['expected_A']:6.1f})" in out


def test_giotta_rps_scores_beside_table_4(tmp_path, capsys):
    script = load_script("giotta/giotta_rps.py")
    result = script.main(["--games", "200", "--reps", "400", "--plays", "300", "--runs", "10", "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "rps.json").read_text())
    assert saved["fixed_weights"] == result.fixed_weights
    assert saved["step_rule"] == result.step_rule and saved["regret"] == result.regret
    beats = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]])  # rock beats scissors, paper rock, scissors paper
    for pair in result.fixed_weights.values():
        a, b = np.array(pair["A"]), np.array(pair["B"])
        p_a, p_b = a @ beats @ b, b @ beats @ a
        assert (pair["expected_A"], pair["expected_B"]) == pytest.approx((200 * p_a, 200 * p_b))
        for mean, sd, p in ((pair["mean_A"], pair["sd_A"], p_a), (pair["mean_B"], pair["sd_B"], p_b)):
            assert abs(mean - 200 * p) <= 4 * (200 * p * (1 - p) / 400) ** 0.5
            assert sd == pytest.approx((200 * p * (1 - p)) ** 0.5, rel=0.2)  # binomial spread
    favours_a = result.fixed_weights["favours A"]
    assert (favours_a["expected_A"], favours_a["expected_B"]) == pytest.approx((72, 48))
    # Giotta (2020), Table 4: the means of the first 10 matches of 1,000 games at these weights lie within 3 standard
    # errors of our expected scores scaled to 1,000 games
    assert result.paper_table4 == pytest.approx((360.7, 238.3))
    for paper, expected in zip(result.paper_table4, (favours_a["expected_A"] * 5, favours_a["expected_B"] * 5)):
        assert abs(paper - expected) < 3 * (expected * (1 - expected / 1000) / 10) ** 0.5
    for weights in (result.step_rule["final_mean_weights_A"], *result.regret.values()):
        assert sum(weights) == pytest.approx(1) and min(weights) >= 0
    assert all((tmp_path / f"rps_{name}.png").stat().st_size > 1000 for name in ("weights", "regret", "scores"))
    script.report(result)
    assert "paper (Table 4, first 10 of 1000 matches, favours A): A 360.7, B 238.3" in capsys.readouterr().out


def test_giotta_yugioh_tables_and_adp_weights(tmp_path, capsys):
    script = load_script("giotta/giotta_yugioh.py")
    result = script.main(["--games", "400", "--cell-games", "20", "--workers", "1", "--quiet", "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "yugioh.json").read_text())
    assert (result.table1_games, result.table2_games) == (400, 120)
    table1, table2 = result.table1.to_dict(orient="index"), result.table2.to_dict(orient="index")
    for ours, written in ((table1, saved["table1"]), (table2, saved["table2"])):  # yugioh.json holds the tables
        assert list(written) == list(ours) and all(written[k] == pytest.approx(ours[k]) for k in ours)
    # Giotta (2020), Tables 1 and 2: coefficient (standard error)
    assert {k: (v["paper"], v["paper_se"]) for k, v in table1.items()} == {
        "const": (0.115, 0.127),
        "FirstA": (1.132, 0.081),
        "HAMon": (-0.284, 0.017),
        "HASpell": (0.158, 0.028),
        "HATrap": (0.806, 0.030),
        "PrAwMST": (-0.679, 0.064),
        "PrAwM": (-0.177, 0.064),
        "PrAwST": (-0.090, 0.064),
    }
    assert {k: (v["paper"], v["paper_se"]) for k, v in table2.items()} == {
        "const": (-0.973, 0.082),
        "FirstA": (2.691, 0.160),
        "AsHalf": (-0.334, 0.117),
        "AsAlways": (-0.397, 0.116),
        "AsADP": (-0.242, 0.115),
    }
    # ADP: the weights in {0.4, ..., 0.8}^3 maximising our Table 1 logit, for the hand recorded after A's main phase
    coef = {k: v["ours"] for k, v in table1.items()}
    grid = np.array(np.meshgrid(*[np.round(np.arange(0.4, 0.81, 0.1), 1)] * 3, indexing="ij")).reshape(3, -1).T
    assert len(result.adp) == 10 and not result.interactions
    for row, saved_row in zip(result.adp, saved["adp"]):
        assert saved_row == pytest.approx(row)
        hand, first = json.loads(row["hand (M,S,T)"]), row["first"]
        held = [max(hand[0] - 1, 0), 0, 0] if first else hand
        eta = (
            coef["const"]
            + coef["FirstA"] * first
            + np.dot([coef["HAMon"], coef["HASpell"], coef["HATrap"]], held)
            + grid @ [coef["PrAwMST"], coef["PrAwM"], coef["PrAwST"]]
        )
        best = int(np.argmax(eta))
        assert [row["PrAwMST"], row["PrAwM"], row["PrAwST"]] == pytest.approx(grid[best].tolist())
        assert row["P(win)"] == pytest.approx(1 / (1 + np.exp(-eta[best])))
    assert saved["win_rate_by_strategy"] == result.win_rate_by_strategy
    for rate in result.win_rate_by_strategy.values():  # 2 cells of 20 games each
        assert rate * 40 == pytest.approx(round(rate * 40))
    overall, first, second = result.a_win_rate, result.a_win_rate_first, result.a_win_rate_second
    assert min(first, second) <= overall <= max(first, second)
    assert saved["first_player_win_rate_table2"] == result.first_player_win_rate
    assert 0 <= result.first_player_win_rate <= 1 and (tmp_path / "yugioh_adp.png").stat().st_size > 1000
    for name in ("yugioh_table1.csv", "yugioh_table2.csv"):
        assert (tmp_path / name).read_text().splitlines()[0] == ",paper,paper_se,ours,ours_se"
    script.report(result)
    out = capsys.readouterr().out
    assert "N = 400 (paper 27440)" in out and "N = 120 (paper 960)" in out and "AsADP" in out


@pytest.mark.parametrize(
    "name, args, message",
    [
        ("giotta_pennies.py", ["--runs", "0"], "argument --runs: must be at least 1, got 0"),
        ("giotta_rps.py", ["--eta", "-1"], "argument --eta: must be a finite number > 0, got -1"),
        ("giotta_yugioh.py", ["--workers", "two"], "argument --workers: expected a number, got 'two'"),
    ],
)
def test_giotta_scripts_refuse_bad_input_in_one_line(tmp_path, name, args, message):
    assert message in refusal("giotta/" + name, [*args, "--out", "out"], tmp_path)
    assert not (tmp_path / "out").exists()
