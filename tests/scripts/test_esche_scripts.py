"""The Esche (2018) scripts at a tiny scale: each ``main`` returns its figures, checked here.

Every test imports its script in-process (``load_script``), calls ``main``
with the smallest sizes its flags allow and checks the returned dataclass
against the thesis's published values (Appendix B, Tables 3.1 to 3.5, the
optimum of Section 3.1), against an independent computation (a scipy LP, the
games the sweep stored) or against the files the script wrote.  Bad input is
checked as a user meets it: a subprocess, one line on stderr, exit status 2.
"""

import json
import sqlite3

import numpy as np
import pytest
from conftest import SCRIPTS, load_script, matrix_value, needs_exact_c, refusal

from gamelp.games.mtg.sweep import stored_games
from gamelp.matrix import MatrixGame

ESCHE = SCRIPTS / "esche"


def printed(module, result, capsys) -> str:
    """What ``report`` prints for ``result`` (and that it prints only to stdout)."""
    capsys.readouterr()
    module.report(result)
    out = capsys.readouterr()
    assert out.out and not out.err
    return out.out


# ---- Sections 3.1 to 3.3: the LPs on Appendix B
def test_esche_lp_finds_the_thesis_mix_and_uniqueness(tmp_path, capsys):
    script = load_script("esche/esche_3_1_lp.py")
    result = script.main(["--out", str(tmp_path)])
    for mix in (result.mix, result.reduced_mix):
        assert {deck for deck, share in mix.items() if share > 1e-9} == set(script.THESIS_MIX)
        for deck, share in script.THESIS_MIX.items():
            assert mix[deck] == pytest.approx(share, abs=1e-9)
    assert result.value == pytest.approx(0.5, abs=1e-9) and result.reduced_value == pytest.approx(0.5, abs=1e-9)
    assert result.value == pytest.approx(matrix_value(MatrixGame.from_csv(result.source).payoffs), abs=1e-9)
    assert result.shape == (33, 33) and result.reduced_shape == (16, 16) and not result.left_out
    assert result.verdict.unique and len(result.verdict.K) == 33 and result.verdict.rank == 33
    saved = json.loads((tmp_path / "esche_3_1_lp.json").read_text())
    assert saved["value"] == result.value and saved["strategy"] == result.mix
    out = printed(script, result, capsys)
    assert "verdict: the optimum is unique" in out and "-> 16x16" in out


def test_esche_robust_values_are_certified(tmp_path, capsys):
    script = load_script("esche/esche_3_2_robust.py")
    result = script.main(["--out", str(tmp_path)])
    assert [(run.kind, run.radius) for run in result.runs] == [
        ("nominal", 0.0),
        ("interval", 2.0),
        ("interval", 3.0),
        ("ellipsoidal", 2.0),
        ("ellipsoidal", 3.0),
    ]
    for run in result.runs:  # each robust mix's recomputed worst case equals the value its LP certified
        assert run.guaranteed_value == pytest.approx(run.value, abs=5e-5), run.kind
        assert sum(run.strategy.values()) == pytest.approx(1) and min(run.strategy.values()) >= -1e-9
    nominal, box2, box3, ball2, ball3 = (run.value for run in result.runs)
    assert nominal == pytest.approx(0.5, abs=1e-3) and box3 < box2 < nominal and ball3 < ball2 < nominal
    assert [run.verdict.unique for run in result.runs if run.kind == "interval"] == [True, True]
    # Binomial deviations: the full game's robust values (0.477434 and 0.468997); the nominally reduced
    # game gave 0.476906 and 0.467670, so only a reduction valid across the uncertainty set may run first.
    saved = {(run["kind"], run["radius"]): run["value"] for run in json.loads(result.results_path.read_text())}
    assert saved["ellipsoidal", 2.0] == pytest.approx(0.477434, abs=2e-6)
    assert saved["ellipsoidal", 3.0] == pytest.approx(0.468997, abs=2e-6)
    nominal_mix = result.runs[0].strategy
    assert nominal_mix["0C40L"] == pytest.approx(script.TABLE_3_5["0C40L"][0] / 100, abs=5e-4)
    assert nominal_mix["8C28L"] == pytest.approx(script.TABLE_3_5["8C28L"][0] / 100, abs=5e-4)
    assert result.deviations is None and result.games == 200
    out = printed(script, result, capsys)
    assert "20 /  20.0" in out and "binomial standard errors" in out


