"""The benchmark, Giotta (2020), homework and Vieira (2020) scripts at a tiny scale, their printed figures checked.

Each test runs one script as its own process (the way a user runs it) with
the smallest sizes its flags allow, then checks what it printed or wrote
against a published value (Kuhn -1/18, Leduc -0.085606, Giotta's tables,
Vieira's Figure 5.2), against an independent computation in the test (a
scipy LP, a replayed game), or against the other figures of the same run
(ratios against the printed times, counts against the flags).  Peers that
are not gamelp dependencies (OpenSpiel, pygambit: in the ``test`` extra) join
where they are installed and are left out with the script's own flag where
not (always for nashpy and gym-locm), so that no test installs anything.
"""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
LEDUC = -0.085606  # player 1's value of Leduc hold'em, to the six digits the scripts print
OPENSPIEL = all(importlib.util.find_spec(name) for name in ("pyspiel", "ecos"))  # ecos: its sequence-form LP's solver
PYGAMBIT = importlib.util.find_spec("pygambit") is not None


def run(name, *args, cwd):
    done = subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def numbers(line):
    """The numbers of a printed line, in order (thousands separators allowed)."""
    return [float(x.replace(",", "")) for x in re.findall(r"[-+]?\d[\d,]*\.?\d*(?:e[-+]?\d+)?", line)]


def matrix_value(A):
    """The row player's value of the zero-sum matrix game A, by scipy's LP (not gamelp's)."""
    m, n = A.shape
    # max v  s.t.  x^T A e_j >= v for every column j, x on the simplex
    done = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.c_[-A.T, np.ones(n)], b_ub=np.zeros(n),
                   A_eq=np.r_[np.ones(m), 0.0][None], b_eq=[1.0], bounds=[(0, None)] * m + [(None, None)])
    return -done.fun


# ---- Giotta (2020) ----
def test_giotta_pennies_scores_and_step_rule(tmp_path):
    out = run("giotta_pennies.py", "--plays", 1200, "--runs", 20, "--games", 200, "--reps", 400, "--out", tmp_path,
              cwd=tmp_path)
    saved = json.loads((tmp_path / "pennies.json").read_text())
    for label, pair in saved["fixed_weights"].items():
        match = pair["A"][0] * pair["B"][0] + pair["A"][1] * pair["B"][1]  # A wins when the coins match
        assert (pair["expected_A"], pair["expected_B"]) == pytest.approx((200 * match, 200 * (1 - match)))
        assert pair["mean_A"] + pair["mean_B"] == pytest.approx(200)  # every game has a winner
        assert abs(pair["mean_A"] - 200 * match) <= 4 * (200 * match * (1 - match) / 400) ** 0.5
        assert f"fixed {label:12s}: A wins {pair['mean_A']:7.1f} (expected {200 * match:6.1f})" in out
    assert [saved["fixed_weights"][k]["expected_A"] for k in ("favours A", "favours B")] == pytest.approx([108, 84])
    rule = saved["step_rule"]
    for player in "AB":  # weights start pure and move in steps of 0.05: a mean of 20 runs is a multiple of 0.0025
        steps = rule[f"final_mean_heads_{player}"] * 400
        assert steps == pytest.approx(round(steps))
        assert rule[f"mean_abs_dev_{player}_after_1000"] < 0.25  # settled near 1/2 (the paper), not at 0 or 1
    assert saved["regret"]["mwu_average_heads_A"] == pytest.approx(0.5, abs=0.01)  # MWU's average: the equilibrium
    assert all((tmp_path / f"pennies_{name}.png").stat().st_size > 1000 for name in ("weights", "regret", "scores"))


def test_giotta_rps_scores_beside_table_4(tmp_path):
    out = run("giotta_rps.py", "--games", 200, "--reps", 400, "--plays", 300, "--runs", 10, "--out", tmp_path,
              cwd=tmp_path)
    saved = json.loads((tmp_path / "rps.json").read_text())
    beats = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]])  # rock beats scissors, paper rock, scissors paper
    for label, pair in saved["fixed_weights"].items():
        a, b = np.array(pair["A"]), np.array(pair["B"])
        p_a, p_b = a @ beats @ b, b @ beats @ a
        assert (pair["expected_A"], pair["expected_B"]) == pytest.approx((200 * p_a, 200 * p_b))
        for mean, sd, p in ((pair["mean_A"], pair["sd_A"], p_a), (pair["mean_B"], pair["sd_B"], p_b)):
            assert abs(mean - 200 * p) <= 4 * (200 * p * (1 - p) / 400) ** 0.5
            assert sd == pytest.approx((200 * p * (1 - p)) ** 0.5, rel=0.2)  # binomial spread
    favours_a = saved["fixed_weights"]["favours A"]
    assert (favours_a["expected_A"], favours_a["expected_B"]) == pytest.approx((72, 48))
    # Giotta (2020), Table 4: the means of the first 10 matches of 1,000 games at these weights lie within 3 standard
    # errors of our expected scores scaled to 1,000 games
    assert "paper (Table 4, first 10 of 1000 matches, favours A): A 360.7, B 238.3" in out
    for paper, expected in ((360.7, favours_a["expected_A"] * 5), (238.3, favours_a["expected_B"] * 5)):
        assert abs(paper - expected) < 3 * (expected * (1 - expected / 1000) / 10) ** 0.5
    for weights in (saved["step_rule"]["final_mean_weights_A"], *saved["regret"].values()):
        assert sum(weights) == pytest.approx(1) and min(weights) >= 0
    assert all((tmp_path / f"rps_{name}.png").stat().st_size > 1000 for name in ("weights", "regret", "scores"))


