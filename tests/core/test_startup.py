"""What ``import gamelp`` and ``gamelp solve kuhn`` load: the path to the first solver call stays light.

The packages only some work needs (networkx's graphs, scipy's optimisers and sparse solvers, pandas, matplotlib,
the optional solver families) are imported inside the functions that use them (docs/development.md, "Imports").
Each test runs a fresh interpreter and reads its ``sys.modules``; ``scripts/bench/bench_startup.py`` times the same
paths.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Modules the core's import path and `gamelp solve kuhn` must not load (a package and all its submodules).
NOT_ON_THE_PATH = (
    "networkx",
    "scipy.optimize",
    "scipy.linalg",
    "scipy.sparse.linalg",
    "pandas",
    "matplotlib",
    "cvxpy",
    "pyomo",
    "gurobipy",
    "pyscipopt",
    "clarabel",
)

# -c program: run argv[1] (Python statements), then print the loaded modules among NOT_ON_THE_PATH to stderr as JSON.
PROBE = """
import json, sys
exec(sys.argv[1])
watched = json.loads(sys.argv[2])
print(json.dumps(sorted(m for m in sys.modules if any(m == w or m.startswith(w + ".") for w in watched))),
      file=sys.stderr)
"""


def loaded_after(statements: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run ``statements`` in a fresh interpreter; the completed process and the watched modules it loaded beyond
    those the dependencies gamelp cannot start without load themselves (older scipy's ``scipy.sparse`` imports
    ``scipy.linalg``)."""

    def run(code: str) -> tuple[subprocess.CompletedProcess, list[str]]:
        done = subprocess.run(
            [sys.executable, "-c", PROBE, code, json.dumps(NOT_ON_THE_PATH)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done, json.loads(done.stderr.strip().splitlines()[-1])

    _, needed = run("import numpy, scipy.sparse, highspy")
    done, loaded = run(statements)
    return done, sorted(set(loaded) - set(needed))


@pytest.mark.parametrize("module", ["gamelp", "gamelp.cli"])
def test_importing_gamelp_loads_none_of_the_heavy_packages(module):
    _, loaded = loaded_after(f"import {module}")
    assert loaded == []


def test_solve_kuhn_solves_without_loading_them():
    """``gamelp solve kuhn`` runs HiGHS (its value on stdout) and loads nothing of the list, solve included."""
    done, loaded = loaded_after(
        "from gamelp.cli import main\n"
        "assert main(['solve', 'kuhn']) == 0\n"
        "assert 'highspy' in sys.modules and 'gamelp.backends.highs' in sys.modules\n"
    )
    assert done.stdout.startswith("kuhn: player 1 value -0.0555555555")
    assert loaded == []
