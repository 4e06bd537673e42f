"""Benchmark: gamelp's start-up, from a fresh interpreter to the first solver call of ``gamelp solve kuhn``.

Each case runs ``--runs`` times in a fresh interpreter (this Python, the gamelp this script imports), one after
another; the table gives the median and the fastest wall-clock time from the spawn to the exit, and the median CPU
time (user and system) of the child:

* ``python -c pass``: the interpreter alone, under every other row;
* ``numpy + scipy.sparse + highspy``: the packages the solve cannot do without, imported alone (then ``os._exit``:
  the interpreter's teardown, which takes longer the more modules it holds, is left out);
* ``import gamelp`` (then ``os._exit``);
* ``gamelp --version`` and ``gamelp solve kuhn``: the console script's code (``from gamelp.cli import main``), to
  the exit, as a user waits for them;
* ``to the first solver call``: ``gamelp solve kuhn`` from the spawn to the moment gamelp calls HiGHS's ``run``
  (the game loaded, the model built and handed to HiGHS).  The child's driver imports highspy (the solve imports it
  anyway), wraps ``highspy.Highs.run`` to write ``time.monotonic()`` (Linux's CLOCK_MONOTONIC, one clock for every
  process of the machine) to stderr and exit, and runs the command.

Then the same driver under ``python -X importtime``: the import time up to the first solver call, as the
interpreter reports it (microseconds each module took itself), summed by top-level package, median over the runs.

The children run with cached bytecode, as an install has it (pip compiles the modules it installs): in a
temporary ``PYTHONPYCACHEPREFIX``, filled by one untimed run of each case.  ``--no-bytecode`` times them as the
environment has it instead; where ``PYTHONDONTWRITEBYTECODE`` is set (as on a development machine that keeps its
source trees free of caches), every module of a source tree is then compiled from source at every start.

``--baseline DIR`` times another source tree of gamelp (a checkout or ``git archive`` of another commit, with its
``gamelp/``, ``models/`` and ``games/``, put first on ``PYTHONPATH``) in the same run, each of its runs right after
the same run of this tree, so that both see the same load.  The machine's load average (``os.getloadavg()``) is
printed before and after, because the machine may be shared; timings on a loaded machine are longer than on an
idle one, the CPU times less so.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import gamelp
from gamelp.cli.args import OneLineParser, integer, run_script
from gamelp.errors import GamelpError

GAMELP = "import sys\nfrom gamelp.cli import main\nsys.exit(main())\n"
# The driver of the last case: gamelp solve kuhn, stopped where HiGHS is first asked to solve.
TO_FIRST_SOLVE = """import os, sys, time
import highspy

def first_solve(self):
    print(f"first solver call at {time.monotonic()!r}", file=sys.stderr, flush=True)
    os._exit(0)

highspy.Highs.run = first_solve
from gamelp.cli import main
sys.exit(main())
"""
MARK = "first solver call at "

CASES = {
    "python -c pass": ["-c", "pass"],
    "numpy + scipy.sparse + highspy": ["-c", "import os, numpy, scipy.sparse, highspy\nos._exit(0)"],
    "import gamelp": ["-c", "import os, gamelp\nos._exit(0)"],
    "gamelp --version": ["-c", GAMELP, "--version"],
    "gamelp solve kuhn": ["-c", GAMELP, "solve", "kuhn"],
    "to the first solver call": ["-c", TO_FIRST_SOLVE, "solve", "kuhn"],
}


THIS_TREE = Path(gamelp.__file__).resolve().parents[1]


@dataclass
class Case:
    name: str
    tree: str  # "this tree" or "baseline"
    wall_median: float  # seconds
    wall_min: float
    cpu_median: float


@dataclass
class Startup:
    python: str
    runs: int
    bytecode: bool  # compiled modules cached (as installed) rather than every module compiled at every start
    trees: dict[str, str]  # "this tree" (and "baseline") -> its directory
    cases: list[Case]
    import_ms: dict[str, float]  # tree -> median over the runs of the imports' time up to the first solver call
    heaviest_ms: dict[str, dict[str, float]]  # tree -> its heaviest top-level packages' median self time
    load_average: dict[str, list[float]]
    as_json: bool = False

    def case(self, name: str, tree: str = "this tree") -> Case:
        return next(case for case in self.cases if case.name == name and case.tree == tree)


def timed(command: list[str], tree: str, bytecode: str | None) -> tuple[float, float, str]:
    """Run ``command`` once in ``tree``, first on ``PYTHONPATH`` too: wall seconds from the spawn (to the first solver
    call where it says so), CPU seconds, stderr."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tree, *filter(None, [os.environ.get("PYTHONPATH")])])}
    if bytecode is not None:  # compiled modules kept there, as an install keeps them beside its sources
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = bytecode
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=tree)
    ended = time.monotonic()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise GamelpError(f"{' '.join(command[:2])}... failed (status {done.returncode}): {done.stderr.strip()[-300:]}")
    marks = [line for line in done.stderr.splitlines() if line.startswith(MARK)]
    if marks:
        ended = float(marks[-1].removeprefix(MARK))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return ended - began, cpu, done.stderr