def test_giotta_yugioh_tables_and_adp_weights(tmp_path):
    out = run("giotta_yugioh.py", "--games", 400, "--cell-games", 20, "--workers", 1, "--quiet", "--out", tmp_path,
              cwd=tmp_path)
    saved = json.loads((tmp_path / "yugioh.json").read_text())
    assert "N = 400 (paper 27440)" in out and "N = 120 (paper 960)" in out
    table1, table2 = saved["table1"], saved["table2"]
    # Giotta (2020), Tables 1 and 2: coefficient (standard error)
    assert {k: (v["paper"], v["paper_se"]) for k, v in table1.items()} == {
        "const": (0.115, 0.127), "FirstA": (1.132, 0.081), "HAMon": (-0.284, 0.017), "HASpell": (0.158, 0.028),
        "HATrap": (0.806, 0.030), "PrAwMST": (-0.679, 0.064), "PrAwM": (-0.177, 0.064), "PrAwST": (-0.090, 0.064)}
    assert {k: (v["paper"], v["paper_se"]) for k, v in table2.items()} == {
        "const": (-0.973, 0.082), "FirstA": (2.691, 0.160), "AsHalf": (-0.334, 0.117), "AsAlways": (-0.397, 0.116),
        "AsADP": (-0.242, 0.115)}
    # ADP: the weights in {0.4, ..., 0.8}^3 maximising our Table 1 logit, for the hand recorded after A's main phase
    coef = {k: v["ours"] for k, v in table1.items()}
    grid = np.array(np.meshgrid(*[np.round(np.arange(0.4, 0.81, 0.1), 1)] * 3, indexing="ij")).reshape(3, -1).T
    for row in saved["adp"]:
        hand, first = json.loads(row["hand (M,S,T)"]), row["first"]
        held = [max(hand[0] - 1, 0), 0, 0] if first else hand
        eta = (coef["const"] + coef["FirstA"] * first + np.dot([coef["HAMon"], coef["HASpell"], coef["HATrap"]], held)
               + grid @ [coef["PrAwMST"], coef["PrAwM"], coef["PrAwST"]])
        best = int(np.argmax(eta))
        assert [row["PrAwMST"], row["PrAwM"], row["PrAwST"]] == pytest.approx(grid[best].tolist())
        assert row["P(win)"] == pytest.approx(1 / (1 + np.exp(-eta[best])))
    for rate in saved["win_rate_by_strategy"].values():  # 2 cells of 20 games each
        assert rate * 40 == pytest.approx(round(rate * 40))
    overall, first, second = numbers(re.search(r"A wins .*", out).group())
    assert min(first, second) <= overall <= max(first, second)
    assert 0 <= saved["first_player_win_rate_table2"] <= 1 and (tmp_path / "yugioh_adp.png").stat().st_size > 1000


# ---- the homework on sequence-form games ----
def test_hw2_1_omwu_last_iterate_converges_and_mwu_cycles(tmp_path):
    out = run("hw2_1_omwu.py", "--iterations", 300, "--size", 3, "--out", tmp_path, cwd=tmp_path)
    rows = {(line[:34].strip(), line.split()[-6]): line.split()[-5:] for line in out.splitlines()
            if line.split()[-6:-5] in (["mwu"], ["omwu"])}
    assert sorted(rows) == sorted((game, method) for game in ("rock-paper-superscissors", "random 3x3 (seed 0)")
                                  for method in ("mwu", "omwu"))
    for regret, bound, holds, _, _ in rows.values():
        assert holds == "True" and float(regret) <= float(bound)  # Problem 1.8's bound
    last_gap = {method: float(rows["rock-paper-superscissors", method][4]) for method in ("mwu", "omwu")}
    assert last_gap["omwu"] < 0.05 and last_gap["mwu"] > 1  # OMWU's last iterate converges, MWU's cycles
    value, *xy = numbers(out.split("ours: value ")[1])
    assert abs(value) < 1e-9 and xy[:3] == xy[3:6] == pytest.approx([0.5, 0.25, 0.25], abs=0.01)  # x = y: symmetric
    assert (tmp_path / "hw2_1_regret_and_gap.png").stat().st_size > 1000


