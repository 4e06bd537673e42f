"""The benchmark scripts at a tiny scale, their printed figures checked.

Each test runs one script as its own process (the way a user runs it) with
the smallest sizes its flags allow, then checks what it printed or wrote
against a published value (Kuhn -1/18, Leduc -0.085606), against an independent computation in the test (a
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


# ---- benchmarks ----
def test_bench_cfr_converges_to_the_kuhn_value_beside_openspiel(tmp_path):
    out = run("bench_cfr.py", "--game", "kuhn", "--methods", "cfr+", "dcfr", "--targets", 1e-2, 1e-3, "--repeats", 1,
              "--target", 1e-3, "--skip-python", *([] if OPENSPIEL else ["--skip-openspiel"]), "--out", tmp_path,
              cwd=tmp_path)
    saved = json.loads((tmp_path / "bench_cfr.json").read_text())
    assert saved["lp_value"] == pytest.approx(-1 / 18, abs=1e-9)
    methods = {(row["method"], row["target"]): row for row in saved["methods"]}
    assert sorted(methods) == [("cfr+", 1e-3), ("cfr+", 1e-2), ("dcfr", 1e-3), ("dcfr", 1e-2)]
    for (method, target), row in methods.items():
        assert row["reached"] and row["gap"] <= target and row["iterations"] % 10 == 0  # gap checked every 10
        assert abs(row["value"] + 1 / 18) <= row["gap"]  # a saddle-point gap bounds the value's error
        assert row["iterations"] >= methods[method, 1e-2]["iterations"]
    assert "off the LP's" not in out
    if not OPENSPIEL:
        assert "runs" not in saved and "OpenSpiel" not in out
        return
    ours, *peers = saved["runs"]
    assert ours["iterations"] == methods["cfr+", 1e-3]["iterations"]  # the same deterministic run
    assert [peer["solver"] for peer in peers] == ["OpenSpiel c++ CFR+"]
    for row in saved["runs"]:
        assert row["reached"] and abs(row["value"] + 1 / 18) <= row["gap"] <= 1e-3
        assert row["ratio_to_gamelp"] == pytest.approx(row["seconds"] / ours["seconds"])
        printed = next(line for line in out.splitlines() if line.startswith(row["solver"]))
        assert numbers(printed)[-1] == pytest.approx(row["ratio_to_gamelp"], abs=0.051)
    fastest = min((methods[m, 1e-3] for m in ("cfr+", "dcfr")), key=lambda row: row["seconds"])
    assert saved["fastest_method"] == fastest


def test_bench_locm_rates_agree_with_the_matches_played(tmp_path):
    out = run("bench_locm.py", "--battlers", "max-attack,greedy", "--seconds", 0.2, "--workers", "1,2", cwd=tmp_path)
    rows = {(line.split()[0], int(line.split()[2])): line.split() for line in out.splitlines() if "gamelp," in line}
    estimates = {(battler, int(workers)): float(minutes)
                 for battler, workers, minutes in re.findall(r"pair, (\S+), (\d+) proc: ([\d.]+) min", out)}
    assert sorted(rows) == [("greedy", 1), ("greedy", 2), ("max-attack", 1), ("max-attack", 2)]
    for (battler, workers), row in rows.items():
        rate, ratio, matches = float(row[4]), row[5], int(row[6])
        assert ratio == "-"  # no --gym-python: gym-locm is not measured
        assert matches >= workers and rate <= matches / 0.2  # every process plays for at least the 0.2 s budget
        minutes = estimates[battler, workers]  # 10 pairs x 2,000 matches at the printed rate (to 0.1 match/s)
        assert abs(minutes - 20_000 / rate / 60) <= 0.051 + minutes * 0.05 / rate
    assert "gym-locm, 1 core" not in out


def test_bench_locm_train_rates_and_session_estimates(tmp_path):
    out = run("bench_locm_train.py", "--battlers", "max-attack", "--episodes", 1, "--env-episodes", 2,
              "--minibatches", 1, "--envs", 1, cwd=tmp_path)
    steps, episodes = numbers(next(line for line in out.splitlines() if "environment alone" in line))
    assert steps / episodes == pytest.approx(30, rel=1e-3)  # a draft episode is its 30 picks
    training = [line for line in out.splitlines() if "training" in line]
    assert len(training) == 2 and "thesis mini-batches" in training[0] and "1 mini-batches" in training[1]
    for line in training:
        rate, hours = numbers(line)[-2:]
        # 2 seats x 30,000 episodes at the rate; both printed to 0.1 (episodes/s, hours)
        assert abs(hours * rate - 60_000 / 3600) <= 0.05 * (hours + rate) + 0.0025


def test_bench_matrix_values_match_pygambit_and_an_independent_lp(tmp_path):
    peers = ["pygambit"] if PYGAMBIT else []
    out = run("bench_matrix.py", "--sizes", 3, 12, "--peers", *peers, "--out", tmp_path, cwd=tmp_path)
    saved = json.loads((tmp_path / "bench_matrix.json").read_text())
    rng = np.random.default_rng(0)
    for row, n in zip(saved["rows"], (3, 12), strict=True):
        assert row["n"] == n and row["value"] == pytest.approx(matrix_value(rng.uniform(size=(n, n))), abs=1e-7)
        printed = numbers(next(line for line in out.splitlines() if line.split()[:1] == [str(n)]))
        assert printed[1] == pytest.approx(row["gamelp"], abs=5e-4)
        for peer in peers:  # solved by the peer (seconds, not a status) to gamelp's value within 1e-6
            assert isinstance(row[peer], float) and printed[3] == pytest.approx(row[peer] / row["gamelp"], abs=0.051)
    assert "!=" not in out and "install" not in out
    assert saved["largest"] == dict.fromkeys(["gamelp", *peers], 12) and not list(tmp_path.glob("*.npy"))

    run("bench_matrix.py", "--first-order", "--sizes", 20, 40, "--target-gap", 1e-5, "--lp-budget", 1e-6,
        "--out", tmp_path, cwd=tmp_path)
    first, second = json.loads((tmp_path / "bench_matrix_first_order.json").read_text())["rows"]
    rng = np.random.default_rng(0)
    assert first["lp"]["value"] == pytest.approx(matrix_value(rng.uniform(size=(20, 20))), abs=1e-7)
    fo = first["first_order"]
    assert fo["reached"] and fo["gap"] <= 1e-5 and abs(fo["value"] - first["lp"]["value"]) <= fo["gap"]
    assert first["lp"]["value_difference"] == abs(fo["value"] - first["lp"]["value"])
    assert second["first_order"]["reached"] and second["lp"].startswith("skipped: predicted")  # LP time ~ n^3


def test_bench_mtg_counts_the_games_it_played(tmp_path):
    from gamelp.games.mtg import play_game, thesis_decks

    out = run("bench_mtg.py", "--games", 4, "--cap", 2000, "--evaluation", "life", "--seed", 1, cwd=tmp_path)
    rows = {line[:24].strip(): numbers(line[24:]) for line in out.splitlines()[2:-1]}
    decks = thesis_decks()
    pairs = np.random.default_rng(1).integers(len(decks), size=(4, 2))
    replayed = [play_game(decks[i], decks[j], seed=1 + g, first=g % 2, eval_cap=2000, evaluation="life")
                for g, (i, j) in enumerate(pairs)]
    assert rows["search nodes"] == [sum(r.nodes for r in replayed)]
    assert rows["draws (cap reached)"] == [sum(r.winner is None for r in replayed), 0.1]  # thesis: 3 in 100
    assert rows["evaluations per game"] == [pytest.approx(sum(r.evaluations for r in replayed) / 4, abs=0.05)]
    assert rows["time (s)"][1] == 14.6 and rows["seconds per game"][1] == 3.66  # 366 s for 100 games
    per_game, games_per_second = rows["seconds per game"][0], rows["games per second"]
    # both printed rounded: seconds per game to 1e-4, games per second to 0.01
    assert abs(1 / games_per_second[0] - per_game) <= 5e-5 + 0.0051 / games_per_second[0] ** 2
    assert games_per_second[1] == 0.273
    speedup = numbers(out.splitlines()[-1])[0]
    assert abs(speedup - 3.66 / per_game) <= 0.051 + 3.66 / per_game * 5.1e-5 / per_game


def test_bench_mtg_exact_c_and_python_agree(tmp_path):
    out = run("bench_mtg_exact.py", "--games", 6, "--python-games", 3, "--seed", 2, cwd=tmp_path)
    rows = [(line.split()[0], numbers(line)) for line in out.splitlines()[1:]
            if line.split()[0] in ("C", "Python")]
    assert numbers(out.splitlines()[2])[0] <= numbers(out.splitlines()[2])[1]  # median <= largest nodes per game
    assert [(name, figures[0]) for name, figures in rows] == [("C", 6), ("C", 3), ("Python", 3)]
    agree, decided, c_draws, python_draws = numbers(re.search(r"winners agree.*Python \d+", out).group())
    assert agree == decided >= 3 - c_draws - python_draws and c_draws == rows[1][1][-1]
    games_per_cpu_second = rows[0][1][3]
    cpu_hours, wall_hours = numbers(out.splitlines()[-1])[2:4]
    assert cpu_hours == pytest.approx(105_600 / games_per_cpu_second / 3600, rel=0.01, abs=0.006)
    assert wall_hours == pytest.approx(cpu_hours / 2, abs=0.006)


def test_bench_nash_solves_leduc_on_every_backend_and_openspiel(tmp_path):
    from gamelp.game import load_game
    from gamelp.games import poker
    from gamelp.models.nash import solve_nash

    out = run("bench_nash.py", "--repeats", 1, "--backends", "highs,cvxpy:CLARABEL,nosuch", "--variants", "3x2,4x2",
              *([] if OPENSPIEL else ["--no-openspiel"]), cwd=tmp_path)
    solvers = {line[:24].strip(): numbers(line[24:]) for line in out.splitlines()
               if line.startswith(("OpenSpiel", "gamelp"))}
    ours = ["gamelp highs", "gamelp cvxpy:CLARABEL"]
    assert list(solvers) == ["OpenSpiel (ECOS)"] * OPENSPIEL + ours
    assert all(figures[-1] == LEDUC for figures in solvers.values())
    for name in ours:  # seconds, [OpenSpiel's seconds / ours], value
        assert len(solvers[name]) == 2 + OPENSPIEL
        if OPENSPIEL:
            seconds, ratio = solvers[name][:2]
            assert ratio == pytest.approx(solvers["OpenSpiel (ECOS)"][0] / seconds, rel=0.01, abs=0.051)
    assert "nosuch                   refused: unknown backend 'nosuch'" in out
    growth = [numbers(line) for line in out.splitlines() if " ranks x " in line]
    assert [row[:2] for row in growth] == [[3, 2], [4, 2]] and growth[0][4] == LEDUC
    assert growth[0][2] == load_game("leduc").pl1.num_sequences < growth[1][2]
    bigger = poker.leduc(ranks=4, suits=2)
    poker.write_game(bigger, tmp_path / "leduc_4x2.json")
    other_backend = solve_nash(load_game(tmp_path / "leduc_4x2.json"), 1, "cvxpy:CLARABEL").value
    assert growth[1][4] == pytest.approx(other_backend, abs=2e-6)


@pytest.mark.parametrize("game, workers, batches, args, matches", [
    ("mtg", [1, 2], [1, 4], ["--creatures", 0, "--bolts", "28,32,40", "--games", 2], 3 * 2),  # 3 decks, 3 pairs
    ("locm", [1], [1, 8], ["--drafters", "random,icebox,max-attack", "--matches", 4], 3 * 4),
])
def test_bench_sweep_plays_the_same_matches_in_every_configuration(tmp_path, game, workers, batches, args, matches):
    out = run("bench_sweep.py", "--game", game, "--workers", ",".join(map(str, workers)), "--batch-sizes",
              ",".join(map(str, batches)), *args, "--out", tmp_path, cwd=tmp_path)
    assert out.startswith(f"{game}: 3 entrants, {matches} matches per run")
    runs = json.loads((tmp_path / f"bench_sweep_{game}.json").read_text())["runs"]
    assert [(row["workers"], row["batch_size"]) for row in runs] == [(w, b) for w in workers for b in batches]
    for row in runs:
        assert row["matches"] == matches and row["same_matrix"]
        assert row["matches_per_second"] == pytest.approx(matches / row["seconds"])
        assert row["speedup"] == pytest.approx(row["matches_per_second"] / runs[0]["matches_per_second"])
