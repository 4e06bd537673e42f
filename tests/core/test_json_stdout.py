"""With ``--json``, standard output is exactly one JSON document, whatever the solvers write.

The commands and scripts that take ``--json`` are found from their parsers:
the ``gamelp`` parser's tree (every simulator group loaded) and the
``build_parser()`` of every script.  Each one found must have an example
command line below, and each example runs in a subprocess, the way a user's
shell runs it, so that C-level writes to file descriptor 1 (highspy's banner,
Gurobi's licence line) would show.  Solves run on every installed backend
family, since each writes its own banner or log.
"""

from __future__ import annotations

import importlib.util
import json
import lzma
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from conftest import SCRIPTS, commands_with

KUHN_ALWAYS_BET = str(Path(__file__).parents[2] / "docs" / "guide" / "kuhn-always-bet.json")
ESCHE_8C = str(resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv"))


def _locm_two_matches(directory) -> str:
    raw = resources.files("gamelp.games.locm").joinpath("data", "consistency-v1.2-dev.txt.xz").read_bytes()
    path = directory / "two.txt"
    path.write_text("\n".join(lzma.decompress(raw).decode().splitlines()[:2]) + "\n")
    return str(path)


# One or more command lines for each command with --json (functions of a temporary directory).
EXAMPLES = {
    ("gamelp", "solve"): lambda tmp: [
        ["solve", "kuhn", "--player", "1", "--json"],
        ["solve", "kuhn", "--player", "2", "--backend", "gurobi", "--json"],
        ["solve", "kuhn", "--player", "1", "--backend", "pyomo:highs", "--json"],
        ["solve", "kuhn", "--player", "1", "--backend", "pyomo:appsi_highs", "--json"],
        ["solve", "kuhn", "--player", "1", "--backend", "cvxpy:HIGHS", "--json"],
        ["solve", "kuhn", "--player", "1", "--backend", "cvxpy:CLARABEL", "--json"],
        ["solve", "kuhn", "--method", "cfr+", "--iterations", "50", "--json"],
        ["solve", "kuhn", "--deterministic", "--json"],
        ["solve", "kuhn", "--unique", "--json"],
    ],
    ("gamelp", "evaluate"): lambda tmp: [
        ["evaluate", "kuhn", KUHN_ALWAYS_BET, "--json"],
        ["evaluate", "kuhn", KUHN_ALWAYS_BET, "--exact", "--json"],
    ],
    ("gamelp", "kdet"): lambda tmp: [
        ["kdet", "kuhn", "--player", "1", "--k", "2", "--json"],
        ["kdet", "kuhn", "--player", "1", "--sweep", "--json"],
    ],
    ("gamelp", "backends"): lambda tmp: [["backends", "--json"]],
    ("gamelp", "validate"): lambda tmp: [["validate", "leduc", "--json"], ["validate", "rps", "--json"]],
    ("gamelp", "matrix", "solve"): lambda tmp: [
        ["matrix", "solve", ESCHE_8C, "--json"],
        ["matrix", "solve", ESCHE_8C, "--unique", "--backend", "gurobi", "--json"],
        ["matrix", "solve", ESCHE_8C, "--method", "pcfr+", "--target-gap", "1e-3", "--json"],
    ],
    ("gamelp", "mtg", "tournament"): lambda tmp: [
        [
            "mtg",
            "tournament",
            "--players",
            "aggressive,random",
            "--decks",
            "8C28L",
            "--games",
            "2",
            "--repeats",
            "1",
            "--workers",
            "1",
            "--quiet",
            "--json",
        ]
    ],
    ("gamelp", "locm", "replay"): lambda tmp: [["locm", "replay", _locm_two_matches(tmp), "--json"]],
    ("gamelp", "locm", "play"): lambda tmp: [["locm", "play", "--seed", "3", "--json"]],
    ("script", "bench/bench_det_ilp.py"): lambda tmp: [
        ["--games", "kuhn", "--players", "1", "--backends", "highs", "--json"]
    ],
    ("script", "bench/bench_startup.py"): lambda tmp: [["--runs", "1", "--json"]],
}


def test_every_json_command_has_an_example():
    assert commands_with("--json") == set(EXAMPLES), "add an example command line for each command with --json"


def _available(argv) -> bool:
    backend = argv[argv.index("--backend") + 1] if "--backend" in argv else "highs"
    module = {"gurobi": "gurobipy", "pyomo": "pyomo", "cvxpy": "cvxpy"}.get(backend.split(":")[0])
    return module is None or importlib.util.find_spec(module) is not None


@pytest.mark.parametrize("command", sorted(EXAMPLES), ids=" ".join)
def test_json_stdout_is_one_document(command, tmp_path):
    for argv in EXAMPLES[command](tmp_path):
        if not _available(argv):
            continue
        if command[0] == "script":
            line = [sys.executable, str(SCRIPTS / command[1]), *argv]
        else:
            line = [sys.executable, "-m", "gamelp.cli", *argv]
        done = subprocess.run(line, capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, (argv, done.stderr[-2000:])
        json.loads(done.stdout)  # raises on a banner, a log line or a second document
        assert done.stdout.strip().startswith(("{", "[")), argv
