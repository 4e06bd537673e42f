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


# ---- scripts at a tiny scale, their printed figures checked ----
def run_script(name, *args, cwd):
    done = subprocess.run([sys.executable, str(SCRIPTS[0].parent / name), *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_bench_persistent_prints_equal_objectives_both_ways(tmp_path):
    out = run_script("bench_persistent.py", "--game", "kuhn", "--rhs-steps", 20, "--greedy-steps", 1,
                     "--search-lps", 20, "--sweep-time-limit", 5, cwd=tmp_path)
    rows = {}
    for line in out.splitlines()[2:]:
        fields = line[31:].split()
        if len(fields) == 5:  # workload (12 columns), way (18 columns), seconds, LPs, iterations, diff, speed-up
            rows[line[:12].strip(), line[13:31].strip()] = fields
    assert {workload for workload, _ in rows} == {"rhs sweep", "greedy step", "search LPs", "k-sweep"}
    for (workload, way), (seconds, lps, iterations, diff, speedup) in rows.items():
        assert float(seconds) > 0 and float(diff) < 1e-9, (workload, way)
        assert lps == rows[workload, "fresh"][1]  # both ways solve the same LPs
    assert rows["rhs sweep", "fresh"][1] == "20"
    assert int(rows["rhs sweep", "persistent"][2]) < int(rows["rhs sweep", "fresh"][2])  # warm starts
    assert ("search LPs", "FaceLP (search's)") in rows


def test_exact_benchmark_projects_the_55_deck_matrix(tmp_path):
    out = run_script("bench_mtg_exact.py", "--games", 3, "--python-games", 1, "--max-creatures", 16, cwd=tmp_path)
    assert "the 55-deck matrix (297,000 games)" in out
    c_row = next(line.split() for line in out.splitlines() if line.startswith("C "))
    assert c_row[1] == "3"
    assert "on the same 1 games: winners agree in" in out


def test_kdet_scip_bench_prints_both_solvers_at_the_exact_kuhn_values(tmp_path):
    pytest.importorskip("pyscipopt")
    from gamelp.game import load_game
    from gamelp.models.determinism import solve_deterministic

    out = run_script("bench_kdet_scip.py", "--game", "kuhn", "--k1", "0,6", "--k2", "6", "--time-limit", 20,
                     "--formulations", "bigm,forcing", "--out", tmp_path, cwd=tmp_path)
    rows = {(int(line.split()[0]), int(line.split()[1]), line.split()[2]): line.split("|") for line in out.splitlines()
            if line.split()[:1] in (["1"], ["2"])}
    exact = {(1, 0): -1 / 18, (1, 6): -1 / 6, (2, 6): solve_deterministic(load_game("kuhn"), 2).value}
    assert set(rows) == {(*key, form) for key in exact for form in ("bigm", "forcing")}
    for (player, k, _), line in rows.items():  # the forcing rows are valid: they keep the optimum
        assert float(line[0].split()[-1]) >= exact[player, k] - 1e-6  # the single-point forcing bound (6 digits)
        for solver in line[1:]:  # HiGHS, then SCIP: root bound, bound, value, gap, nodes, seconds
            value = exact[player, k]
            root, bound, found = (float(field) for field in solver.split()[:3])
            assert bound == pytest.approx(value, abs=1e-6) and found == pytest.approx(value, abs=1e-6)
            assert root >= bound - 1e-9
    saved = json.loads((tmp_path / "bench_kdet_scip.json").read_text())["runs"]
    assert [run["scip"]["start_accepted"] for run in saved] == [True] * 6
