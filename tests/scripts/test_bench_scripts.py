"""The benchmark scripts (scripts/bench/) at a tiny scale, in this process: the figures they return checked.

Each test calls a script's ``main`` with the smallest sizes its flags allow
and checks the returned figures against a published value (Kuhn -1/18,
Leduc -0.085606), against an independent computation in the test (a scipy
LP, replayed games), or against the other figures of the same run (ratios
against the measured times, counts against the flags), never against a time
bound.  Peers that are not gamelp dependencies (OpenSpiel, pygambit: in the
``test`` extra) join where they are installed and are left out with the
script's own flag where not (always for nashpy and gym-locm), so that no test
installs anything.
"""

import importlib.util
import json
import sys

import numpy as np
import pytest
from conftest import SCRIPTS, load_script, matrix_value, needs_exact_c, needs_rl, refusal

LEDUC = -0.085606  # player 1's value of Leduc hold'em, to six digits
KUHN = -1 / 18  # player 1's value of Kuhn poker
OPENSPIEL = all(importlib.util.find_spec(name) for name in ("pyspiel", "ecos"))  # ecos: its sequence-form LP's solver
PYGAMBIT = importlib.util.find_spec("pygambit") is not None


@pytest.fixture
def bench(tmp_path, monkeypatch):
    """``bench("bench_cfr")``: the script as a module, importable by its name in worker processes too.

    The scripts that measure several processes (bench_kdet, bench_locm) start
    them fresh (spawn), and a fresh process finds a script's function by its
    module's name: a link under that name on ``sys.path`` (which spawned
    processes inherit) lets it.
    """
    links = tmp_path / "modules"
    links.mkdir()
    monkeypatch.syspath_prepend(str(links))

    def load(name: str):
        module = load_script(f"bench/{name}.py")
        (links / f"{module.__name__}.py").symlink_to(SCRIPTS / "bench" / f"{name}.py")
        monkeypatch.setitem(sys.modules, module.__name__, module)
        return module

    return load


def test_bench_cfr_converges_to_the_kuhn_value_beside_openspiel(bench, tmp_path, capsys):
    script = bench("bench_cfr")
    result = script.main(
        [
            "--game",
            "kuhn",
            "--methods",
            "cfr+",
            "dcfr",
            "--targets",
            "1e-2",
            "1e-3",
            "--repeats",
            "1",
            "--target",
            "1e-3",
            "--skip-python",
            "--skip-liteefg",
            *([] if OPENSPIEL else ["--skip-openspiel"]),
            "--out",
            str(tmp_path),
        ]
    )
    saved = json.loads((tmp_path / "bench_cfr.json").read_text())
    assert result.lp_value == saved["lp_value"] == pytest.approx(KUHN, abs=1e-9)
    assert saved["methods"] == result.methods
    methods = {(row["method"], row["target"]): row for row in result.methods}
    assert sorted(methods) == [("cfr+", 1e-3), ("cfr+", 1e-2), ("dcfr", 1e-3), ("dcfr", 1e-2)]
    for (method, target), row in methods.items():
        assert row["reached"] and row["gap"] <= target and row["iterations"] % 10 == 0  # gap checked every 10
        assert abs(row["value"] - KUHN) <= row["gap"]  # a saddle-point gap bounds the value's error
        assert row["iterations"] >= methods[method, 1e-2]["iterations"]
    assert result.off_lp == [] and result.status == 0
    script.report(result)
    out = capsys.readouterr().out
    assert "gamelp on kuhn: iterations / seconds to each saddle-point gap" in out and "off the LP's" not in out
    if not OPENSPIEL:
        assert result.runs is None and "runs" not in saved and "OpenSpiel" not in out
        return
    assert saved["runs"] == result.runs
    ours, *peers = result.runs
    assert ours["iterations"] == methods["cfr+", 1e-3]["iterations"]  # the same deterministic run
    assert [peer["solver"] for peer in peers] == ["OpenSpiel c++ CFR+"]
    for row in result.runs:
        assert row["reached"] and abs(row["value"] - KUHN) <= row["gap"] <= 1e-3
        assert row["ratio_to_gamelp"] == pytest.approx(row["seconds"] / ours["seconds"])
    fastest = min((methods[m, 1e-3] for m in ("cfr+", "dcfr")), key=lambda row: row["seconds"])
    assert result.fastest_method == saved["fastest_method"] == fastest
    assert "CFR+ on kuhn to a saddle-point gap of 0.001" in out


@pytest.mark.parametrize(
    "name, args, missing",
    [
        ("bench_cfr", ["--game", "kuhn", "--skip-liteefg"], "pyspiel"),
        ("bench_cfr", ["--game", "kuhn"], "LiteEFG"),
        ("bench_nash", [], "ecos"),
        ("bench_matrix", ["--peers", "nashpy"], "nashpy"),
        ("bench_matrix", ["--first-order", "--fo-peers", "scipy", "nashpy"], "nashpy"),
        ("bench_leduc13x4", ["--methods", "default,openspiel"], "pyspiel"),
    ],
)
def test_a_missing_peer_is_refused_in_one_line_naming_the_bench_extra(bench, monkeypatch, name, args, missing):
    """The peers come with the bench extra: a benchmark installs nothing while it runs, and refuses before any
    timing a peer it is asked for and cannot import (the peer hidden here, installed or not)."""
    from gamelp.errors import MissingDependency

    monkeypatch.setitem(sys.modules, missing, None)  # an import of it now fails, as where it is not installed
    script = bench(name)
    with pytest.raises(
        MissingDependency, match=r'needs \w+, which is not installed here; pip install "gamelp\[bench\]"'
    ):
        script.main([*args, "--out", "unused"] if name not in ("bench_nash", "bench_leduc13x4") else args)


