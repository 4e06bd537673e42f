"""Workers die with their parent: ``kill -9`` of any command that starts worker processes leaves none running.

The commands that start processes are found from their parsers (every command or script with ``--workers`` or
``--jobs``); each must have an example below that keeps its pool busy for long.  The example runs as a user's
shell runs it, the main process alone is killed with SIGKILL (not its process group, as a crash or the OOM
killer would), and every worker must be gone within 15 seconds.  The pools behind them are
:func:`gamelp.games.runner.process_pool` and the match runner's, whose workers ask the kernel for SIGKILL
when their parent dies and watch it as well.
"""

from __future__ import annotations

import sys

import pytest
from conftest import SCRIPTS, commands_with, kill_leaves_no_worker

pytestmark = [pytest.mark.harness, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]

LONG = ["--quiet", "--workers", "2"]


def _run(*words: str, count: str = "--games", many: str = "10000"):
    """A run of ``words`` with ``count`` at ``many``, an output directory and two workers."""
    return lambda tmp: [*words, count, many, "--evaluation", "life", "--out", str(tmp / "o"), *LONG]


# For each command that starts processes: a command line (function of a temporary directory) that runs long.
EXAMPLES = {
    ("script", "mutation_score.py"): lambda tmp: ["--module", "models/robust.py", "--sample", "200", "--jobs", "2"],
    ("gamelp", "mtg", "sweep"): _run("mtg", "sweep"),
    ("gamelp", "mtg", "tournament"): _run("mtg", "tournament"),
    ("gamelp", "mtg", "train-forest"): lambda tmp: ["mtg", "train-forest", "--games", "1000000", *LONG],
    ("gamelp", "locm", "tournament"): lambda tmp: [
        "locm",
        "tournament",
        "--matches",
        "100000",
        "--out",
        str(tmp),
        *LONG,
    ],
    ("script", "esche/esche_3_2_std.py"): _run(),
    ("script", "esche/esche_3_4_players.py"): _run(),
    ("script", "esche/esche_appendix_b.py", "run"): _run("run"),
    ("script", "esche/esche_appendix_b.py", "forest-accuracy"): lambda tmp: [
        *("forest-accuracy", "--games", "1000000", *LONG)
    ],
    ("script", "esche/esche_small_sweep.py"): _run(),
    ("script", "esche/esche_table_3_4.py"): _run(),
    ("script", "esche/esche_table_3_1_forest.py"): lambda tmp: ["--train-games", "1000000", "--jobs", "2"],
    ("script", "giotta/giotta_yugioh.py"): lambda tmp: ["--games", "10000000", "--out", str(tmp / "o"), *LONG],
    ("script", "vieira/vieira_5_2_tournament.py"): lambda tmp: ["--matches", "100000", "--out", str(tmp / "o"), *LONG],
    ("script", "bench/bench_locm.py"): lambda tmp: ["--battlers", "max-attack", "--seconds", "300", "--workers", "2"],
    ("script", "bench/bench_sweep.py"): lambda tmp: ["--games", "10000", "--workers", "2", "--out", str(tmp / "o")],
}


def test_every_command_with_workers_has_an_example():
    assert commands_with("--workers") | commands_with("--jobs") == set(EXAMPLES)


@pytest.mark.parametrize("command", sorted(EXAMPLES), ids=" ".join)
def test_kill_9_leaves_no_worker(command, tmp_path, monkeypatch):
    monkeypatch.setenv("GAMELP_CACHE", str(tmp_path / "cache"))  # forests trained here, not in the user's cache
    if command[0] == "script":
        line = [sys.executable, str(SCRIPTS / command[1])]
    else:
        line = [sys.executable, "-m", "gamelp.cli"]
    kill_leaves_no_worker([*line, *EXAMPLES[command](tmp_path)], cwd=tmp_path)