def test_esche_std_interpolates_as_the_thesis(tmp_path, capsys):
    script = load_script("esche/esche_3_2_std.py")
    result = script.main(
        [
            "--games",
            "4",
            "--repeats",
            "2",
            "--evaluation",
            "life",
            "--life-threshold",
            "0",
            "--rule",
            "starting_life=3",
            "--quiet",
            "--out",
            str(tmp_path / "std"),
        ]
    )
    measured = MatrixGame.from_csv(tmp_path / "std" / "payoffs.csv", std_path=tmp_path / "std" / "std.csv")
    full = MatrixGame.from_csv(tmp_path / "std" / "appendix_b_std.csv")
    assert (
        np.array_equal(full.payoffs, result.std.payoffs) and result.std_path == tmp_path / "std" / "appendix_b_std.csv"
    )
    at, row = {d: k for k, d in enumerate(measured.row_labels)}, {d: k for k, d in enumerate(full.row_labels)}
    assert len(full.row_labels) == 33 and "4C8L" in at and "4C12L" not in at  # bolts divisible by eight are played
    assert "4C8L" in result.tested and "4C12L" in result.interpolated
    assert len(result.tested) + len(result.interpolated) == 33 + len(set(result.tested) - set(full.row_labels))
    assert full.payoffs[row["0C16L"], row["8C32L"]] == measured.std[at["0C16L"], at["8C32L"]]
    # 4C12L was not played: the mean of its neighbours 4C8L and 4C16L; 0C20L and 4C12L: four pairs
    assert full.payoffs[row["4C12L"], row["0C40L"]] == pytest.approx(
        (measured.std[at["4C8L"], at["0C40L"]] + measured.std[at["4C16L"], at["0C40L"]]) / 2
    )
    assert full.payoffs[row["0C20L"], row["4C12L"]] == pytest.approx(
        np.mean([measured.std[at[a], at[b]] for a in ("0C16L", "0C24L") for b in ("4C8L", "4C16L")])
    )
    upper = full.payoffs[np.triu_indices(33, 1)]
    assert result.mean_all == pytest.approx(upper.mean()) and result.max_all == pytest.approx(upper.max())
    assert result.sweep.games == 4 * 2 * len(result.sweep.pairs)
    assert result.rules == {"starting_life": 3}
    out = printed(script, result, capsys)
    assert "thesis (Section 3.2)                    2.3%    7.8%" in out