@pytest.mark.skipif(
    importlib.util.find_spec("LiteEFG") is None or not OPENSPIEL, reason="LiteEFG is a benchmark peer only"
)
def test_bench_cfr_runs_liteefg_to_the_target_on_kuhn(bench):
    script = bench("bench_cfr")
    for kind in script.LITEEFG_METHODS:
        row = script.run_liteefg(kind, "kuhn_poker", {}, 1e-3, 20000, 10)
        assert row["reached"] and row["gap"] <= 1e-3 and row["iterations"] % 10 == 0 and row["seconds"] > 0


@pytest.mark.slow
def test_bench_kdet_sweeps_kuhn_by_both_methods_to_the_same_curves(bench, tmp_path, capsys):
    from gamelp.game import load_game
    from gamelp.models.determinism import solve_deterministic

    script = bench("bench_kdet")
    result = script.main(["--game", "kuhn", "--out", str(tmp_path)])
    assert [run["method"] for run in result.sweeps] == ["mip", "search"] and result.variants == []
    assert result.mip_over_search == pytest.approx(result.sweeps[0]["wall"] / result.sweeps[1]["wall"])
    kuhn = load_game("kuhn")
    curves = {}
    for run in result.sweeps:
        assert run["game"] == "kuhn" and [r["player"] for r in run["players"]] == [1, 2]
        for r in run["players"]:
            assert "failed" not in r
            points = r["points"]
            assert [p["k"] for p in points] == list(range(kuhn.player(r["player"]).num_decision_points + 1))
            # V(0) is the Nash value; V(all points) the best deterministic strategy's value
            assert points[0]["value"] == pytest.approx(KUHN if r["player"] == 1 else -KUHN, abs=1e-6)
            assert points[-1]["value"] == pytest.approx(solve_deterministic(kuhn, r["player"]).value, abs=1e-6)
            assert all(p["value"] <= p["bound"] + 1e-9 for p in points)
            assert [p["k"] for p in r["over"]] == [
                p["k"] for p in points if p["bound"] - p["value"] > max(0.01 * abs(p["value"]), 1e-4) * (1 + 1e-9)
            ]
            curves[run["method"], r["player"]] = [p["value"] for p in points]
    for player in (1, 2):  # both methods within the 1% gap (1e-4 absolute near 0) of each other
        for mip, search in zip(curves["mip", player], curves["search", player], strict=True):
            assert mip == pytest.approx(search, rel=0.01, abs=1e-4)
    saved = json.loads((tmp_path / "bench_kdet.json").read_text())
    assert [(run["method"], run["wall"]) for run in saved["runs"]] == [
        (run["method"], run["wall"]) for run in result.sweeps
    ]
    assert (tmp_path / "bench_kdet_kuhn.png").stat().st_size > 1000 and result.plot.endswith("bench_kdet_kuhn.png")
    script.report(result)
    out = capsys.readouterr().out
    assert "kuhn, mip:" in out and "kuhn, search:" in out and "wall time ratio mip / search:" in out
    pytest.importorskip("gurobipy")
    on_gurobi = script.main(["--game", "kuhn", "--methods", "mip", "--mip-backend", "gurobi", "--out", str(tmp_path)])
    for r in on_gurobi.sweeps[0]["players"]:  # the same curve from another solver
        assert r["backend"] == "gurobi"
        values = [p["value"] for p in r["points"]]
        assert values == pytest.approx(curves["mip", r["player"]], rel=0.01, abs=1e-4)


