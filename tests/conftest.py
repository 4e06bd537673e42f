"""Shared fixtures (the built-in games, loaded once per session) and the split of the suite into its quick
default and the long tests.

``pytest`` alone runs the quick tests, on every core (``-n auto`` in pyproject.toml). The long ones, marked
``slow`` (a full-scale reproduction or a test of several seconds) or ``harness`` (it runs the commands
themselves with hostile options, or kills them), are left out and counted in one closing line; ``pytest --full``
runs them too, as CI does, and an explicit ``-m`` expression chooses for itself.
"""

import contextlib
import copy
import importlib.util
import json
import os
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from gamelp.game import load_game

LONG_MARKERS = ("slow", "harness")

needs_rl = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("stable_baselines3") is None,
    reason='needs the rl extra (torch, stable-baselines3), which the test extra leaves out: pip install -e ".[rl]"',
)
"""For the tests that train drafters or compare with torch's networks."""

needs_exact_c = pytest.mark.skipif(
    importlib.util.find_spec("gamelp.games.mtg._exact") is None,
    reason="needs the C mini Magic search, not built here (no C compiler at install): the Python search would take "
    "hundreds of times longer",
)
"""For the tests that play many exact mini Magic games, or compare builds of the C search."""


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", help="also run the long tests (marked slow or harness), as CI does")


def _leaves_out_long_tests(config) -> bool:
    return not config.getoption("--full") and not config.getoption("markexpr")


def pytest_collection_modifyitems(config, items):
    if not _leaves_out_long_tests(config):
        return
    quick, long = [], []
    for item in items:
        (long if any(item.get_closest_marker(name) for name in LONG_MARKERS) else quick).append(item)
    if long:
        config.hook.pytest_deselected(items=long)
        items[:] = quick


def pytest_terminal_summary(terminalreporter, config):
    if _leaves_out_long_tests(config):
        terminalreporter.write_line(
            "gamelp: the long tests (marked slow or harness) were left out; `pytest --full` runs them too"
        )


@pytest.fixture(scope="session")
def rps():
    return load_game("rps")


@pytest.fixture(scope="session")
def kuhn():
    return load_game("kuhn")


@pytest.fixture(scope="session")
def leduc():
    return load_game("leduc")


@pytest.fixture
def kuhn_dict():
    """A fresh, mutable copy of the Kuhn game file's JSON object."""
    text = resources.files("gamelp.games").joinpath("data", "kuhn.json").read_text()
    return copy.deepcopy(json.loads(text))


@pytest.fixture
def disk_full():
    """A full disk's stand-in: ``with disk_full(n):`` fails every write past byte ``n`` of any file with EFBIG.

    The block runs under a lowered file-size limit (``RLIMIT_FSIZE``, restored after): the kernel refuses the
    write as a full disk would, for Python's own writes and those of C libraries (HiGHS, SQLite) alike, and no
    mount is needed.  Python ignores SIGXFSZ, so the write fails instead of the process being killed.
    """
    resource = pytest.importorskip("resource")
    import signal

    assert signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)

    @contextlib.contextmanager
    def limited(size: int):
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))

    return limited


@pytest.fixture
def small_tmpfs(tmp_path):
    """A real 64 KiB file system (tmpfs) at ``tmp_path/disk``, where a write past its size fails with ENOSPC.

    Mounting needs root: skipped wherever ``mount`` is refused; unmounted after the test.
    """
    import shutil
    import subprocess

    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=False)


SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(relative: str):
    """Import ``scripts/<relative>`` (e.g. ``"esche/esche_3_1_lp.py"``) as a module; scripts are no package.

    A script exposes ``build_parser()``, ``main(argv) -> result`` (a dataclass of
    the figures it reports, printing nothing) and ``report(result)``.
    """
    path = SCRIPTS / relative
    spec = importlib.util.spec_from_file_location(f"gamelp_script_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def matrix_value(A) -> float:
    """The row player's value of the zero-sum matrix game ``A``, by scipy's LP (not gamelp's): an independent check."""
    from scipy.optimize import linprog

    m, n = A.shape
    # max v  s.t.  x^T A e_j >= v for every column j, x on the simplex
    done = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.c_[-A.T, np.ones(n)],
        b_ub=np.zeros(n),
        A_eq=np.r_[np.ones(m), 0.0][None],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
    )
    return -done.fun


