"""Benchmark: a Leduc variant with about 10^5 sequences per player, by LP and by regret minimisation, to a NashConv.

    python scripts/bench/bench_large.py [--ranks 8] [--suits 2] [--raise-sizes 2 4 4] [--max-raises 2]
        [--target 1e-4] [--methods ipm simplex pdlp pdcfr+ cfr+] [--repeats 1] [--timeout 900] [--out out/]

The game is the poker generator's Leduc with one more betting round (a
second public card): 8 ranks, 2 suits, raises of 2, 4, 4 and at most 2 a
round give 90,497 sequences per player and 830,736 payoff entries.  Its file
is written to ``--out`` once, by a child process (the generation time is
reported), and reused; the parent process never reads it, so that its memory
does not pass into the runs' ``ru_maxrss`` (Linux keeps a process's largest
resident size across fork and exec).

Every method runs ``--repeats`` times, each in a fresh Python process that
loads the file and solves it, so its peak resident memory (``ru_maxrss``) is
that run's alone; its CPU seconds are reported beside the wall clock's,
which a shared machine stretches:

* ``ipm``, ``simplex``, ``pdlp``: both players from one Nash LP on HiGHS
  (:func:`gamelp.models.nash.solve_equilibrium`) with that ``solver``; the
  interior point method runs without crossover (its duals are already player
  2's strategy) and PDLP with its optimality tolerance at ``--target``;
  each with HiGHS's time limit at ``--timeout``;
* any regret method of :data:`gamelp.regret.METHODS` (``pdcfr+``, the
  default, and ``cfr+``): self-play until the saddle-point gap (NashConv) is
  at most ``--target`` times the payoff range.

The payoff range is the most a player can win or lose
(:func:`gamelp.games.poker.leduc_largest_payoff`, 21 here), so the target
is a NashConv of 2.1e-3 chips.  Every gap is measured the same way, by a
best response of each player against the other's strategy.  The table goes
to standard output and the runs to ``bench_large.json`` in ``--out``.
"""

import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

from gamelp.cli.args import OneLineParser, finite_float, integer, output_directory, run_script
from gamelp.io import write_text

LP_SOLVERS = ("ipm", "simplex", "pdlp")


def _peak_mb() -> float:
    """This process's peak resident memory in MB (Linux reports ``ru_maxrss`` in kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def point(method: str, path: str, target: float, unit: float, timeout: float) -> dict:
    """Load the game at ``path`` and solve it by ``method`` in this process: seconds, memory, gap, value."""
    from gamelp.errors import GamelpError
    from gamelp.game import load_game
    from gamelp.models.nash import solve_equilibrium
    from gamelp.regret import solve_regret
    from gamelp.units import payoff_range

    base = _peak_mb()
    start = time.perf_counter()
    game = load_game(path)
    loaded, cpu = time.perf_counter(), time.process_time()
    row = {"method": method, "sequences": game.pl1.num_sequences, "nonzeros": game.A.nnz, "base_mb": base}
    row["load_seconds"] = loaded - start
    try:
        if method in LP_SOLVERS:
            options: dict = {"solver": method, "time_limit": timeout}
            if method == "ipm":
                options["run_crossover"] = "off"
            if method == "pdlp":
                options["pdlp_optimality_tolerance"] = target
            result = solve_equilibrium(game, **options)
            row |= {"status": result.solution.status, "value": result.value, "gap": result.gap}
        else:
            regret = solve_regret(
                game, method, 10**7, target_gap=target * unit / payoff_range(game.A), track_last=False
            )
            row |= {
                "status": f"{regret.iterations} iterations" if regret.converged else "iteration_limit",
                "value": regret.value,
                "gap": regret.gap,
            }
    except GamelpError as error:
        row |= {"status": f"failed: {error}", "value": None, "gap": None}
    row |= {
        "solve_seconds": time.perf_counter() - loaded,
        "solve_cpu": time.process_time() - cpu,
        "peak_mb": _peak_mb(),
    }
    return row


def generate(rules: str, path: str) -> int:
    """Write the Leduc variant of ``rules`` (JSON keyword arguments) to ``path``; 2 if the generator refuses them."""
    from gamelp.games import poker

    try:
        poker.write_game(poker.leduc(**json.loads(rules)), path)
    except poker.PokerRulesError as error:
        print(error, file=sys.stderr)
        return 2
    return 0


def measured(method: str, path: Path, args, unit: float) -> dict:
    """Median times of ``--repeats`` fresh processes and the largest peak memory (past the limit: a timeout)."""
    runs = []
    for _ in range(args.repeats):
        command = [sys.executable, __file__, "--point", method, str(path), str(args.target), str(unit)]
        try:
            done = subprocess.run(
                [*command, str(args.timeout)], capture_output=True, text=True, check=True, timeout=2 * args.timeout
            )
        except subprocess.TimeoutExpired:
            return {"method": method, "status": f"timeout ({2 * args.timeout:g} s)", "runs": 0}
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))  # a solver may print its log first
    return runs[-1] | {
        "load_seconds": median(r["load_seconds"] for r in runs),
        "solve_seconds": median(r["solve_seconds"] for r in runs),
        "solve_cpu": median(r["solve_cpu"] for r in runs),
        "peak_mb": max(r["peak_mb"] for r in runs),
        "base_mb": min(r["base_mb"] for r in runs),
        "runs": len(runs),
    }


@dataclass
class Large:
    """The game (path, sizes, generation time) and every method's row."""

    path: str
    sequences: int  # per player, the empty sequence included (0: no method loaded the game)
    nonzeros: int  # of the payoff matrix
    generate_seconds: float | None  # None: the file was there already
    unit: float  # the payoff range the target is relative to
    target: float
    rows: list[dict]
    load_average: dict  # before and after: os.getloadavg()
    json_path: str


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=integer(2, 13), default=8, help="card ranks (default 8)")
    parser.add_argument("--suits", type=integer(1, 100), default=2, help="suits (default 2)")
    parser.add_argument(
        "--raise-sizes", type=integer(1), nargs="+", default=[2, 4, 4], help="one per betting round (default 2 4 4)"
    )
    parser.add_argument("--max-raises", type=integer(1, 20), default=2, help="raises per round (default 2)")
    parser.add_argument(
        "--target", type=finite_float(0.0, strict=True), default=1e-4, help="NashConv / payoff range (default 1e-4)"
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        default=["ipm", "simplex", "pdlp", "pdcfr+", "cfr+"],
        help="LP solvers (ipm, simplex, pdlp) and regret methods (pdcfr+, cfr+, ...) to race "
        "(default: ipm simplex pdlp pdcfr+ cfr+)",
    )
    parser.add_argument("--repeats", type=integer(1), default=1, help="processes per method; median time (default 1)")
    parser.add_argument(
        "--timeout", type=finite_float(0.0, strict=True), default=900.0, help="seconds per solve (default 900)"
    )
    parser.add_argument("--out", type=output_directory, default="out", help="directory for the game file and JSON")
    return parser