def test_bench_kdet_scip_solves_both_formulations_at_the_exact_kuhn_values(bench, tmp_path, capsys):
    pytest.importorskip("pyscipopt")
    from gamelp.game import load_game
    from gamelp.models.determinism import solve_deterministic

    script = bench("bench_kdet_scip")
    # a gap target of 0: both solvers prove each optimum (at 1% SCIP may stop short of it)
    result = script.main(
        [
            "--game",
            "kuhn",
            "--k1",
            "0,6",
            "--k2",
            "6",
            "--time-limit",
            "20",
            "--gap",
            "0",
            "--formulations",
            "bigm,forcing",
            "--out",
            str(tmp_path),
        ]
    )
    exact = {(1, 0): KUHN, (1, 6): -1 / 6, (2, 6): solve_deterministic(load_game("kuhn"), 2).value}
    runs = {(run["player"], run["k"], run["formulation"]): run for run in result.runs}
    assert list(runs) == [(*key, form) for key in exact for form in ("bigm", "forcing")]
    assert result.solvers == ["highs", "scip"]
    for (player, k, _), run in runs.items():  # the forcing rows are valid: they keep the optimum
        value = exact[player, k]
        assert run["single_forcing_bound"] >= value - 1e-6 and run["start_value"] <= value + 1e-6
        for solver in ("highs", "scip"):
            figures = run[solver]
            assert figures["bound"] == pytest.approx(value, abs=1e-6)
            assert figures["incumbent"] == pytest.approx(value, abs=1e-6)
            assert figures["root_bound"] >= figures["bound"] - 1e-9
            gap = abs(figures["bound"] - figures["incumbent"]) / max(abs(figures["incumbent"]), 1e-10)
            assert figures["gap"] == gap
    assert result.gap_ratios == [
        run["scip"]["gap"] / run["highs"]["gap"]
        for run in result.runs
        if run["highs"]["gap"] > 0 and run["scip"]["gap"] > 0
    ]
    assert result.scip_better == sum(run["scip"]["bound"] < run["highs"]["bound"] - 1e-9 for run in result.runs)
    saved = json.loads((tmp_path / "bench_kdet_scip.json").read_text())["runs"]
    assert all(run["start_violation"] <= 1e-6 for run in saved)  # both solvers start from a point of P(k)
    assert all(run[solver]["nodes"] >= 0 for run in saved for solver in ("highs", "scip"))
    assert saved == json.loads(json.dumps(result.runs))
    script.report(result)
    assert "kuhn: P(k) with a 20 s wall limit" in capsys.readouterr().out


@pytest.mark.slow
def test_bench_locm_rates_agree_with_the_matches_played(bench, capsys):
    script = bench("bench_locm")
    result = script.main(["--battlers", "max-attack,greedy", "--seconds", "0.2", "--workers", "1,2"])
    assert result.agreement is None  # no --gym-python: gym-locm is not measured
    rows = {(row["battler"], row["processes"]): row for row in result.rows}
    assert list(rows) == [("max-attack", 1), ("max-attack", 2), ("greedy", 1), ("greedy", 2)]
    for (_battler, workers), row in rows.items():
        assert row["engine"] == "gamelp" and row["ratio"] is None
        assert row["matches"] >= workers and row["rate"] <= row["matches"] / 0.2  # each process plays >= 0.2 s
    # 10 pairs x 2,000 matches at each measured rate
    assert result.estimates == {key: 20_000 / row["rate"] / 60 for key, row in rows.items()}
    script.report(result)
    out = capsys.readouterr().out
    assert "gym-locm, 1 core" not in out and "5-drafter round-robin, 2,000 matches per pair, greedy, 2 proc" in out


@pytest.mark.slow
@needs_rl
def test_bench_locm_train_rates_and_session_estimates(bench, capsys):
    script = bench("bench_locm_train")
    result = script.main(
        ["--battlers", "max-attack", "--episodes", "1", "--env-episodes", "2", "--minibatches", "1", "--envs", "1"]
    )
    (env,) = result.environment
    assert env["battler"] == "max-attack" and env["episodes"] == 2
    assert env["steps_per_second"] / env["episodes_per_second"] == pytest.approx(30)  # a draft episode: 30 picks
    assert [(row["envs"], row["minibatches"]) for row in result.training] == [(1, None), (1, 1)]
    for row in result.training:  # 2 seats x 30,000 episodes at the rate
        assert row["episodes_per_second"] > 0
        assert row["hours"] * row["episodes_per_second"] == pytest.approx(60_000 / 3600)
    script.report(result)
    out = capsys.readouterr().out
    assert "thesis mini-batches" in out and "1 mini-batches" in out


