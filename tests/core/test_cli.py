"""The gamelp command: JSON outputs, exports, and one-line errors with a non-zero exit."""

import json
import subprocess
import sys

import pytest

from gamelp.cli import main


def run_cli(*args):
    """Run the real console entry point in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "gamelp.cli", *map(str, args)], capture_output=True, text=True)


def cli_json(capsys, *args):
    assert main([*map(str, args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_solve_json_has_value_strategy_and_solver_free_gap(capsys):
    out = cli_json(capsys, "solve", "leduc")
    assert {"value", "status", "backend", "player", "strategy", "gap"} <= set(out)
    assert out["value"] == pytest.approx(-0.0856, abs=1e-4)
    assert out["status"] == "optimal" and out["backend"] == "highs" and out["player"] == 1
    assert out["gap"] < 1e-6
    assert len(out["strategy"]) == 337 and out["strategy"]["∅"] == 1.0


def test_solve_player_two_on_another_backend(capsys):
    out = cli_json(capsys, "solve", "kuhn", "--player", "2", "--backend", "gurobi")
    assert out["value"] == pytest.approx(1 / 18, abs=1e-9)
    assert out["backend"] == "gurobi" and out["gap"] < 1e-6


def test_solve_deterministic_and_unique(capsys):
    out = cli_json(capsys, "solve", "kuhn", "--deterministic")
    assert out["value"] == pytest.approx(-1 / 6, abs=1e-9)
    assert set(out["strategy"].values()) <= {0.0, 1.0}
    out = cli_json(capsys, "solve", "rps", "--unique")
    assert out["unique"] is True
    out = cli_json(capsys, "solve", "kuhn", "--unique")
    assert out["unique"] is False


def test_solve_with_cfr_plus_agrees_with_the_lp(capsys):
    out = cli_json(capsys, "solve", "kuhn", "--method", "cfr+", "--iterations", "3000", "--target-gap", "1e-4")
    assert out["gap"] <= 1e-4
    assert out["value"] == pytest.approx(-1 / 18, abs=out["gap"])


def test_kdet_sweep_json(capsys, tmp_path):
    plot = tmp_path / "kuhn.png"
    rows = cli_json(capsys, "kdet", "kuhn", "--player", "1", "--sweep", "--plot", plot)
    assert [r["k"] for r in rows] == list(range(7))
    assert rows[0]["value"] == pytest.approx(-1 / 18) and rows[-1]["value"] == pytest.approx(-1 / 6)
    assert all("mip_gap" in r for r in rows)
    assert plot.stat().st_size > 1000
    single = cli_json(capsys, "kdet", "kuhn", "--player", "1", "--k", "6")
    assert single == [pytest.approx({"k": 6, "value": -1 / 6, "mip_gap": 0.0}, abs=1e-9)]


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_export(tmp_path, fmt, capsys):
    target = tmp_path / f"kuhn_kdet.{fmt}"
    assert main(["export", "kuhn", "--model", "kdet", "--k", "3", "--format", fmt, "-o", str(target)]) == 0
    text = target.read_text()
    assert "at_least_k_0" in text and "determinism_link_11" in text and "z_11" in text


def test_validate_summarises_a_good_file():
    done = run_cli("validate", "kuhn")
    assert done.returncode == 0
    assert done.stdout.strip() == ("kuhn: valid; player 1: 6 decision points, 13 sequences; "
                                   "player 2: 6 decision points, 13 sequences; 30 utility entries")


@pytest.mark.parametrize("command", ["validate", "solve"])
def test_broken_file_gives_one_line_and_non_zero_exit(tmp_path, command):
    broken = tmp_path / "broken.json"
    broken.write_text('{"decision_problem_pl1": []')
    done = run_cli(command, broken)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "broken.json" in lines[0] and "not valid JSON" in lines[0]
    assert "Traceback" not in done.stderr


def test_missing_file_and_bad_k_are_one_line_errors(tmp_path):
    done = run_cli("solve", tmp_path / "absent.json")
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1
    done = run_cli("kdet", "kuhn", "--player", "1", "--k", "99")
    assert done.returncode != 0 and "between 0 and 6" in done.stderr


def test_refused_backend_is_a_one_line_error():
    done = run_cli("solve", "kuhn", "--backend", "nosuch")
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == ["gamelp: error: unknown backend 'nosuch'; use one of highs, gurobi, "
                                                "pyomo:<solver>, cvxpy:<SOLVER>"]


def test_export_into_a_missing_directory_is_refused_before_highs_writes(tmp_path):
    """HiGHS's writer segfaulted (exit 139) on a missing directory; the path is checked first."""
    done = run_cli("export", "kuhn", "-o", tmp_path / "missing" / "kuhn.lp")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"gamelp: error: {tmp_path / 'missing' / 'kuhn.lp'}: cannot write, "
                                                f"the directory {str(tmp_path / 'missing')!r} does not exist"]
    assert not (tmp_path / "missing").exists()