def deep_efg(depth: int, chance: bool = False) -> str:
    """A Gambit .efg game ``depth`` moves deep: player 1 (or chance, by halves) goes "on" or "stop" ``depth``
    times in a row, stopping at level k pays k (player 2 has one move, player 1 a first one, "go")."""
    lines = ['EFG 2 R "deep" { "a" "b" }', '""', 'p "" 2 1 "" { "only" } 0', f'p "" 1 {depth + 1} "" {{ "go" }} 0']
    for k in range(depth):
        lines.append(
            f'c "" {k + 1} "" {{ "on" 1/2 "stop" 1/2 }} 0' if chance else f'p "" 1 {k + 1} "" {{ "on" "stop" }} 0'
        )
    lines.append(f't "" {depth + 1} "" {{ {depth}, {-depth} }}')
    lines += [f't "" {k + 1} "" {{ {k}, {-k} }}' for k in reversed(range(depth))]
    return "\n".join(lines) + "\n"


def error_lines(stderr: str) -> list[str]:
    """The lines of a command's ``stderr`` less the notices of a missing fast path (:mod:`gamelp.notices`, logged
    as ``WARNING gamelp: ...``), which an install without a C compiler adds before the work that needs it."""
    return [line for line in stderr.strip().splitlines() if not line.startswith("WARNING gamelp: ")]


def refusal(relative: str, args, cwd) -> str:
    """Run ``scripts/<relative>`` with bad ``args`` as a user would; check it exits 2 with one line; its stderr."""
    import subprocess

    done = subprocess.run(
        [sys.executable, str(SCRIPTS / relative), *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    return done.stderr


def children_of(pid: int) -> list[int]:
    """The live (not zombie) processes whose parent is ``pid``, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def kill_leaves_no_worker(argv: list[str], cwd, workers: int = 2, start_seconds: float = 120) -> None:
    """Start ``argv``, wait for its ``workers`` worker processes, ``kill -9`` it alone (not its group), and check
    that every worker is gone within 15 s (they are killed here if not, so a failure leaves nothing running)."""
    import signal
    import subprocess
    import time

    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + start_seconds
        children: list[int] = []
        while time.monotonic() < deadline and len(children) < workers and proc.poll() is None:
            time.sleep(0.1)
            children = children_of(proc.pid)
        assert len(children) >= workers, f"{argv}: no pool started (exit {proc.poll()}, children {children})"
        time.sleep(0.5)  # the workers are at work
    finally:
        proc.kill()  # SIGKILL of the main process only
        proc.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(pid) for pid in children):
        time.sleep(0.1)
    survivors = [pid for pid in children if alive(pid)]
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert not survivors, f"{argv}: workers {survivors} outlived their parent"


def commands_with(option: str) -> set[tuple[str, ...]]:
    """The commands that take ``option``, found from their parsers: ``("gamelp", ...)`` for the ``gamelp`` tree
    (every simulator group loaded), ``("script", path, ...)`` for the scripts' ``build_parser()`` trees."""
    import argparse

    from gamelp.cli import build_parser

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, (*path, name))
        if any(option in action.option_strings for action in parser._actions):
            yield path

    found = set(walk(build_parser([]), ("gamelp",)))
    for path in sorted(SCRIPTS.rglob("*.py")):
        relative = str(path.relative_to(SCRIPTS))
        if "def build_parser" in path.read_text():
            found |= set(walk(load_script(relative).build_parser(), ("script", relative)))
    return found