@pytest.mark.slow
def test_bench_matrix_values_match_pygambit_and_an_independent_lp(bench, tmp_path, capsys):
    script = bench("bench_matrix")
    peers = ["pygambit"] if PYGAMBIT else []
    result = script.main(["--sizes", "3", "12", "--peers", *peers, "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "bench_matrix.json").read_text())
    assert saved == {"rows": result.rows, "largest": result.largest} and result.peers == peers
    rng = np.random.default_rng(0)
    for row, n in zip(result.rows, (3, 12), strict=True):
        assert row["n"] == n and row["value"] == pytest.approx(matrix_value(rng.uniform(size=(n, n))), abs=1e-7)
        assert isinstance(row["gamelp"], float)
        for peer in peers:  # solved by the peer (seconds, not a status) to gamelp's value within 1e-6
            assert isinstance(row[peer], float)
    assert result.notes == [] and result.stopped is None  # no value off gamelp's, nothing left to install
    assert result.largest == dict.fromkeys(["gamelp", *peers], 12) and not list(tmp_path.glob("*.npy"))
    script.report(result)
    out = capsys.readouterr().out
    assert "largest size solved within the time limit: gamelp 12" in out and "!=" not in out

    result = script.main(
        ["--first-order", "--sizes", "20", "40", "--target-gap", "1e-5", "--lp-budget", "1e-6", "--fo-peers", "scipy"]
        + ["--out", str(tmp_path)]
    )
    first, second = json.loads((tmp_path / "bench_matrix_first_order.json").read_text())["rows"]
    assert [first, second] == json.loads(json.dumps(result.rows))
    rng = np.random.default_rng(0)
    assert first["lp"]["value"] == pytest.approx(matrix_value(rng.uniform(size=(20, 20))), abs=1e-7)
    fo = first["first_order"]
    assert fo["reached"] and fo["gap"] <= 1e-5 and abs(fo["value"] - first["lp"]["value"]) <= fo["gap"]
    assert first["lp"]["value_difference"] == abs(fo["value"] - first["lp"]["value"])
    for row in (first, second):  # scipy's HiGHS on the same matrix: the first-order value within its gap
        assert row["scipy"]["status"] == "ok" and abs(row["scipy"]["value"] - row["first_order"]["value"]) <= 1e-5
    assert not list(tmp_path.glob("*.npy"))
    assert second["first_order"]["reached"] and second["lp"].startswith("skipped: predicted")  # LP time ~ n^3
    script.report(result)
    assert "LP skipped: predicted" in capsys.readouterr().out


def test_bench_mtg_counts_the_games_it_played(bench, capsys):
    from gamelp.games.mtg import play_game, thesis_decks
    from gamelp.games.mtg.match import GameSettings

    script = bench("bench_mtg")
    result = script.main(["--games", "4", "--cap", "2000", "--evaluation", "life", "--seed", "1"])
    decks = thesis_decks()
    pairs = np.random.default_rng(1).integers(len(decks), size=(4, 2))
    replayed = [
        play_game(decks[i], decks[j], seed=1 + g, first=g % 2, settings=GameSettings(eval_cap=2000, evaluation="life"))
        for g, (i, j) in enumerate(pairs)
    ]
    assert result.games == 4 and result.cap == 2000 and result.evaluation == "life"
    assert result.nodes == sum(r.nodes for r in replayed)
    assert result.draws == sum(r.winner is None for r in replayed) and result.thesis_draws == pytest.approx(0.12)
    assert result.evaluations == sum(r.evaluations for r in replayed)
    assert result.thesis_seconds == pytest.approx(14.64) and result.thesis_seconds_per_game == pytest.approx(3.66)
    assert result.seconds_per_game == result.seconds / 4 and result.games_per_second == 1 / result.seconds_per_game
    assert result.speedup == pytest.approx(3.66 / result.seconds_per_game)
    assert result.cpu_speedup == pytest.approx(14.64 / result.cpu_seconds)
    script.report(result)
    out = capsys.readouterr().out
    assert out.startswith("4 perfect-information games, cap 2,000, life evaluation") and "(aim: 10x)" in out


def test_bench_mtg_exact_c_and_python_agree(bench, capsys):
    script = bench("bench_mtg_exact")
    result = script.main(["--games", "6", "--python-games", "3", "--seed", "2"])
    assert (result.c.games, result.c_same.games, result.python_same.games) == (6, 3, 3)
    assert result.c_same.winners == result.c.winners[:3]  # the same seeded games
    assert result.median_nodes <= result.largest_nodes
    assert result.agree == result.decided >= 3 - result.c_same.draws - result.python_same.draws
    assert result.c_same.draws == sum(w is None for w in result.c_same.winners)
    assert result.decks == 33 and result.matrix_games == 105_600
    assert result.cpu_hours == pytest.approx(105_600 / result.c.games_per_cpu_second / 3600)
    assert result.wall_hours == pytest.approx(result.cpu_hours / 2)
    assert result.cpu_ratio == result.python_same.cpu_seconds / result.c_same.cpu_seconds
    script.report(result)
    assert "on the same 3 games: winners agree in" in capsys.readouterr().out


def test_bench_mtg_exact_projects_the_55_deck_matrix(bench, capsys):
    script = bench("bench_mtg_exact")
    result = script.main(["--games", "3", "--python-games", "1", "--max-creatures", "16"])
    assert result.decks == 55 and result.matrix_games == 297_000 and result.c.games == 3
    assert result.c_same.games == result.python_same.games == 1
    assert result.cpu_hours == pytest.approx(297_000 * result.c.cpu_seconds / 3 / 3600)
    script.report(result)
    out = capsys.readouterr().out
    assert "the 55-deck matrix (297,000 games)" in out and "on the same 1 games: winners agree in" in out


@needs_exact_c
def test_bench_mtg_exact_plays_the_sweeps_games_and_compares_two_builds(bench, capsys):
    """--sweep-seed draws games the sweep plays; --baseline plays them again with another build of the C search."""
    from pathlib import Path

    from gamelp.games.mtg import exact
    from gamelp.games.mtg.deck import analysed_decks
    from gamelp.games.mtg.match import GameResult, GameSettings, play_game
    from gamelp.games.mtg.sweep import run_sweep
    from gamelp.games.runner import Execution

    script = bench("bench_mtg_exact")
    argv = ["--max-creatures", "16", "--sweep-seed", "3", "--games", "4", "--python-games", "0", "--seed", "1"]
    result = script.main([*argv, "--baseline", str(Path(exact._exact.__file__)), "--repeats", "2"])
    assert result.identical and [len(runs) for runs in result.timings.values()] == [2, 2]
    assert result.build_nodes["this build"] == result.build_nodes["baseline"] == result.c.nodes
    deals = script.sweep_deals(analysed_decks(16), 4, 3, np.random.default_rng(1))
    exact_play = GameSettings(life_threshold=0, evaluation="life")
    played = [play_game(a, b, seed=s, first=f, settings=exact_play) for a, b, s, f in deals]
    assert result.c.winners == [r.winner for r in played] and result.c.game_nodes == [r.nodes for r in played]
    assert result.value_nodes > 0 and result.c.nodes == sum(result.c.game_nodes)
    calls = []

    def record(deck1, deck2, *, seed, first, **options):
        calls.append((deck1, deck2, seed, first))
        return GameResult(0, 1, 0, 0, False, first)

    for a, b, seed, first in deals:  # each drawn game is one the sweep of its two decks plays, seed 3
        creatures, bolts = sorted({a.creatures, b.creatures}), sorted({a.bolts, b.bolts})
        run_sweep(creatures, bolts, games=200, seed=3, game_fn=record, execution=Execution(progress=False))
        assert (str(a), str(b), seed, first) in calls
    script.report(result)
    out = capsys.readouterr().out
    assert "the same 4 games, identical (winners and turns, game by game); positions: this build" in out
    assert "the value search of the dealt positions" in out


def test_bench_mtg_exact_refuses_a_baseline_that_is_not_a_build(bench, tmp_path):
    from gamelp.errors import GamelpError

    script = bench("bench_mtg_exact")
    (tmp_path / "x.so").write_text("not a library")
    with pytest.raises(GamelpError, match="not a build of the C search"):
        script.main(["--games", "1", "--python-games", "0", "--baseline", str(tmp_path / "x.so")])


def test_bench_nash_solves_leduc_on_every_backend_and_openspiel(bench, tmp_path, capsys):
    from gamelp.game import load_game
    from gamelp.games import poker
    from gamelp.models.nash import solve_nash

    script = bench("bench_nash")
    result = script.main(
        [
            "--repeats",
            "1",
            "--backends",
            "highs,cvxpy:CLARABEL,nosuch",
            "--variants",
            "3x2,4x2",
            *([] if OPENSPIEL else ["--no-openspiel"]),
        ]
    )
    assert result.repeats == 1 and (result.openspiel is not None) == OPENSPIEL
    if OPENSPIEL:
        assert round(result.openspiel[1], 6) == LEDUC
    ours, theirs, refused = result.backends
    assert refused == {"backend": "nosuch", "refused": refused["refused"]}
    assert refused["refused"].startswith("unknown backend 'nosuch'")
    for row, backend in ((ours, "highs"), (theirs, "cvxpy:CLARABEL")):
        assert row["backend"] == backend and round(row["value"], 6) == LEDUC
        if OPENSPIEL:
            assert row["ratio"] == pytest.approx(result.openspiel[0] / row["seconds"])
        else:
            assert row["ratio"] is None
    rows = {(row["ranks"], row["suits"], row["backend"], row["lps"]): row for row in result.growth}
    assert sorted(rows) == [
        (ranks, 2, backend, lps)
        for ranks in (3, 4)
        for backend, lps in (("cvxpy:CLARABEL", 1), ("highs", 1), ("highs", 2))
    ]
    for (ranks, _, backend, lps), row in rows.items():
        assert row["sequences"] == rows[ranks, 2, "highs", 2]["sequences"]
        exact = backend == "highs"
        # One LP gives the two LPs' value, and its primal and dual strategies are a saddle point.
        assert row["value"] == pytest.approx(rows[ranks, 2, "highs", 2]["value"], abs=1e-9 if exact else 2e-6)
        if lps == 1:
            assert row["gap"] < (1e-9 if exact else 1e-5)
            assert row["load"] + row["build"] + row["solve"] == pytest.approx(row["seconds"])
    assert round(rows[3, 2, "highs", 1]["value"], 6) == LEDUC
    assert (
        rows[3, 2, "highs", 1]["sequences"]
        == load_game("leduc").pl1.num_sequences
        < rows[4, 2, "highs", 1]["sequences"]
    )
    poker.write_game(poker.leduc(ranks=4, suits=2), tmp_path / "leduc_4x2.json")
    other_backend = solve_nash(load_game(tmp_path / "leduc_4x2.json"), 1, "cvxpy:CLARABEL").value
    assert rows[4, 2, "highs", 1]["value"] == pytest.approx(other_backend, abs=2e-6)
    script.report(result)
    out = capsys.readouterr().out
    assert "nosuch                   refused: unknown backend 'nosuch'" in out and "4 ranks x 2 suits" in out


@pytest.mark.slow
def test_bench_scaling_times_every_family_and_fits_the_exponents(bench, tmp_path, capsys):
    script = bench("bench_scaling")
    argv = ["--repeats", "1", "--variants", "3x2,4x2", "--sizes", "20,40", "--regret-target", "1e-3"]
    result = script.main([*argv, "--matrix-target", "1e-5", "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "bench_scaling.json").read_text())
    assert saved["rows"] == result.rows and saved["exponents"] == result.exponents
    assert [(row["family"], row["label"]) for row in result.rows] == [
        (family, label)
        for family in ("lp", "regret", "dense")
        for label in (("20", "40") if family == "dense" else ("3x2", "4x2"))
    ]
    for row in result.rows:
        assert row["seconds"] > 0 and row["cpu"] > 0 and row["peak_mb"] >= row["base_mb"] > 0
        assert row["runs"] == 1 and not row["over_budget"]
        assert row["size"] == (int(row["label"]) if row["family"] == "dense" else row["size"])
        # the regret target is relative to the largest payoff, 13 in both variants
        assert row["gap"] < {"lp": 1e-9, "regret": 1e-3 * 13, "dense": 1e-4}[row["family"]]
    assert result.rows[0]["size"] == 337 < result.rows[1]["size"]  # Leduc's sequences, then the 4 x 2 variant's
    for family, slope in result.exponents.items():
        rows = [row for row in result.rows if row["family"] == family]
        expected = np.log(rows[1]["seconds"] / rows[0]["seconds"]) / np.log(rows[1]["size"] / rows[0]["size"])
        assert slope == pytest.approx(expected)
    script.report(result)
    assert "lp: seconds grow like size^" in capsys.readouterr().out
    assert (tmp_path / "leduc_3x2.npz").exists()  # the variants' files, written once before the clock starts


@pytest.mark.slow
def test_bench_scaling_writes_the_same_game_in_both_formats(bench, tmp_path):
    from gamelp.game import load_game

    script = bench("bench_scaling")
    games = [load_game(script.game_file("3x2", tmp_path, suffix)) for suffix in ("npz", "json")]

    def payoffs(game) -> dict:  # by sequence labels: the binary file numbers the sequences in another order
        A = game.A.tocoo()
        return {(game.pl1.labels[i], game.pl2.labels[j]): v for i, j, v in zip(A.row, A.col, A.data) if v}

    assert games[0].A.shape == (337, 337) and len(payoffs(games[0])) == 966
    assert payoffs(games[0]) == payoffs(games[1])


def test_bench_scaling_stops_a_family_at_the_first_point_past_the_budget(bench, tmp_path, capsys):
    script = bench("bench_scaling")
    argv = ["--repeats", "1", "--families", "lp", "regret", "--variants", "3x2,4x2", "--budget", "0.05"]
    result = script.main([*argv, "--out", str(tmp_path)])
    assert [(row["family"], row["label"], row["over_budget"]) for row in result.rows] == [
        ("lp", "3x2", True),
        ("regret", "3x2", True),
    ]
    assert result.exponents == {"lp": None, "regret": None}
    script.report(result)
    assert "3x2 past the budget: stopped, larger points skipped" in capsys.readouterr().out


def test_bench_scaling_reads_variants_with_betting_rounds(bench):
    script = bench("bench_scaling")
    assert script.variants("3x2, 5x2x3") == ["3x2", "5x2x3"]
    assert script.leduc_rules("5x2x3") == {"ranks": 5, "suits": 2, "raise_sizes": (2, 4, 4), "max_raises": 2}
    assert script.leduc_rules("3x2") == {"ranks": 3, "suits": 2, "raise_sizes": (2, 4), "max_raises": 2}
    for bad in ("3x2x1", "3", "3x2x3x1", "ax2"):
        with pytest.raises(Exception, match="expected variants"):
            script.variants(bad)


def test_bench_large_solves_leduc_by_lp_and_regret_to_the_target(bench, tmp_path, capsys):
    script = bench("bench_large")
    argv = ["--ranks", "3", "--raise-sizes", "2", "4", "--methods", "ipm", "simplex", "cfr+", "--target", "1e-3"]
    result = script.main([*argv, "--timeout", "60", "--out", str(tmp_path)])
    assert result.sequences == 337 and result.unit == 13 and result.generate_seconds is not None
    rows = {row["method"]: row for row in result.rows}
    for method in ("ipm", "simplex"):
        assert rows[method]["status"] == "optimal" and rows[method]["gap"] < 1e-6
        assert rows[method]["value"] == pytest.approx(LEDUC, abs=1e-6)
    assert 0 < rows["cfr+"]["gap"] <= 1e-3 * 13 and rows["cfr+"]["status"].endswith("iterations")
    assert abs(rows["cfr+"]["value"] - LEDUC) <= rows["cfr+"]["gap"] + 1e-6
    for row in result.rows:
        assert row["solve_seconds"] > 0 and row["peak_mb"] >= row["base_mb"] > 0 and row["runs"] == 1
    assert json.loads((tmp_path / "bench_large.json").read_text())["rows"] == result.rows
    script.report(result)
    out = capsys.readouterr().out
    assert "337 sequences per player" in out and "NashConv <= 0.001 x 13 = 1.30e-02" in out
    again = script.main([*argv, "--methods", "cfr+", "--out", str(tmp_path)])
    assert again.generate_seconds is None  # the game file is reused


@pytest.mark.slow
def test_bench_large_runs_openspiels_cfr_plus_on_the_same_game(bench, tmp_path, capsys):
    pytest.importorskip("pyspiel")
    script = bench("bench_large")
    params = script.universal_poker(ranks=3, suits=2, raise_sizes=(2, 4), max_raises=2, ante=1)
    assert params["numBoardCards"] == "0 1" and params["maxRaises"] == "2 2" and params["stack"] == "13 13"
    argv = ["--ranks", "3", "--raise-sizes", "2", "4", "--methods", "cfr+", "--target", "1e-3", "--out", str(tmp_path)]
    result = script.main([*argv, "--openspiel-seconds", "300", "--openspiel-check-every", "50"])
    row = result.openspiel
    assert row["status"].endswith(" iterations") and 0 < row["gap"] <= 1e-3 * 13 and row["peak_mb"] > 0
    assert [step["phase"] for step in row["steps"][:2]] == ["game loaded", "solver built"]
    assert result.generate_mb > 0 and result.rows[0]["gap"] <= 1e-3 * 13
    script.report(result)
    assert "OpenSpiel C++ CFR+ on universal_poker: " in capsys.readouterr().out
    stopped = script.main([*argv, "--openspiel-seconds", "0.5"]).openspiel  # stopped before it converges
    # A fast machine may have measured a gap by then (1.22 on CI's), never the target.
    assert stopped["status"].startswith("stopped at 0.5 s: ") and (stopped["gap"] is None or stopped["gap"] > 1e-3 * 13)


@pytest.mark.slow
def test_bench_leduc13x4_solves_leduc_by_every_method_to_the_value(bench, capsys):
    script = bench("bench_leduc13x4")
    methods = script.METHODS if OPENSPIEL else script.METHODS[:-1]  # openspiel, the peer, needs the bench extra
    argv = ["--games", "leduc", "--pdlp-limit", "5", "--polish-target", "1e-2", "--methods", ",".join(methods)]
    result = script.main(argv)
    rows = {row.method: row for row in result.rows}
    assert list(rows) == ["(load)", *methods]
    assert rows["(load)"].sequences == 337 and rows["(load)"].nonzeros == 1928
    for method in ("default", "two-lps", "dual-simplex", "primal-simplex", "ipm", "cfr+polish"):  # at a vertex
        assert rows[method].status == "optimal" and rows[method].gap < 1e-12
        assert rows[method].value == pytest.approx(LEDUC, abs=1e-6)
    assert "crossover" in rows["ipm"].detail and "crossover" not in rows["dual-simplex"].detail
    assert "CFR+" in rows["cfr+polish"].detail and "simplex iterations" in rows["cfr+polish"].detail
    for method in ("ipm-no-crossover", "pdlp", "clarabel"):  # interior or first-order points: near it
        row = rows[method]
        assert row.status == "refused" or (row.gap < 1e-4 and row.value == pytest.approx(LEDUC, abs=1e-4))
    if OPENSPIEL:
        assert rows["openspiel"].status == "finished" and rows["openspiel"].value == pytest.approx(LEDUC, abs=1e-6)
    assert all(row.cpu >= 0 and row.wall > 0 for row in result.rows)
    assert len(result.load) == 3
    script.report(result)
    lines = capsys.readouterr().out.splitlines()
    assert "load average" in lines[0] and [line.split()[2] for line in lines[2:]] == list(rows)


@pytest.mark.slow
@pytest.mark.skipif(not OPENSPIEL, reason="OpenSpiel's LP is a benchmark peer only")
def test_bench_leduc13x4_runs_openspiels_lp_on_the_same_rules_to_gamelps_value(bench):
    script = bench("bench_leduc13x4")
    argv = ["--games", "leduc,leduc:5x4,kuhn", "--methods", "default,openspiel", "--openspiel-limit", "5"]
    result = script.main(argv)
    rows = {(row.game, row.method): row for row in result.rows}
    leduc, default = rows["leduc", "openspiel"], rows["leduc", "default"]
    assert leduc.status == "finished" and leduc.value == pytest.approx(default.value, abs=1e-6)
    assert leduc.value == pytest.approx(LEDUC, abs=1e-6) and leduc.cpu > 0 and leduc.gap is None
    assert leduc.detail.startswith("player 2's value +0.08560") and "from default's value" in leduc.detail
    stopped = rows["leduc:5x4", "openspiel"]  # a minute of OpenSpiel's LP: stopped at the limit, with no value
    assert (stopped.status, stopped.detail, stopped.value) == ("stopped", "stopped at 5 s", None)
    assert stopped.wall >= 5 and stopped.cpu > 1 and stopped.sequences == rows["leduc:5x4", "default"].sequences
    assert rows["kuhn", "openspiel"].status == "refused"
    assert rows["kuhn", "openspiel"].detail == "kuhn: openspiel runs on Leduc and its variants leduc:RxS[xN] only"


def test_bench_persistent_solves_the_same_lps_to_equal_objectives_both_ways(bench, capsys):
    script = bench("bench_persistent")
    result = script.main(
        ["--game", "kuhn", "--rhs-steps", "20", "--greedy-steps", "1", "--search-lps", "20", "--sweep-time-limit", "5"]
    )
    assert result.game == "kuhn" and result.player == 1
    assert [(row.workload, row.way) for row in result.ways] == [
        ("rhs sweep", "fresh"),
        ("rhs sweep", "persistent"),
        ("greedy step", "fresh"),
        ("greedy step", "persistent"),
        ("search LPs", "fresh"),
        ("search LPs", "persistent"),
        ("search LPs", "FaceLP (search's)"),
        ("k-sweep", "fresh"),
        ("k-sweep", "persistent"),
    ]
    for row in result.ways:
        fresh = result.way(row.workload, "fresh")
        assert row.seconds > 0 and row.max_diff < 1e-9, row
        assert row.lps == fresh.lps  # both ways solve the same LPs
        assert row.speedup == fresh.seconds / row.seconds
    assert result.way("rhs sweep", "fresh").lps == 20
    assert result.way("rhs sweep", "persistent").iterations < result.way("rhs sweep", "fresh").iterations  # warm
    assert result.way("k-sweep", "fresh").iterations is None
    assert result.way("k-sweep", "fresh").mips == result.way("k-sweep", "persistent").mips > 0  # the same MIPs
    script.report(result)
    out = capsys.readouterr().out
    assert "kuhn, player 1: persistent HiGHS re-solves against fresh models" in out and "FaceLP (search's)" in out


@pytest.mark.slow
def test_bench_startup_times_both_trees_with_cached_bytecode(bench, monkeypatch, capsys):
    script = bench("bench_startup")
    cases = {name: script.CASES[name] for name in ("import gamelp", "to the first solver call")}
    monkeypatch.setattr(script, "CASES", cases)
    tree = str(script.THIS_TREE)
    result = script.main(["--runs", "1", "--top", "3", "--baseline", tree])
    assert result.bytecode and result.trees == {"this tree": tree, "baseline": tree}
    assert [(case.name, case.tree) for case in result.cases] == [(n, t) for n in cases for t in result.trees]
    for case in result.cases:
        assert 0 < case.wall_min <= case.wall_median and case.cpu_median > 0, case
    for heaviest in result.heaviest_ms.values():
        assert len(heaviest) == 3 and {"numpy", "scipy"} <= set(heaviest)
        assert list(heaviest.values()) == sorted(heaviest.values(), reverse=True)
    assert result.import_ms["baseline"] >= sum(result.heaviest_ms["baseline"].values())
    script.report(result)
    out = capsys.readouterr().out
    assert "cached bytecode" in out and "baseline: imports up to the first solver call" in out
    result.as_json = True
    script.report(result)
    figures = json.loads(capsys.readouterr().out)
    assert figures["runs"] == 1 and len(figures["cases"]) == 4 and "as_json" not in figures


def test_bench_startup_refuses_a_baseline_that_is_not_a_source_tree(bench, tmp_path):
    from gamelp.errors import GamelpError

    script = bench("bench_startup")
    (tmp_path / "gamelp").mkdir()
    with pytest.raises(
        GamelpError, match=r"--baseline .*: not a source tree of gamelp \(no gamelp/__init__.py, models"
    ):
        script.main(["--baseline", str(tmp_path)])


def test_bench_startup_reads_the_import_times_by_package(bench):
    script = bench("bench_startup")
    stderr = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       120 |        120 |   numpy._core\n"
        "import time:        80 |        200 | numpy\n"
        "import time:      1500 |       1500 | gamelp.cli\n"
        "first solver call at 12.5\n"
    )
    assert script.import_times(stderr) == {"numpy": 0.2, "gamelp": 1.5}


@pytest.mark.parametrize(
    "game, workers, batches, args, matches",
    [
        ("mtg", [1, 2], [1, 4], ["--creatures", "0", "--bolts", "28,32,40", "--games", "2"], 3 * 2),  # 3 decks, 3 pairs
        ("locm", [1], [1, 8], ["--drafters", "random,icebox,max-attack", "--matches", "4"], 3 * 4),
    ],
)
def test_bench_sweep_plays_the_same_matches_in_every_configuration(
    bench, tmp_path, capsys, game, workers, batches, args, matches
):
    script = bench("bench_sweep")
    result = script.main(
        [
            "--game",
            game,
            "--workers",
            ",".join(map(str, workers)),
            "--batch-sizes",
            ",".join(map(str, batches)),
            *args,
            "--out",
            str(tmp_path),
        ]
    )
    assert result.game == game and result.entrants == 3 and result.same
    runs = json.loads((tmp_path / f"bench_sweep_{game}.json").read_text())["runs"]
    assert runs == result.runs
    assert [(row["workers"], row["batch_size"]) for row in runs] == [(w, b) for w in workers for b in batches]
    for row in runs:
        assert row["matches"] == matches and row["same_matrix"]
        assert row["matches_per_second"] == pytest.approx(matches / row["seconds"])
        assert row["speedup"] == pytest.approx(row["matches_per_second"] / runs[0]["matches_per_second"])
    script.report(result)
    assert capsys.readouterr().out.startswith(f"{game}: 3 entrants, {matches} matches per run")


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, args, message",
    [
        ("bench_mtg.py", ["--games", "0"], "argument --games: must be between 1 and 1000000, got 0"),
        ("bench_nash.py", ["--variants", "3y2"], "argument --variants: expected variants like 3x2,4x2"),
        ("bench_leduc13x4.py", ["--methods", "ipm,simplex"], "argument --methods: expected some of default,"),
        (
            "bench_kdet.py",
            ["--methods", "mip,lp", "--out", "out"],
            "argument --methods: expected mip, search and / or envelope",
        ),
        ("bench_locm.py", ["--seconds", "nan"], "argument --seconds: must be a finite number > 0"),
        ("bench_sweep.py", ["--workers", "0", "--out", "out"], "worker counts must be between 1 and"),
    ],
)
def test_bench_scripts_refuse_bad_input_in_one_line(tmp_path, name, args, message):
    assert message in refusal("bench/" + name, args, tmp_path)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
