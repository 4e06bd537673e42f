"""Every numeric option of every command, run end to end at the edges of its accepted range.

``test_numeric_options.py`` checks that the parsers refuse hostile numbers.
This harness runs the commands themselves: for each numeric option found from
the parsers, a small run of its command (:data:`BASES`) with the option at the
smallest and at the largest value its type accepts (an unbounded count at
:data:`gamelp.argtypes.MAX_COUNT`, an unbounded number at 1e300).  Each case
must end in one of three ways:

- an answer: exit status 0, no traceback, and (with ``--json``) one JSON document;
- a refusal: exit status 2 and a one-line error last on standard error (after any log lines);
- a long run that a Ctrl-C stops: still working after :data:`PATIENCE` seconds
  (a count of a billion games is honest work), it ends within 15 s of SIGINT
  with status 130 (or dies of the signal as the interpreter ends, its work done), without a traceback.

Anything else (a traceback, another status, a run that ignores Ctrl-C) is a
defect.  By default a seeded sample of :data:`SAMPLE` cases runs (a few
minutes); ``GAMELP_FUZZ_ALL=1`` runs all of them (about 380 cases, an hour on
two cores).
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import signal
import subprocess
import sys
from importlib import resources

import pytest
from conftest import SCRIPTS
from test_numeric_options import OPTIONS

from gamelp.argtypes import MAX_COUNT

pytestmark = pytest.mark.harness

PATIENCE = 20.0
SAMPLE = 40
DATA = resources.files("gamelp.games").joinpath("data")
ESCHE_8C = str(DATA.joinpath("esche_8c_payoffs.csv"))
CELLS, CELLS_STD = (str(DATA.joinpath(f"mtg_exact_15cells_{kind}.csv")) for kind in ("payoffs", "std"))
MTG_SMALL = ["--games", "2", "--evaluation", "life", "--eval-cap", "200"]
RUN_SMALL = ["--workers", "1", "--quiet"]

# Exit statuses that carry an answer besides 0: a benchmark that missed its target, a mutation score below its floor.
ANSWER_STATUSES = {("bench/bench_cfr.py",): {0, 1}, ("mutation_score.py",): {0, 1}}

# A small run of each command with numeric options (a function of a temporary directory), and, where an option
# acts only with others, the run for that option.
BASES = {
    ("gamelp", "solve"): lambda tmp: ["solve", "kuhn", "--json"],
    ("gamelp", "solve", "--iterations"): lambda tmp: ["solve", "kuhn", "--method", "mwu", "--iterations", "50"],
    ("gamelp", "solve", "--eta"): lambda tmp: ["solve", "kuhn", "--method", "mwu", "--iterations", "50", "--json"],
    ("gamelp", "solve", "--target-gap"): lambda tmp: ["solve", "kuhn", "--method", "cfr+", "--iterations", "500"],
    ("gamelp", "kdet"): lambda tmp: ["kdet", "kuhn", "--player", "1", "--sweep", "--quiet", "--json"],
    ("gamelp", "kdet", "--k"): lambda tmp: ["kdet", "kuhn", "--player", "1", "--json"],
    ("gamelp", "export"): lambda tmp: ["export", "kuhn", "--player", "1", "-o", str(tmp / "kuhn.lp")],
    ("gamelp", "matrix", "solve"): lambda tmp: ["matrix", "solve", ESCHE_8C, "--json"],
    ("gamelp", "matrix", "solve", "--radius"): lambda tmp: [
        *("matrix", "solve", CELLS, "--robust", "interval", "--std", CELLS_STD, "--radius", "1")
    ],
    ("gamelp", "matrix", "solve", "--target-gap"): lambda tmp: ["matrix", "solve", ESCHE_8C, "--method", "pcfr+"],
    ("gamelp", "matrix", "solve", "--iterations"): lambda tmp: ["matrix", "solve", ESCHE_8C, "--method", "pcfr+"],
    ("gamelp", "mtg", "play"): lambda tmp: ["mtg", "play", "--evaluation", "life", "--eval-cap", "200"],
    ("gamelp", "mtg", "sweep"): lambda tmp: [
        *("mtg", "sweep", "--creatures", "8", "--bolts", "28:32:4", *MTG_SMALL, *RUN_SMALL, "--out", str(tmp / "o"))
    ],
    ("gamelp", "mtg", "train-forest"): lambda tmp: [
        *("mtg", "train-forest", "--games", "4", "--trees", "2", "--test-games", "2", "--quiet")
    ],
    ("gamelp", "mtg", "tournament"): lambda tmp: [
        *("mtg", "tournament", "--players", "aggressive,random", "--decks", "8C28L", *MTG_SMALL, *RUN_SMALL),
        *("--out", str(tmp / "o")),
    ],
    ("gamelp", "locm", "play"): lambda tmp: ["locm", "play", "--json"],
    ("gamelp", "locm", "tournament"): lambda tmp: [
        *("locm", "tournament", "--drafters", "random,icebox", "--matches", "2", "--sets", "2", *RUN_SMALL),
        *("--out", str(tmp / "o")),
    ],
    ("gamelp", "locm", "train"): lambda tmp: [
        *("locm", "train", "--episodes", "8", "--eval-episodes", "2", "--minibatches", "1", "--battles", "1"),
        *("--quiet", "--out", str(tmp / "o")),
    ],
    ("bench/bench_cfr.py",): lambda tmp: [
        *("--game", "kuhn", "--methods", "cfr+", "--targets", "1e-2", "--max-iterations", "200", "--repeats", "1"),
        *("--method-max-iterations", "200", "--skip-openspiel", "--skip-python", "--out", str(tmp)),
    ],
    ("bench/bench_exact.py",): lambda tmp: ["--games", "kuhn", "--gambit-games", "kuhn", "--gambit-timeout", "60"],
    ("bench/bench_refine.py",): lambda tmp: ["--games", "kuhn_poker", "--openspiel-eps", "1e-4"],
    ("bench/bench_kdet.py",): lambda tmp: [
        *("--game", "kuhn", "--methods", "search", "--variants", "", "--search-time-limit", "5"),
        *("--mip-time-limit", "5", "--out", str(tmp)),
    ],
    ("bench/bench_kdet_scip.py",): lambda tmp: [
        *("--game", "kuhn", "--k1", "2", "--k2", "2", "--solvers", "highs", "--time-limit", "5", "--out", str(tmp))
    ],
    ("bench/bench_locm.py",): lambda tmp: ["--battlers", "max-attack", "--seconds", "0.2", "--workers", "1"],
    ("bench/bench_locm_train.py",): lambda tmp: [
        *("--battlers", "max-attack", "--episodes", "4", "--env-episodes", "4", "--minibatches", "1", "--envs", "1")
    ],
    ("bench/bench_matrix.py",): lambda tmp: ["--sizes", "3", "--peers", "--timeout", "10", "--out", str(tmp)],
    ("bench/bench_mtg.py",): lambda tmp: ["--games", "2", "--cap", "200", "--evaluation", "life"],
    ("bench/bench_mtg_exact.py",): lambda tmp: ["--games", "2", "--python-games", "1", "--cap", "200"],
    ("bench/bench_nash.py",): lambda tmp: [
        *("--repeats", "1", "--backends", "highs", "--no-openspiel", "--variants", "3x2")
    ],
    ("bench/bench_persistent.py",): lambda tmp: [
        *("--game", "kuhn", "--rhs-steps", "3", "--greedy-steps", "2", "--search-lps", "3"),
        *("--sweep-time-limit", "5"),
    ],
    ("bench/bench_large.py",): lambda tmp: [
        *("--ranks", "3", "--raise-sizes", "2", "4", "--max-raises", "1", "--methods", "simplex", "cfr+"),
        *("--target", "1e-2", "--timeout", "30", "--out", str(tmp)),
    ],
    ("bench/bench_scaling.py",): lambda tmp: [
        *("--repeats", "1", "--variants", "3x2", "--sizes", "10", "--regret-target", "1e-3", "--matrix-target", "1e-3"),
        *("--out", str(tmp)),
    ],
    ("bench/bench_startup.py",): lambda tmp: ["--runs", "1"],
    ("bench/bench_select.py",): lambda tmp: ["--games", "kuhn", "--repeats", "1"],
    ("bench/bench_det_ilp.py",): lambda tmp: [
        *("--games", "kuhn", "--players", "1", "--backends", "highs", "--time-limit", "5")
    ],
    ("bench/bench_leduc13x4.py",): lambda tmp: [
        *("--games", "kuhn", "--methods", "default,pdlp,cfr+polish", "--pdlp-limit", "5", "--polish-target", "1e-2")
    ],
    ("bench/bench_sweep.py",): lambda tmp: [
        *("--creatures", "8", "--bolts", "28,32", "--games", "2", "--eval-cap", "200", "--evaluation", "life"),
        *("--workers", "1", "--batch-sizes", "2", "--out", str(tmp)),
    ],
    ("esche/esche_3_1_lp.py",): lambda tmp: [],
    ("figures/regret_convergence.py",): lambda tmp: ["--game", "kuhn", "--iterations", "20", "--methods", "cfr+"],
    ("mutation_score.py",): lambda tmp: ["--module", "gamelp/matrix.py", "--sample", "1", "--jobs", "1"],
    ("esche/esche_3_2_robust.py",): lambda tmp: ["--out", str(tmp)],
    ("esche/esche_3_2_std.py",): lambda tmp: [
        *("--games", "2", "--repeats", "2", "--evaluation", "life", "--eval-cap", "200", *RUN_SMALL),
        *("--out", str(tmp / "o")),
    ],
    ("esche/esche_3_4_players.py",): lambda tmp: [
        *("--games", "2", "--repeats", "1", "--samples", "1", "--evaluation", "life", "--eval-cap", "200"),
        *(*RUN_SMALL, "--out", str(tmp / "o")),
    ],
    ("esche/esche_appendix_b.py", "run"): lambda tmp: [
        *("run", "--games", "1", "--evaluation", "life", "--eval-cap", "200", *RUN_SMALL, "--out", str(tmp / "o"))
    ],
    ("esche/esche_appendix_b.py", "forest-accuracy"): lambda tmp: [
        *("forest-accuracy", "--decks", "0C28L,0C40L", "--games", "2", "--quiet")
    ],
    ("esche/esche_appendix_b.py", "seats"): lambda tmp: ["seats", str(tmp)],
    ("esche/esche_small_sweep.py",): lambda tmp: [
        *("--creatures", "8", "--bolts", "28:32:4", "--games", "2", "--repeats", "2", "--evaluation", "life"),
        *("--eval-cap", "200", *RUN_SMALL, "--out", str(tmp / "o")),
    ],
    ("esche/esche_table_3_1_forest.py",): lambda tmp: [
        *("--train-games", "4", "--sets", "1", "--set-games", "2", "--jobs", "1")
    ],
    ("esche/esche_table_3_2_cap.py",): lambda tmp: ["--games", "2", "--caps", "200", "--evaluation", "life"],
    ("esche/esche_table_3_4.py",): lambda tmp: [
        *("--games", "1", "--evaluation", "life", "--eval-cap", "200", *RUN_SMALL, "--out", str(tmp / "o"))
    ],
    ("giotta/giotta_pennies.py",): lambda tmp: [
        *("--plays", "100", "--runs", "2", "--games", "20", "--reps", "4", "--out", str(tmp))
    ],
    ("giotta/giotta_rps.py",): lambda tmp: [
        *("--plays", "100", "--runs", "2", "--games", "20", "--reps", "4", "--out", str(tmp))
    ],
    ("giotta/giotta_yugioh.py",): lambda tmp: [
        *("--games", "20", "--cell-games", "2", *RUN_SMALL, "--out", str(tmp / "o"))
    ],
    ("hw2/hw2_1_omwu.py",): lambda tmp: ["--iterations", "50", "--size", "3", "--out", str(tmp)],
    ("hw2/hw2_2_3_kdeterminism.py",): lambda tmp: ["--games", "rps,kuhn", "--quiet", "--out", str(tmp)],
    ("vieira/vieira_5_1_training.py",): lambda tmp: [
        *("--episodes", "8", "--eval-episodes", "2", "--minibatches", "1", "--battles", "1", "--quiet"),
        *("--out", str(tmp / "o")),
    ],
    ("vieira/vieira_5_2_tournament.py",): lambda tmp: [
        *("--battlers", "max-attack", "--matches", "2", "--sets", "2", *RUN_SMALL, "--out", str(tmp / "o"))
    ],
    ("vieira/vieira_5_4_choices.py",): lambda tmp: ["--drafts", "4"],
}


def _edges(action) -> list[str]:
    """The smallest and the largest value ``action``'s type accepts, as command-line text."""
    if action.choices:
        return [str(min(action.choices)), str(max(action.choices))]
    kind = action.type
    if hasattr(kind, "high"):  # gamelp.argtypes.integer
        return [str(kind.low), str(kind.high if kind.high is not None else MAX_COUNT)]
    low = kind.low
    if low == -math.inf:
        smallest = -1e300
    elif kind.strict:
        smallest = low + max(abs(low), 1.0) * 1e-12
    else:
        smallest = low
    return [repr(smallest), repr(kind.high) if math.isfinite(kind.high) else "1e300"]