def test_esche_small_sweep_solves_what_it_played(tmp_path, capsys):
    script = load_script("esche/esche_small_sweep.py")
    result = script.main(
        [
            "--creatures",
            "0",
            "--bolts",
            "28,40",
            "--games",
            "2",
            "--repeats",
            "2",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    values = {solve.name: solve.value for solve in result.solves}
    assert list(values) == [
        "nominal (thesis form)",
        "nominal (general form)",
        "robust interval R=2",
        "robust interval R=3",
        "robust ellipsoidal R=2",
        "robust ellipsoidal R=3",
    ]
    assert values["nominal (thesis form)"] == pytest.approx(values["nominal (general form)"], abs=1e-9)
    assert all(0 <= v <= 1 for v in values.values())
    assert result.sweep.games == 4 and len(result.sweep.pairs) == 1
    played = MatrixGame.from_csv(tmp_path / "payoffs.csv")
    assert values["nominal (general form)"] == pytest.approx(matrix_value(played.payoffs), abs=1e-9)
    saved = json.loads((tmp_path / "solution.json").read_text())
    assert [s["value"] for s in saved["solves"]] == list(values.values())
    assert "4 games over 1 pairs" in printed(script, result, capsys)


# ---- Tables 3.1, 3.2 and 3.4, Section 3.4
def test_esche_forest_reports_both_forests(tmp_path, capsys):
    script = load_script("esche/esche_table_3_1_forest.py")
    result = script.main(
        [
            "--train-games",
            "12",
            "--sets",
            "2",
            "--set-games",
            "6",
            "--jobs",
            "1",
            "--label-cap",
            "20000",
            "--curve",
            "1,9",
            "--plot",
            str(tmp_path / "curve.png"),
        ]
    )
    assert sorted(result.wrong) == [1, 9, 27] and result.sets == 2 and result.positions > 0
    for trees in (1, 9, 27):
        assert len(result.wrong[trees]) == 2 and all(0 <= w <= 200 for w in result.wrong[trees])
        assert all(ms > 0 for ms in result.millis[trees])
    assert result.curve == [1, 9] and (tmp_path / "curve.png").stat().st_size > 1000
    assert result.accuracy(9).mean() == pytest.approx(1 - np.mean(result.wrong[9]) / 200)
    out = printed(script, result, capsys)
    wrong_row = next(line for line in out.splitlines() if line.startswith("wrong of 200, mean"))
    assert wrong_row.endswith("37.800    34.250") and "(thesis: 81.1%, 82.9%)" in out
    assert f"9 trees {result.accuracy(9).mean():.1%}" in out and "(Figures 3.1 and 3.2)" in out


def test_esche_cap_counts_draws(capsys):
    script = load_script("esche/esche_table_3_2_cap.py")
    result = script.main(["--games", "4", "--caps", "3", "5000", "--evaluation", "life"])
    rows = {row.cap: row for row in result.rows}
    assert list(rows) == [3, 5000] and result.games == 4
    assert rows[5000].draws == 0 and rows[3].draws > 0  # a cap of 3 evaluations draws games
    assert all(row.mean_evaluations > 0 and row.seconds > 0 for row in result.rows)
    assert rows[5000].thesis == (20, 152) and rows[3].thesis is None  # the thesis's 100 games at a cap of 5,000
    assert "5,000" in printed(script, result, capsys)


def test_esche_players_play_three_pairings(tmp_path, capsys):
    script = load_script("esche/esche_3_4_players.py")
    result = script.main(["--games", "2", "--repeats", "2", "--workers", "1", "--quiet", "--out", str(tmp_path)])
    rates = {(p.row, p.col): p for p in result.pairings}
    assert set(rates) == {("imperfect", "aggressive"), ("imperfect", "defensive"), ("defensive", "aggressive")}
    for p in rates.values():
        assert 0 <= p.ours <= 100 and p.ours * 4 % 100 == pytest.approx(0, abs=1e-9)  # 4 games a pairing: quarters
    assert [rates[k].thesis for k in sorted(rates)] == [34, 48, 62]
    assert result.batch.games == 12 and len(result.batch.pairs) == 3
    saved = json.loads((result.out / "section_3_4.json").read_text())
    assert [(s["row"], s["col"], s["ours"]) for s in saved] == [(p.row, p.col, p.ours) for p in result.pairings]
    assert "12 games over 3 pairs" in printed(script, result, capsys)
    result = script.main(
        ["--games", "2", "--repeats", "1", "--workers", "1", "--quiet", "--defensive", "hand", "--out", str(tmp_path)]
    )
    assert {(p.row, p.col) for p in result.pairings} == {
        ("imperfect", "aggressive"),
        ("imperfect", "defensive-hand"),
        ("defensive-hand", "aggressive"),
    }


def test_esche_players_play_the_16_creature_case_by_exact_sampled_deals(tmp_path):
    script = load_script("esche/esche_3_4_players.py")
    result = script.main(
        [
            "--max-creatures",
            "16",
            "--games",
            "2",
            "--repeats",
            "1",
            "--workers",
            "1",
            "--life-threshold",
            "0",
            "--eval-cap",
            "100000",
            "--perfect",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    assert [(p.row, p.col, p.thesis, p.thesis_sd) for p in result.pairings] == [
        ("imperfect", "aggressive", 59, 8.9),
        ("perfect", "aggressive", "-", "-"),
    ]
    assert result.batch.games == 6 and len(result.batch.pairs) == 3  # imperfect v perfect is played too
    (run,) = tmp_path.glob("c16_g2_r1_n2_life0_cap100000_s0_perfect")
    assert run == result.out
    params = json.loads(sqlite3.connect(run / "games.sqlite").execute("SELECT params FROM run").fetchone()[0])
    assert params["life_threshold"] == 0 and len(params["decks"]) == 55
    nodes = sqlite3.connect(run / "games.sqlite").execute("SELECT nodes FROM matches").fetchall()
    assert len(nodes) == 6 and all(n > 0 for (n,) in nodes)  # a searching player in every game


def test_esche_table_3_4_solves_the_16_creature_decks(tmp_path, capsys):
    script = load_script("esche/esche_table_3_4.py")
    result = script.main(
        [
            "--creatures",
            "12,16",
            "--bolts",
            "0,16,20",
            "--games",
            "4",
            "--evaluation",
            "life",
            "--life-threshold",
            "0",
            "--rule",
            "starting_life=3",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    assert len(result.decks) == 5 and "12C0L" not in result.decks  # 12C0L has 12 non-land cards: not analysed
    played = MatrixGame.from_csv(tmp_path / "payoffs.csv")
    keep = [k for k, d in enumerate(played.row_labels) if d != "12C0L"]
    assert [played.row_labels[k] for k in keep] == result.decks
    assert result.value == pytest.approx(matrix_value(played.payoffs[np.ix_(keep, keep)]), abs=1e-7)
    assert sum(result.mix.values()) == pytest.approx(1)
    out = printed(script, result, capsys)
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    assert rows["12C20L"][0] == "14" and rows["16C16L"][0] == "6"  # Table 3.4's shares beside ours
    assert "deck game over 5 of the thesis's 55 decks" in out


@needs_exact_c
def test_esche_table_3_4_plays_only_the_analysed_decks(tmp_path):
    script = load_script("esche/esche_table_3_4.py")
    result = script.main(
        [
            "--creatures",
            "12,16",
            "--bolts",
            "0,16,20",
            "--games",
            "2",
            "--analysed",
            "--evaluation",
            "life",
            "--life-threshold",
            "0",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    assert len(result.decks) == 5 and result.sweep.games == 20 and len(result.sweep.pairs) == 10
    params = json.loads(sqlite3.connect(tmp_path / "games.sqlite").execute("SELECT params FROM run").fetchone()[0])
    assert params["decks"] == ["12C16L", "12C20L", "16C0L", "16C16L", "16C20L"] == result.decks


# ---- Appendix B: run, compare, paired, matrix, seats, forest-accuracy
def test_esche_appendix_b_scores_cells_against_the_thesis(tmp_path, capsys):
    script = load_script("esche/esche_appendix_b.py")
    run = script.main(
        [
            "run",
            "--creatures",
            "0",
            "--bolts",
            "28,40",
            "--games",
            "4",
            "--evaluation",
            "life",
            "--rule",
            "first_player_draws=1",
            "--quiet",
            "--out",
            str(tmp_path / "run"),
        ]
    )
    assert run.rules == {"first_player_draws": True} and run.batch.games == 4
    assert "rules changed: {'first_player_draws': True}" in printed(script, run, capsys)
    comparison = script.main(["compare", str(tmp_path / "run"), "--plot", str(tmp_path / "d.png")])
    (sweep,) = comparison.sweeps
    (cell,) = sweep.cells
    assert (cell.row, cell.col) == ("0C28L", "0C40L") and sweep.labels == ["0C28L", "0C40L"]
    assert cell.thesis == 0.4924 and cell.ours * 4 % 1 == 0  # Appendix B's cell (0.492 printed); 4 games
    decided = [g.winner == 0 for g in stored_games(tmp_path / "run") if g.winner is not None]
    assert cell.ours == pytest.approx(np.mean(decided))
    assert cell.z == pytest.approx(
        (cell.ours - cell.thesis) / (cell.se**2 + cell.thesis * (1 - cell.thesis) / 200) ** 0.5
    )
    assert sweep.within_3se == int(abs(cell.z) <= 3) and sweep.scorings is None
    assert (tmp_path / "d.png").stat().st_size > 1000
    assert "0C28L   0C40L" in printed(script, comparison, capsys)
    script.main(
        [
            "run",
            "--creatures",
            "0",
            "--bolts",
            "28,40",
            "--games",
            "6",
            "--evaluation",
            "life",
            "--quiet",
            "--out",
            str(tmp_path / "base"),
        ]
    )
    paired = script.main(["paired", str(tmp_path / "base"), str(tmp_path / "run")])
    (row,) = paired.cells
    assert (row.row, row.col) == ("0C28L", "0C40L") and paired.common == row.games == 4
    assert row.other == cell.ours and (row.other - row.base) * row.games == pytest.approx(row.to_row - row.to_col)
    assert (paired.gained, paired.lost) == (row.to_row, row.to_col) and 0 < paired.p <= 1
    assert paired.gaps["other"] == pytest.approx(abs(cell.ours - cell.thesis))
    assert "McNemar exact p" in printed(script, paired, capsys)
    written = script.main(["matrix", str(tmp_path / "run"), str(tmp_path / "m")])
    assert written.decks == 2
    ours = MatrixGame.from_csv(written.payoffs, std_path=written.std)
    assert ours.payoffs[0, 1] == cell.ours and ours.payoffs[1, 0] == 1 - cell.ours and ours.std[0, 1] == cell.se
    assert "(2 decks)" in printed(script, written, capsys)


def test_esche_appendix_b_seats_tests_appendix_b_and_counts_first_player_wins(tmp_path, capsys):
    script = load_script("esche/esche_appendix_b.py")
    script.main(
        [
            "run",
            "--creatures",
            "0",
            "--bolts",
            "28,40",
            "--games",
            "8",
            "--evaluation",
            "life",
            "--rule",
            "starting_life=3",
            "--quiet",
            "--out",
            str(tmp_path / "life3"),
        ]
    )
    result = script.main(["seats", str(tmp_path / "life3")])
    # Appendix B's 153 cells between decks of 24 to 44 bolts sit far too close to 1/2 for seat-independent games
    assert result.cells == 153 and result.statistic == pytest.approx(57.8, abs=0.05)
    assert result.p == pytest.approx(1.6e-13, rel=0.05) and result.first_player_share == pytest.approx(0.894, abs=5e-4)
    (run,) = result.runs
    decided = [g for g in stored_games(tmp_path / "life3") if g.winner is not None]
    assert run.decided == len(decided) == 8 == run.among
    assert run.first_share == pytest.approx(sum(g.winner == g.first for g in decided) / 8)
    out = printed(script, result, capsys)
    assert "Appendix B: 153 cells, T = 57.8 (lower-tail p = 1.6e-13)" in out and "at least 89.4%" in out


def test_esche_forest_accuracy_counts_wrong_verdicts(tmp_path, monkeypatch, capsys):
    from sklearn.ensemble import RandomForestClassifier

    from gamelp.games.mtg import forest
    from gamelp.games.mtg.forest import FEATURE_NAMES, THRESHOLDS, Forest, cache_name, trusted_dir

    rng = np.random.default_rng(0)
    X = rng.integers(0, 21, size=(200, len(FEATURE_NAMES))).astype(float)
    model = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, (X[:, 0] > X[:, 22]).astype(int))
    cache = trusted_dir(tmp_path / "cache" / "mtg")
    (tmp_path / "cache").chmod(0o700)
    for t in THRESHOLDS:
        Forest.from_sklearn(model, t).save(cache / cache_name(t, 1000, 0, 9))
    monkeypatch.setenv("GAMELP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(forest, "_FORESTS", {})  # not a forest another test loaded
    script = load_script("esche/esche_appendix_b.py")
    result = script.main(["forest-accuracy", "--decks", "0C28L,0C40L", "--games", "4", "--quiet"])
    assert 0 < result.positions <= 4 and 0 <= result.wrong <= result.positions and result.games == 4
    assert f"on {result.positions} positions" in printed(script, result, capsys)


# ---- bad input: one line on stderr, exit status 2, nothing written
@pytest.mark.slow
@pytest.mark.parametrize(
    "name, args, message",
    [
        ("esche_appendix_b.py", ["seats", "no-such-run"], "no-such-run/games.sqlite: cannot open the game store"),
        ("esche_3_2_std.py", ["--games", "0", "--out", "out"], "argument --games: must be at least 1, got 0"),
        ("esche_table_3_1_forest.py", ["--curve", "0,9"], "tree counts must be at least 1"),
        ("esche_table_3_2_cap.py", ["--caps", "5000", "x"], "argument --caps: expected a number, got 'x'"),
        ("esche_3_1_lp.py", ["--tolerance", "nan", "--out", "out"], "argument --tolerance: must be a finite number"),
        ("esche_table_3_4.py", ["--games", "-1", "--out", "out"], "argument --games: must be at least 1, got -1"),
        (
            "esche_appendix_b.py",
            ["run", "--rule", "starting_life=abc", "--out", "out"],
            "argument --rule: starting_life expects a whole number, got 'abc'",
        ),
        ("esche_3_4_players.py", ["--seed", "-1", "--out", "out"], "argument --seed: must be at least 0, got -1"),
    ],
)
def test_esche_scripts_refuse_bad_input_in_one_line(tmp_path, name, args, message):
    assert message in refusal("esche/" + name, args, tmp_path)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_esche_scripts_follow_the_contract():
    """Every Esche script builds the project's parser and returns its figures from main."""
    from gamelp.cli.args import OneLineParser

    scripts = sorted(path.name for path in ESCHE.glob("*.py"))
    assert len(scripts) == 9 and not list(SCRIPTS.glob("esche_*.py"))
    for name in scripts:
        script = load_script(f"esche/{name}")
        assert isinstance(script.build_parser(), OneLineParser), name
        assert callable(script.main) and callable(script.report), name
        assert "Esche (2018)" in script.__doc__ or "Thesis Section" in script.__doc__, name