def import_times(stderr: str) -> dict[str, float]:
    """``-X importtime``'s self times (microseconds), summed by top-level package, in milliseconds."""
    total: dict[str, float] = defaultdict(float)
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "self [us]" not in line:
            self_us, _, name = line.removeprefix("import time:").split("|")
            total[name.strip().partition(".")[0]] += int(self_us) / 1000
    return total


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=integer(1, 1000), default=15, help="runs of each case (default %(default)s)")
    parser.add_argument("--top", type=integer(1, 100), default=8, help="packages listed by import time (default 8)")
    parser.add_argument("--baseline", type=Path, help="another source tree of gamelp to time in the same run")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="time the start-up as the environment has it (with PYTHONDONTWRITEBYTECODE set, every module compiled "
        "from source at every start) instead of with cached bytecode, as an install has it",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    return parser


def source_tree(path: Path) -> str:
    """``path`` as a gamelp source tree (``gamelp/``, ``models/``, ``games/``), or a one-line refusal."""
    missing = [part for part in ("gamelp/__init__.py", "models", "games") if not (path / part).exists()]
    if missing:
        raise GamelpError(f"--baseline {path}: not a source tree of gamelp (no {', '.join(missing)})")
    return str(path.resolve())


def main(argv: list[str] | None = None) -> Startup:
    args = build_parser().parse_args(argv)
    trees = {"this tree": str(THIS_TREE)}
    if args.baseline is not None:
        trees["baseline"] = source_tree(args.baseline)
    with contextlib.ExitStack() as stack:
        bytecode = None if args.no_bytecode else stack.enter_context(tempfile.TemporaryDirectory(prefix="bytecode-"))
        return measure(trees, args.runs, args.top, bytecode, args.json)


def measure(trees: dict[str, str], runs: int, top: int, bytecode: str | None, as_json: bool) -> Startup:
    for tree, directory in trees.items():  # each child imports the tree it is meant to time
        found = timed(
            [sys.executable, "-c", "import sys, gamelp; print(gamelp.__file__, file=sys.stderr)"], directory, bytecode
        )
        if not Path(found[2].strip()).resolve().is_relative_to(directory):
            raise GamelpError(f"{tree} {directory}: its children import gamelp from {found[2].strip()}")
    if bytecode is not None:  # one untimed run of each case compiles what it imports
        for arguments in CASES.values():
            for directory in trees.values():
                timed([sys.executable, *arguments], directory, bytecode)
    load = {"before": list(os.getloadavg())}
    cases = []
    for name, arguments in CASES.items():
        walls: dict[str, list[float]] = defaultdict(list)
        cpus: dict[str, list[float]] = defaultdict(list)
        for _ in range(runs):
            for tree, directory in trees.items():
                wall, cpu, _ = timed([sys.executable, *arguments], directory, bytecode)
                walls[tree].append(wall)
                cpus[tree].append(cpu)
        for tree in trees:
            cases.append(
                Case(name, tree, statistics.median(walls[tree]), min(walls[tree]), statistics.median(cpus[tree]))
            )
        print(f"{name}: median {statistics.median(walls['this tree']):.3f} s", file=sys.stderr, flush=True)
    driver = [sys.executable, "-X", "importtime", *CASES["to the first solver call"]]
    per_run: dict[str, list[dict[str, float]]] = defaultdict(list)
    for _ in range(runs):
        for tree, directory in trees.items():
            per_run[tree].append(import_times(timed(driver, directory, bytecode)[2]))
    import_ms, heaviest = {}, {}
    for tree, times in per_run.items():
        packages = {package for run in times for package in run}
        medians = {package: statistics.median(run.get(package, 0.0) for run in times) for package in packages}
        heaviest[tree] = dict(sorted(medians.items(), key=lambda item: -item[1])[:top])
        import_ms[tree] = statistics.median(sum(run.values()) for run in times)
    load["after"] = list(os.getloadavg())
    return Startup(sys.executable, runs, bytecode is not None, trees, cases, import_ms, heaviest, load, as_json)


def report(result: Startup) -> None:
    if result.as_json:
        figures = asdict(result)
        del figures["as_json"]
        print(json.dumps(figures))
        return
    before, after = (", ".join(f"{x:.2f}" for x in result.load_average[when]) for when in ("before", "after"))
    compiled = "cached bytecode" if result.bytecode else "no bytecode cache: every module compiled at every start"
    print(f"start-up, {result.runs} runs a case ({result.python}, {compiled})")
    print(f"load average {before} before, {after} after")
    for tree, directory in result.trees.items():
        print(f"{tree}: {directory}")
    print(f"{'case':32s} {'tree':10s} {'median s':>9s} {'fastest s':>9s} {'CPU s':>7s}")
    for case in result.cases:
        print(f"{case.name:32s} {case.tree:10s} {case.wall_median:9.3f} {case.wall_min:9.3f} {case.cpu_median:7.3f}")
    for tree, heaviest in result.heaviest_ms.items():
        print(f"{tree}: imports up to the first solver call (-X importtime, median) {result.import_ms[tree]:.0f} ms")
        for package, ms in heaviest.items():
            print(f"  {package:30s} {ms:7.1f} ms")


if __name__ == "__main__":
    run_script(main, report)