def _cases():
    found = []
    for path, option, action, _ in OPTIONS:
        base = BASES.get((*path, option), BASES.get(path))
        for value in _edges(action):
            found.append(pytest.param(path, option, value, base, id=f"{' '.join(path)} {option}={value}"))
    return found


CASES = _cases()


def _selected():
    """All cases with ``GAMELP_FUZZ_ALL=1``; otherwise a seeded sample of :data:`SAMPLE` of them."""
    if os.environ.get("GAMELP_FUZZ_ALL"):
        return CASES
    return random.Random(2026).sample(CASES, min(SAMPLE, len(CASES)))


def test_every_command_with_numeric_options_has_a_base_run():
    assert {path for path, *_ in OPTIONS} <= set(BASES), "add a small run of the command to BASES"


def _with_option(argv: list[str], option: str, value: str) -> list[str]:
    """``argv`` with ``option=value`` (in place of the option's value if present: ``=`` keeps ``-1e+300`` a value)."""
    if option in argv:
        at = argv.index(option)
        return [*argv[:at], f"{option}={value}", *argv[at + 2 :]]
    return [*argv, f"{option}={value}"]


def _interruptible() -> None:
    """In the child: Ctrl-C's default action, even where this test runs with SIGINT ignored (a background job)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_case(path, option, value, base, tmp_path) -> tuple[str, str]:
    """(outcome, detail): outcome is answer, refusal, interrupted or defect."""
    argv = _with_option(base(tmp_path), option, value)
    if path[0] == "gamelp":
        line = [sys.executable, "-m", "gamelp.cli", *argv]
    else:
        line = [sys.executable, str(SCRIPTS / path[0]), *argv]
    env = {**os.environ, "GAMELP_CACHE": str(tmp_path / "cache"), "MPLBACKEND": "Agg"}
    proc = subprocess.Popen(
        line,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_interruptible,
    )
    try:
        out, err = proc.communicate(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return "defect", "ignored Ctrl-C for 15 s"
        # 130: gamelp's "interrupted"; -SIGINT, or 0 with the KeyboardInterrupt reported as ignored in a clean-up:
        # the signal came as the interpreter was ending, after the work
        if proc.returncode in (130, -signal.SIGINT) and "Traceback" not in err:
            return "interrupted", _last_line(err)
        if proc.returncode == 0 and "Traceback" not in IGNORED_AT_EXIT.sub("", err):
            return "answer", out[-200:]
        return "defect", f"after Ctrl-C: exit {proc.returncode}: {err.strip()[-2000:]}"
    if "Traceback" in err:
        return "defect", err.strip()[-2000:]
    if proc.returncode == 2 and ": error: " in _last_line(err):
        return "refusal", _last_line(err)
    if proc.returncode in ANSWER_STATUSES.get(path, {0}):
        if "--json" in argv:
            json.loads(out)
        return "answer", out[-200:]
    return "defect", f"exit {proc.returncode}: {err.strip()[-2000:]}"


# What Python prints (and then exits 0) when Ctrl-C lands in a clean-up callback as the interpreter ends.
IGNORED_AT_EXIT = re.compile(r"Exception ignored in: .*?\nKeyboardInterrupt: ?\n?", re.DOTALL)


def _last_line(err: str) -> str:
    """The last line of standard error: the refusal or the interruption (log lines may come before it)."""
    return err.strip().rsplit("\n", 1)[-1]


@pytest.mark.parametrize("path, option, value, base", _selected())
def test_a_numeric_option_at_its_edges_ends_in_an_answer_a_refusal_or_a_clean_interrupt(
    path, option, value, base, tmp_path
):
    outcome, detail = run_case(path, option, value, base, tmp_path)
    assert outcome != "defect", detail
