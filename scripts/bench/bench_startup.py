"""Benchmark: gamelp's start-up, from a fresh interpreter to the first solver call of ``gamelp solve kuhn``.

Each case runs ``--runs`` times in a fresh interpreter (this Python, this ``PYTHONPATH``), one after another; the
table gives the median and the fastest wall-clock time from the spawn to the exit, and the median CPU time (user
and system) of the child:

* ``python -c pass``: the interpreter alone, under every other row;
* ``numpy + scipy.sparse + highspy``: the packages the solve cannot do without, imported alone;
* ``import gamelp``;
* ``gamelp --version`` and ``gamelp solve kuhn``: the console script's code (``from gamelp.cli import main``);
* ``to the first solver call``: ``gamelp solve kuhn`` from the spawn to the moment gamelp calls HiGHS's ``run``
  (the game loaded, the model built and handed to HiGHS).  The child's driver imports highspy (the solve imports it
  anyway), wraps ``highspy.Highs.run`` to write ``time.monotonic()`` (Linux's CLOCK_MONOTONIC, one clock for every
  process of the machine) to stderr and exit, and runs the command.

Then the same driver under ``python -X importtime``: the import time up to the first solver call, as the
interpreter reports it (microseconds each module took itself), summed by top-level package, median over the runs.
The machine's load average (``os.getloadavg()``) is printed before and after, because the machine may be shared;
timings on a loaded machine are longer than on an idle one, the CPU times less so.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass

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
    "numpy + scipy.sparse + highspy": ["-c", "import numpy, scipy.sparse, highspy"],
    "import gamelp": ["-c", "import gamelp"],
    "gamelp --version": ["-c", GAMELP, "--version"],
    "gamelp solve kuhn": ["-c", GAMELP, "solve", "kuhn"],
    "to the first solver call": ["-c", TO_FIRST_SOLVE, "solve", "kuhn"],
}


@dataclass
class Case:
    name: str
    wall_median: float  # seconds
    wall_min: float
    cpu_median: float


@dataclass
class Startup:
    python: str
    runs: int
    cases: list[Case]
    import_ms: float  # median over the runs of the imports' time up to the first solver call
    heaviest_ms: dict[str, float]  # the heaviest top-level packages' median self time, heaviest first
    load_average: dict[str, list[float]]
    as_json: bool = False

    def case(self, name: str) -> Case:
        return next(case for case in self.cases if case.name == name)


def timed(command: list[str]) -> tuple[float, float, str]:
    """Run ``command`` once: wall seconds from the spawn (to the first solver call where it says so), CPU seconds,
    stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
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
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    return parser


def main(argv: list[str] | None = None) -> Startup:
    args = build_parser().parse_args(argv)
    load = {"before": list(os.getloadavg())}
    cases = []
    for name, arguments in CASES.items():
        walls, cpus = [], []
        for _ in range(args.runs):
            wall, cpu, _ = timed([sys.executable, *arguments])
            walls.append(wall)
            cpus.append(cpu)
        cases.append(Case(name, statistics.median(walls), min(walls), statistics.median(cpus)))
        print(f"{name}: median {statistics.median(walls):.3f} s", file=sys.stderr, flush=True)
    driver = [sys.executable, "-X", "importtime", *CASES["to the first solver call"]]
    per_run = [import_times(timed(driver)[2]) for _ in range(args.runs)]
    packages = {package for run in per_run for package in run}
    medians = {package: statistics.median(run.get(package, 0.0) for run in per_run) for package in packages}
    ranked = dict(sorted(medians.items(), key=lambda item: -item[1])[: args.top])
    total = statistics.median(sum(run.values()) for run in per_run)
    load["after"] = list(os.getloadavg())
    return Startup(sys.executable, args.runs, cases, total, ranked, load, args.json)


def report(result: Startup) -> None:
    if result.as_json:
        figures = asdict(result)
        del figures["as_json"]
        print(json.dumps(figures))
        return
    before, after = (", ".join(f"{x:.2f}" for x in result.load_average[when]) for when in ("before", "after"))
    print(f"start-up, {result.runs} runs a case ({result.python}); load average {before} before, {after} after")
    print(f"{'case':32s} {'median s':>9s} {'fastest s':>9s} {'CPU s':>7s}")
    for case in result.cases:
        print(f"{case.name:32s} {case.wall_median:9.3f} {case.wall_min:9.3f} {case.cpu_median:7.3f}")
    print(f"imports up to the first solver call (-X importtime, median): {result.import_ms:.0f} ms, of which")
    for package, ms in result.heaviest_ms.items():
        print(f"  {package:30s} {ms:7.1f} ms")


if __name__ == "__main__":
    run_script(main, report)
