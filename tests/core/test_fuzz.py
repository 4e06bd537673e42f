"""Fuzzing the gamelp command: broken game files, matrices and command lines never crash or hang.

Each generated case runs ``gamelp.cli.main`` in-process under a SIGALRM
watchdog (a case that runs too long fails as a hang); a few run as
subprocesses with a timeout, where a hang or a segfault would show.  A run
must either succeed (exit 0) or refuse with exit status 2 and exactly one
``gamelp ...: error: ...`` line on stderr, never a traceback.  The examples
are derandomised, so a failure reproduces.
"""

import json
import os
import re
import signal
import subprocess
import sys
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamelp.cli import main

WATCHDOG_SECONDS = 20
FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])


class Hang(BaseException):
    """Raised by the watchdog; a BaseException so that no handler in gamelp swallows it."""


def _alarm(signum, frame):
    raise Hang(f"no answer within {WATCHDOG_SECONDS} s")


def run(capsys, argv, answers=(0,)):
    """Run ``gamelp argv`` in-process; check the exit contract (``answers``: the exit codes of an answer);
    return (code, stdout, stderr)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(WATCHDOG_SECONDS)
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse refusals, --help, --version
        code = stop.code
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    check_contract(argv, code, err, answers)
    return code, out, err


def check_contract(argv, code, err, answers=(0,)):
    assert "Traceback" not in err, (argv, err)
    assert code in (*answers, 2), (argv, code, err)
    if code == 2:
        errors = [line for line in err.splitlines() if re.match(r"gamelp[\w -]*: error: ", line)]
        others = [line for line in err.splitlines() if line and line not in errors and not line.startswith("WARNING")]
        assert len(errors) == 1 and not others, (argv, err)


# ---------------------------------------------------------------------- game files
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{}\[\],:]')
_REPLACEMENTS = [
    '"d1_pl1"',
    '"r"',
    '"a:b"',
    '"decision"',
    '"observation"',
    '"value"',
    '"id"',
    "null",
    "true",
    "0",
    "-1",
    "1e400",
    "9" * 400,
    "1.5",
    "[]",
    "{}",
    '["d1_pl1", "r"]',
    "[" * 5000,
    ",",
    ":",
    '"∅"',
    '"type": "decision"',
    '"parent_edge": null',
]


def _rps_text():
    return resources.files("gamelp.games").joinpath("data", "rps.json").read_text(encoding="utf-8")


@st.composite
def broken_game_texts(draw):
    """The RPS file with one to four of its JSON tokens replaced, deleted or repeated."""
    text = _rps_text()
    for _ in range(draw(st.integers(1, 4))):
        tokens = list(_TOKEN.finditer(text))
        target = draw(st.sampled_from(tokens))
        how = draw(st.sampled_from(["replace", "delete", "repeat"]))
        new = {
            "replace": draw(st.sampled_from(_REPLACEMENTS)),
            "delete": "",
            "repeat": target.group() + ", " + target.group(),
        }[how]
        text = text[: target.start()] + new + text[target.end() :]
    return text


@settings(FUZZ, max_examples=120)
@given(text=broken_game_texts(), command=st.sampled_from(["validate", "solve", "export"]))
def test_broken_game_files(tmp_path, capsys, text, command):
    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    argv = [command, str(path)] + (["-o", str(tmp_path / "model.lp")] if command == "export" else [])
    run(capsys, argv)


# ---------------------------------------------------------------------- matrices
_GOOD_CSV = ",rock,paper,scissors\nrock,0,-1,1\npaper,1,0,-1\nscissors,-1,1,0\n"
_CSV_PIECES = [
    ",",
    "\n",
    "",
    "0",
    "1",
    "-",
    ".",
    "e",
    "e999",
    "1_000",
    "\uff11",
    "nan",
    "inf",
    "x",
    '"',
    "\x00",
    "rock",
    " ",
    "\r\n",
    "0.5",
    "1e-320",
    "\ufeff",
]


@st.composite
def broken_csvs(draw):
    text = _GOOD_CSV
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 3))
        text = text[:at] + draw(st.sampled_from(_CSV_PIECES)) + text[at + cut :]
    return text


@settings(FUZZ, max_examples=120)
@given(payoffs=broken_csvs(), deviations=broken_csvs(), robust=st.booleans(), player=st.sampled_from(["row", "col"]))
def test_broken_matrices(tmp_path, capsys, payoffs, deviations, robust, player):
    (tmp_path / "p.csv").write_text(payoffs, encoding="utf-8")
    (tmp_path / "s.csv").write_text(deviations.replace("-", ""), encoding="utf-8")
    argv = ["matrix", "solve", str(tmp_path / "p.csv"), "--player", player, "--json"]
    if robust:
        argv += ["--robust", "interval", "--radius", "0.5", "--std", str(tmp_path / "s.csv")]
    code, out, _ = run(capsys, argv)
    if code == 0:
        answer = json.loads(out)
        assert answer["status"] == "optimal"
        assert sum(answer["strategy"].values()) == pytest.approx(1.0, abs=1e-6)


# ---------------------------------------------------------------------- command lines
_COMMANDS = [
    ["solve", "kuhn"],
    ["solve", "rps", "--method", "cfr+"],
    ["kdet", "kuhn", "--player", "1"],
    ["export", "rps"],
    ["validate", "rps"],
    ["matrix", "solve", "P"],
    ["mtg", "play", "--evaluation", "life"],
    ["export-game", "kuhn"],
    ["backends"],
    [],
]
_OPTIONS = [
    "--player",
    "--iterations",
    "--eta",
    "--target-gap",
    "--k",
    "--mip-gap",
    "--plot",
    "--radius",
    "--robust",
    "--std",
    "--seed",
    "--first",
    "--deck1",
    "--log-level",
    "--backend",
    "--method",
    "--format",
    "-o",
    "--model",
    "--sweep",
    "--json",
    "--unique",
    "--bogus",
    "--version",
    "--time-limit",
    "--behavioural",
]
_VALUES = [
    "-1",
    "0",
    "1",
    "2",
    "3",
    "1e30",
    "1e3",
    "nan",
    "inf",
    "-inf",
    "x",
    "",
    "9" * 400,
    "0.5",
    "x.xyz",
    "k.png",
    "out.lp",
    "out.mps",
    "missing/out.lp",
    "out.efg",
    "out.json",
    "P",
    "S",
    "ellipsoidal",
    "interval",
    "debug",
    "bogus",
    "highs",
    "nosuch",
    "cvxpy:NOSUCH",
    "mwu",
    "kdet",
    "99C99L",
    "--",
    "\x00",
]


@settings(FUZZ, max_examples=150)
@given(
    command=st.sampled_from(_COMMANDS),
    extra=st.lists(st.tuples(st.sampled_from(_OPTIONS), st.sampled_from(_VALUES)), max_size=3),
    log_level=st.sampled_from([None, "debug", "bogus", "ERROR", ""]),
)
def test_generated_command_lines(tmp_path, capsys, monkeypatch, command, extra, log_level):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "P").write_text(_GOOD_CSV, encoding="utf-8")
    (tmp_path / "S").write_text(_GOOD_CSV.replace("-", ""), encoding="utf-8")
    argv = (
        ([] if log_level is None else ["--log-level", log_level]) + command + [part for pair in extra for part in pair]
    )
    run(capsys, argv)


# ---------------------------------------------------------------------- out of process: hangs and crashes
def _gamelp(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "gamelp.cli", *map(str, args)], capture_output=True, text=True, timeout=60, cwd=cwd
    )


@pytest.mark.parametrize(
    "case", ["game_from_a_pipe", "matrix_from_a_pipe", "export_to_a_missing_directory", "deep_json"]
)
def test_subprocess_cases_neither_hang_nor_crash(tmp_path, case):
    if case.endswith("pipe"):
        os.mkfifo(tmp_path / "pipe")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    argv = {
        "game_from_a_pipe": ["solve", "pipe"],
        "matrix_from_a_pipe": ["matrix", "solve", "pipe"],
        "export_to_a_missing_directory": ["export", "kuhn", "-o", "missing/kuhn.mps"],
        "deep_json": ["validate", "deep.json"],
    }[case]
    done = _gamelp(*argv, cwd=tmp_path)  # a hang raises TimeoutExpired; a segfault gives -11
    check_contract(argv, done.returncode, done.stderr)
    assert done.returncode == 2
