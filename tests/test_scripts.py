"""Every script under scripts/ parses its options (``--help`` exits 0 and describes it)."""

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