def test_hw2_2_2_deterministic_values(tmp_path):
    out = run("hw2_2_2_deterministic.py", "--games", "rps,kuhn", cwd=tmp_path)
    rows = {tuple(line.split()[:2]): [float(x) for x in line.split()[2:]] for line in out.splitlines()[1:]}
    assert rows[("rps", "1")] == rows[("rps", "2")] == [-1, 0, 0]
    deterministic, lp, homework, mip_gap = rows[("kuhn", "1")]
    assert deterministic == pytest.approx(-1 / 6, abs=1e-8) and homework == -0.1667 and lp == pytest.approx(-1 / 18)
    deterministic, lp, mip_gap = rows[("kuhn", "2")]
    assert lp == pytest.approx(1 / 18) and deterministic <= lp and mip_gap < 1e-6


def test_hw2_2_3_search_and_mip_give_the_same_curves(tmp_path):
    curves = {}
    for method in ("search", "mip"):
        out = run("hw2_2_3_kdeterminism.py", "--games", "rps,kuhn", "--method", method, "--quiet", "--out",
                  tmp_path / method, cwd=tmp_path)
        assert out.count("k over the gap: none") == 4
        curves[method] = {game: json.loads((tmp_path / method / f"kdet_{game}.json").read_text())
                          for game in ("rps", "kuhn")}
        assert all((tmp_path / method / f"kdet_{game}.png").stat().st_size > 1000 for game in ("rps", "kuhn"))
    for game, ends in (("rps", ([0, -1], [0, -1])), ("kuhn", ([-1 / 18, -1 / 6], [1 / 18, -1 / 6]))):
        for player, (first, last) in zip(("player 1", "player 2"), ends):
            search, mip = curves["search"][game][player], curves["mip"][game][player]
            assert [p["k"] for p in search] == [p["k"] for p in mip] == list(range(len(search)))
            assert [p["value"] for p in search] == pytest.approx([p["value"] for p in mip], abs=1e-6)
            values = [p["value"] for p in search]
            assert values[0] == pytest.approx(first) and values[-1] == pytest.approx(last)  # LP and deterministic
            assert all(a >= b - 1e-9 for a, b in zip(values, values[1:]))  # forcing more points never helps
            assert all(p["determinism"] >= p["k"] for p in search)
    assert len(curves["search"]["kuhn"]["player 1"]) == 7  # Kuhn: 6 decision points per player


# ---- Vieira (2020) ----
def test_vieira_tournament_cells_beside_figure_5_2(tmp_path):
    out = run("vieira_5_2_tournament.py", "--battlers", "max-attack", "--matches", 10, "--sets", 2, "--learned",
              "immediate", "--quiet", "--out", tmp_path, cwd=tmp_path)
    cells = json.loads((tmp_path / "max-attack" / "figure_5_2.json").read_text())["cells"]
    names = ["random", "max-attack", "coac", "closet-ai", "icebox", "immediate"]
    assert "300 matches, 20 per pair" in out and len(cells) == 15
    # Vieira (2020), Figure 5.2 (max-attack battler): win rate (%) of the row drafter
    thesis = {("random", "max-attack"): 45.83, ("max-attack", "coac"): 51.24, ("coac", "closet-ai"): 43.12,
              ("closet-ai", "icebox"): 44.06, ("random", "immediate"): 19.51, ("icebox", "immediate"): 30.04}
    A = np.full((6, 6), 0.5)
    for cell in cells:
        assert cell["thesis"] == thesis.get((cell["row"], cell["col"]), cell["thesis"])
        assert cell["ours"] == pytest.approx((cell["first_seat"] + cell["second_seat"]) / 2)  # 10 matches a seat
        assert cell["ours"] / 5 == pytest.approx(round(cell["ours"] / 5))  # 20 matches: multiples of 5%
        assert cell["z"] == pytest.approx((cell["ours"] - cell["thesis"]) / cell["se"])
        i, j = names.index(cell["row"]), names.index(cell["col"])
        A[i, j], A[j, i] = cell["ours"] / 100, 1 - cell["ours"] / 100
    assert {(c["row"], c["col"]) for c in cells} >= set(thesis)
    ours_line = next(line for line in out.splitlines() if line.startswith("Nash over drafters, ours"))
    assert numbers(ours_line)[0] == pytest.approx(matrix_value(A), abs=5e-5)
    # in Vieira's table the Immediate drafter beats every other: a pure, unique equilibrium
    assert "Nash over drafters, Vieira (2020): value 0.5000; mix immediate 100.0%; unique" in out
    guaranteed, nominal = numbers(out.split("guaranteed value ")[1])[:2]
    assert guaranteed < nominal <= numbers(ours_line)[0] + 5e-5
    assert " 0.0%" not in out.split("robust mix")[1]