def main(argv: list[str] | None = None) -> Large:
    from gamelp.games import poker
    from gamelp.regret import METHODS

    parser = build_parser()
    args = parser.parse_args(argv)
    unknown = [m for m in args.methods if m not in LP_SOLVERS and m not in METHODS]
    if unknown:
        parser.error(f"unknown method {unknown[0]!r} (choose from {', '.join((*LP_SOLVERS, *METHODS))})")
    rules = dict(
        ranks=args.ranks, suits=args.suits, raise_sizes=tuple(args.raise_sizes), max_raises=args.max_raises, ante=1
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sizes = "-".join(map(str, args.raise_sizes))
    path = out / f"leduc_r{args.ranks}_s{args.suits}_m{args.max_raises}_b{sizes}_a1.json"
    generate_seconds = None
    if not path.exists():  # in a process of its own, like the runs: the parent's memory stays small
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, __file__, "--generate", json.dumps(rules), str(path)], capture_output=True, text=True
        )
        if done.returncode:
            parser.error(done.stderr.strip().splitlines()[-1])
        generate_seconds = time.perf_counter() - start
    unit = float(poker.leduc_largest_payoff(tuple(args.raise_sizes), args.max_raises, 1))
    load = {"before": os.getloadavg()}
    rows = []
    for method in args.methods:
        rows.append(measured(method, path, args, unit))
        print(f"{method}: done", file=sys.stderr, flush=True)
    load["after"] = os.getloadavg()
    loaded = [row for row in rows if row.get("runs")]
    sequences, nonzeros = (loaded[0]["sequences"], loaded[0]["nonzeros"]) if loaded else (0, 0)
    json_path = out / "bench_large.json"
    write_text(
        json_path,
        json.dumps(
            {"args": vars(args), "sequences": sequences, "unit": unit, "rows": rows, "load_average": load}, indent=2
        ),
    )
    return Large(str(path), sequences, nonzeros, generate_seconds, unit, args.target, rows, load, str(json_path))


def report(result: Large) -> None:
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{v:.2f}" for v in result.load_average["before"]))
    made = "" if result.generate_seconds is None else f", generated in {result.generate_seconds:.1f} s"
    print(f"{result.path}: {result.sequences} sequences per player, {result.nonzeros} payoff entries{made}")
    print(f"target: NashConv <= {result.target:g} x {result.unit:g} = {result.target * result.unit:.2e}")
    print(
        f"{'method':8s} {'load s':>7s} {'solve s':>8s} {'CPU s':>8s} {'peak MB':>8s} {'base MB':>8s} {'gap':>9s} "
        f"{'value':>10s} status"
    )
    for row in result.rows:
        if not row.get("runs"):
            print(f"{row['method']:8s} {row['status']}")
            continue
        gap = "-" if row["gap"] is None else f"{row['gap']:9.2e}"
        value = "-" if row["value"] is None else f"{row['value']:10.6f}"
        print(
            f"{row['method']:8s} {row['load_seconds']:7.1f} {row['solve_seconds']:8.1f} {row['solve_cpu']:8.1f} "
            f"{row['peak_mb']:8.0f} "
            f"{row['base_mb']:8.0f} {gap:>9s} {value:>10s} {row['status']}"
        )
    print("load average after: " + ", ".join(f"{v:.2f}" for v in result.load_average["after"]))
    print(f"wrote {result.json_path}")


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--point":
        method, path, target, unit, timeout = sys.argv[2:]
        print(json.dumps(point(method, path, float(target), float(unit), float(timeout))))
    elif len(sys.argv) == 4 and sys.argv[1] == "--generate":
        sys.exit(generate(sys.argv[2], sys.argv[3]))
    else:
        run_script(main, report)
