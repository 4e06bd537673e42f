"""Every script under scripts/ parses its options (``--help`` exits 0 and describes it)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parents[1] / "scripts").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_help(script):
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


def test_homework_nash_script_prints_the_values():
    script = SCRIPTS[0].parent / "hw2_2_1_nash.py"
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {tuple(line.split()[:2]): line.split() for line in done.stdout.splitlines()[1:]}
    assert float(rows[("leduc", "1")][2]) == pytest.approx(-0.0856, abs=1e-4)
    assert float(rows[("kuhn", "2")][2]) == pytest.approx(1 / 18, abs=1e-7)
    assert abs(float(rows[("leduc", "sum")][2])) < 1e-9


# ---- scripts at a tiny scale, their printed figures checked ----
def run_script(name, *args, cwd):
    done = subprocess.run([sys.executable, str(SCRIPTS[0].parent / name), *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


# ---- the Esche (2018) scripts ----
def test_esche_lp_script_prints_the_thesis_mix_and_uniqueness(tmp_path):
    out = run_script("esche_3_1_lp.py", "--out", tmp_path, cwd=tmp_path)
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    for deck, share in (("0C40L", "20.0000%"), ("8C28L", "40.0000%"), ("8C32L", "40.0000%")):
        assert rows[deck][2] == rows[deck][3] == share
    assert float(rows["value"][2]) == pytest.approx(0.5, abs=1e-9)
    assert "verdict: the optimum is unique" in out and "-> 16x16" in out


def test_esche_robust_script_values_are_certified(tmp_path):
    out = run_script("esche_3_2_robust.py", "--out", tmp_path, cwd=tmp_path)
    values = [float(x) for x in next(line for line in out.splitlines() if line.strip().startswith("value")).split()[1:]]
    worst = [float(x) for x in next(line for line in out.splitlines() if line.strip().startswith("worst")).split()[1:]]
    assert values == worst  # each robust mix's recomputed worst case equals the value its LP certified
    nominal, box2, box3, ball2, ball3 = values
    assert nominal == pytest.approx(0.5, abs=1e-3) and box3 < box2 < nominal and ball3 < ball2 < nominal
    # Binomial deviations: the full game's robust values (0.477434 and 0.468997); the nominally reduced
    # game gave 0.476906 and 0.467670, so only a reduction valid across the uncertainty set may run first.
    saved = {(run["kind"], run["radius"]): run["value"] for run in json.loads((tmp_path / "esche_3_2_robust.json").read_text())}
    assert saved["ellipsoidal", 2.0] == pytest.approx(0.477434, abs=2e-6)
    assert saved["ellipsoidal", 3.0] == pytest.approx(0.468997, abs=2e-6)
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()[:1].isdigit()}
    assert "20 /  20.0" in rows["0C40L"] and "40 /  40.0" in rows["8C28L"]


def test_esche_cap_script_counts_draws(tmp_path):
    out = run_script("esche_table_3_2_cap.py", "--games", 4, "--caps", 3, 5000, "--evaluation", "life", cwd=tmp_path)
    table = {int(line.split()[0].replace(",", "")): line.split() for line in out.splitlines()[2:]}
    assert set(table) == {3, 5000}
    assert int(table[5000][1]) == 0 and int(table[3][1]) > 0  # a cap of 3 evaluations draws games
    assert table[5000][4:6] == ["20", "152"]  # the thesis's 100 games at a cap of 5,000


def test_esche_players_script_prints_three_pairings(tmp_path):
    out = run_script("esche_3_4_players.py", "--games", 2, "--repeats", 2, "--workers", 1, "--quiet",
                     "--out", tmp_path, cwd=tmp_path)
    rates = {line[:30].strip(): line[30:].split() for line in out.splitlines() if " v " in line[:30]}
    assert set(rates) == {"imperfect v aggressive", "imperfect v defensive", "defensive v aggressive"}
    for ours, _, thesis, _ in rates.values():
        assert 0 <= float(ours) <= 100 and float(ours) * 4 % 100 == 0  # 4 games a pairing: quarters
    assert [rates[k][2] for k in sorted(rates)] == ["34", "48", "62"]
    assert "12 games over 3 pairs" in out
    out = run_script("esche_3_4_players.py", "--games", 2, "--repeats", 1, "--workers", 1, "--quiet",
                     "--defensive", "hand", "--out", tmp_path, cwd=tmp_path)
    rates = {line[:30].strip() for line in out.splitlines() if " v " in line[:30]}
    assert rates == {"imperfect v aggressive", "imperfect v defensive-hand", "defensive-hand v aggressive"}


def test_esche_players_script_plays_the_16_creature_case_by_exact_sampled_deals(tmp_path):
    import sqlite3

    out = run_script("esche_3_4_players.py", "--max-creatures", 16, "--games", 2, "--repeats", 1, "--workers", 1,
                     "--life-threshold", 0, "--eval-cap", 100000, "--perfect", "--quiet", "--out", tmp_path,
                     cwd=tmp_path)
    rates = {line[:30].strip(): line[30:].split() for line in out.splitlines() if " v " in line[:30]}
    assert list(rates) == ["imperfect v aggressive", "perfect v aggressive"]
    assert rates["imperfect v aggressive"][2:] == ["59", "(8.9)"] and rates["perfect v aggressive"][2:] == ["-", "(-)"]
    assert "6 games over 3 pairs" in out  # imperfect v perfect is played too
    (run,) = tmp_path.glob("c16_g2_r1_n2_life0_cap100000_s0_perfect")
    params = json.loads(sqlite3.connect(run / "games.sqlite").execute("SELECT params FROM run").fetchone()[0])
    assert params["life_threshold"] == 0 and len(params["decks"]) == 55
    nodes = sqlite3.connect(run / "games.sqlite").execute("SELECT nodes FROM matches").fetchall()
    assert len(nodes) == 6 and all(n > 0 for (n,) in nodes)  # a searching player in every game


def test_esche_small_sweep_script_solves_what_it_played(tmp_path):
    out = run_script("esche_small_sweep.py", "--creatures", 0, "--bolts", "28,40", "--games", 2, "--repeats", 2,
                     "--workers", 1, "--quiet", "--out", tmp_path, cwd=tmp_path)
    values = {line[:28].strip(): float(line.split("value")[1].split()[0]) for line in out.splitlines()
              if line.startswith(("nominal", "robust"))}
    assert values["nominal (thesis form)"] == values["nominal (general form)"]
    assert all(0 <= v <= 1 for v in values.values()) and "4 games over 1 pairs" in out


def test_esche_forest_script_reports_both_forests(tmp_path):
    out = run_script("esche_table_3_1_forest.py", "--train-games", 12, "--sets", 2, "--set-games", 6, "--jobs", 1,
                     "--label-cap", 20000, "--curve", "1,9", "--plot", tmp_path / "curve.png", cwd=tmp_path)
    wrong = next(line for line in out.splitlines() if line.startswith("wrong of 200, mean")).split()[4:]
    assert all(0 <= float(x) <= 200 for x in wrong[:2]) and wrong[2:] == ["37.800", "34.250"]
    assert "(thesis: 81.1%, 82.9%)" in out
    # Figures 3.1 and 3.2: one row per tree count; 9 trees' accuracy is Table 3.1's
    curve = {int(line.split()[0]): line.split() for line in out.split("(Figures 3.1 and 3.2)")[1].splitlines()
             if line.strip()[:1].isdigit()}
    assert sorted(curve) == [1, 9] and (tmp_path / "curve.png").stat().st_size > 1000
    assert f"9 trees {curve[9][1]}" in out
    assert 1 - float(wrong[0]) / 200 == pytest.approx(float(curve[9][1][:-1]) / 100, abs=5e-4)


def test_esche_appendix_b_script_scores_cells_against_the_thesis(tmp_path):
    run_script("esche_appendix_b.py", "run", "--creatures", 0, "--bolts", "28,40", "--games", 4, "--evaluation",
               "life", "--rule", "first_player_draws=1", "--quiet", "--out", tmp_path / "run", cwd=tmp_path)
    out = run_script("esche_appendix_b.py", "compare", tmp_path / "run", "--plot", tmp_path / "d.png", cwd=tmp_path)
    row = next(line.split() for line in out.splitlines() if line.split()[:2] == ["0C28L", "0C40L"])
    ours, se, thesis, z = map(float, row[2:])
    assert thesis == 0.492 and ours * 4 % 1 == 0  # Appendix B's cell; 4 games
    assert z == pytest.approx((ours - thesis) / (se**2 + thesis * (1 - thesis) / 200) ** 0.5, abs=0.01)
    assert (tmp_path / "d.png").stat().st_size > 1000
    run_script("esche_appendix_b.py", "run", "--creatures", 0, "--bolts", "28,40", "--games", 6, "--evaluation",
               "life", "--quiet", "--out", tmp_path / "base", cwd=tmp_path)
    out = run_script("esche_appendix_b.py", "paired", tmp_path / "base", tmp_path / "run", cwd=tmp_path)
    row = next(line.split() for line in out.splitlines() if line.split()[:2] == ["0C28L", "0C40L"])
    games, base, other, to_row, to_col = int(row[2]), float(row[3]), float(row[4]), int(row[5]), int(row[6])
    assert games == 4 and other == ours and (other - base) * games == pytest.approx(to_row - to_col)



def test_esche_appendix_b_seats_tests_appendix_b_and_counts_first_player_wins(tmp_path):
    import re

    from gamelp.games.mtg.sweep import stored_games

    run_script("esche_appendix_b.py", "run", "--creatures", 0, "--bolts", "28,40", "--games", 8, "--evaluation",
               "life", "--rule", "starting_life=3", "--quiet", "--out", tmp_path / "life3", cwd=tmp_path)
    out = run_script("esche_appendix_b.py", "seats", tmp_path / "life3", cwd=tmp_path)
    # Appendix B's 153 cells between decks of 24 to 44 bolts sit far too close to 1/2 for seat-independent games
    assert "Appendix B: 153 cells, T = 57.8 (lower-tail p = 1.6e-13)" in out and "at least 89.4%" in out
    share, games = re.search(r"first player won ([\d.]+)% of (\d+) decided games", out).groups()
    decided = [g for g in stored_games(tmp_path / "life3") if g.winner is not None]
    assert int(games) == len(decided) == 8
    assert float(share) == pytest.approx(100 * sum(g.winner == g.first for g in decided) / 8, abs=0.05)


def test_esche_std_script_interpolates_as_the_thesis(tmp_path):
    import numpy as np

    from gamelp.matrix import MatrixGame

    out = run_script("esche_3_2_std.py", "--games", 4, "--repeats", 2, "--evaluation", "life", "--life-threshold", 0,
                     "--rule", "starting_life=3", "--quiet", "--out", tmp_path / "std", cwd=tmp_path)
    measured = MatrixGame.from_csv(tmp_path / "std" / "payoffs.csv", std_path=tmp_path / "std" / "std.csv")
    full = MatrixGame.from_csv(tmp_path / "std" / "appendix_b_std.csv")
    at, row = {d: k for k, d in enumerate(measured.row_labels)}, {d: k for k, d in enumerate(full.row_labels)}
    assert len(full.row_labels) == 33 and "4C8L" in at and "4C12L" not in at  # bolts divisible by 8 are played
    assert full.payoffs[row["0C16L"], row["8C32L"]] == measured.std[at["0C16L"], at["8C32L"]]
    # 4C12L was not played: the mean of its neighbours 4C8L and 4C16L; 0C20L and 4C12L: four pairs
    assert full.payoffs[row["4C12L"], row["0C40L"]] == pytest.approx(
        (measured.std[at["4C8L"], at["0C40L"]] + measured.std[at["4C16L"], at["0C40L"]]) / 2)
    assert full.payoffs[row["0C20L"], row["4C12L"]] == pytest.approx(np.mean(
        [measured.std[at[a], at[b]] for a in ("0C16L", "0C24L") for b in ("4C8L", "4C16L")]))
    mean = float(next(line for line in out.splitlines() if line.startswith("ours, all 33 decks")).split()[-2][:-1])
    assert mean == pytest.approx(100 * full.payoffs[np.triu_indices(33, 1)].mean(), abs=0.05)
    assert "thesis (Section 3.2)                    2.3%    7.8%" in out


def test_esche_table_3_4_script_solves_the_16_creature_decks(tmp_path):
    from gamelp.matrix import MatrixGame
    from gamelp.models.nash import solve_matrix_nash

    out = run_script("esche_table_3_4.py", "--creatures", "12,16", "--bolts", "0,16,20", "--games", 4, "--evaluation",
                     "life", "--life-threshold", 0, "--rule", "starting_life=3", "--quiet", "--out", tmp_path, cwd=tmp_path)
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["12C20L"][0] == "14" and rows["16C16L"][0] == "6"  # Table 3.4's shares beside ours
    assert "deck game over 5 of the thesis's 55 decks" in out  # 12C0L has 12 non-land cards: not analysed
    played = MatrixGame.from_csv(tmp_path / "payoffs.csv")
    keep = [k for k, d in enumerate(played.row_labels) if d != "12C0L"]
    value = solve_matrix_nash(played.submatrix(keep, keep), "row").value
    assert float(rows["value"][0]) == pytest.approx(value, abs=5e-5)

def test_esche_table_3_4_script_plays_only_the_analysed_decks(tmp_path):
    import sqlite3

    out = run_script("esche_table_3_4.py", "--creatures", "12,16", "--bolts", "0,16,20", "--games", 2, "--analysed",
                     "--evaluation", "life", "--life-threshold", 0, "--quiet", "--out", tmp_path, cwd=tmp_path)
    assert "deck game over 5 of the thesis's 55 decks" in out and "20 games over 10 pairs" in out
    params = json.loads(sqlite3.connect(tmp_path / "games.sqlite").execute("SELECT params FROM run").fetchone()[0])
    assert params["decks"] == ["12C16L", "12C20L", "16C0L", "16C16L", "16C20L"]


def test_esche_forest_accuracy_counts_wrong_verdicts(tmp_path):
    import os
    import re

    import numpy as np
    from sklearn.ensemble import RandomForestClassifier

    from gamelp.games.mtg.forest import FEATURE_NAMES, THRESHOLDS, Forest, cache_name, trusted_dir

    rng = np.random.default_rng(0)
    X = rng.integers(0, 21, size=(200, len(FEATURE_NAMES))).astype(float)
    model = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, (X[:, 0] > X[:, 22]).astype(int))
    cache = trusted_dir(tmp_path / "cache" / "mtg")
    (tmp_path / "cache").chmod(0o700)
    for t in THRESHOLDS:
        Forest.from_sklearn(model, t).save(cache / cache_name(t, 1000, 0, 9))
    done = subprocess.run([sys.executable, str(SCRIPTS[0].parent / "esche_appendix_b.py"), "forest-accuracy",
                           "--decks", "0C28L,0C40L", "--games", "4", "--quiet"], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GAMELP_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    positions, wrong = (int(x) for x in re.search(r"on (\d+) positions.*: (\d+) wrong", done.stdout).groups())
    assert 0 < positions <= 4 and 0 <= wrong <= positions


def test_vieira_choices_script_prints_figure_5_4_and_clusters(tmp_path):
    out = run_script("vieira_5_4_choices.py", "--drafts", 40, "--plot", tmp_path / "choices.png", cwd=tmp_path)
    table = {tuple(line.split()[:2]): line.split()[2:] for line in out.split("(Figure 5.5)")[0].splitlines()
             if len(line.split()) in (3, 4) and line.split()[2][0].isdigit()}
    assert len(table) == 28 and table[("max-attack", "icebox")][1] == "55.76"
    assert table[("immediate", "lstm")][1] == "55.39"
    assert all(abs(float(row[0]) - 33.3) < 6 for pair, row in table.items() if "random" in pair)  # 1,200 turns
    clusters = [line.split() for line in out.split("(Figure 5.5)")[1].splitlines() if "cluster" in line]
    assert [row[0] for row in clusters] == ["random", "max-attack", "icebox", "closet-ai", "coac", "immediate",
                                             "history", "lstm"]
    assert (tmp_path / "choices.png").stat().st_size > 1000



@pytest.mark.parametrize("name, args, message", [
    ("esche_appendix_b.py", ["seats", "no-such-run"], "no-such-run/games.sqlite: cannot open the game store"),
    ("esche_3_2_std.py", ["--games", "0", "--out", "out"], "games per pair must be at least 1, got 0"),
    ("vieira_5_4_choices.py", ["--learned", "nobody", "--drafts", "2"], "unknown drafter 'nobody'"),
    ("esche_table_3_1_forest.py", ["--curve", "0,9"], "tree counts must be at least 1"),
])
def test_scripts_refuse_bad_input_in_one_line(tmp_path, name, args, message):
    done = subprocess.run([sys.executable, str(SCRIPTS[0].parent / name), *args], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
