"""Benchmark: a Leduc variant with about 10^5 sequences per player, by LP and by regret minimisation, to a NashConv.

    python scripts/bench/bench_large.py [--ranks 8] [--suits 2] [--raise-sizes 2 4 4] [--max-raises 2]
        [--target 1e-4] [--methods ipm simplex pdlp pdcfr+ cfr+] [--repeats 1] [--timeout 900] [--out out/]
        [--format npz] [--openspiel-seconds 0] [--openspiel-memory-gb 16]

    # the 10^6-sequence game, by regret methods, beside OpenSpiel's CFR+ for 10 minutes
    python scripts/bench/bench_large.py --ranks 13 --suits 4 --max-raises 3 --methods cfr+ pdcfr+ \
        --timeout 600 --openspiel-seconds 600

The game is the poker generator's Leduc with one more betting round (a
second public card): 8 ranks, 2 suits, raises of 2, 4, 4 and at most 2 a
round give 90,497 sequences per player and 830,736 payoff entries; 13 ranks,
4 suits and 3 raises a round give 1,088,491 and 17,533,074.  Its file is
written to ``--out`` once, by a child process (the generation's seconds and
peak memory are reported), and reused; the parent process never reads it, so
that its memory does not pass into the runs' ``ru_maxrss`` (Linux keeps a
process's largest resident size across fork and exec).  ``--format npz`` (the
default) writes a binary game file (:mod:`gamelp.binary`) made by numpy
(:func:`gamelp.games.poker.leduc_arrays`); ``--format json`` the JSON file of
the generator's walk over every deal, for comparison.

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
best response of each player against the other's strategy.

With ``--openspiel-seconds S``, OpenSpiel's C++ CFR+ (``pyspiel.CFRPlusSolver``) runs on its
``universal_poker`` with the same rules (limit betting, one private card each, one public card a later
round, the antes as equal blinds, player 1 first in every round) for at most S seconds, in a child
process whose address space is capped at ``--openspiel-memory-gb``: the phase it reached (the game
loaded, the solver built, iterations with OpenSpiel's own ``nash_conv`` every ``--openspiel-check-every``)
and its peak memory are reported.  With two rounds it is the same game as ours (Leduc's value agrees to
1e-15).  With three, its information states list the public cards sorted, forgetting which came first,
so it is a coarser game of imperfect recall (gamelp's OpenSpiel import refuses it for that reason); its
NashConv is of that game.

The table goes to standard output and the runs to ``bench_large.json`` in ``--out``.
"""

import json
import os
import resource
import subprocess
import sys
import tempfile
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
    """Write the Leduc variant of ``rules`` (JSON keyword arguments) to ``path``; 2 if the generator refuses them.

    A ``.npz`` path gets the binary game file of :func:`gamelp.games.poker.leduc_arrays`, any other the JSON
    file of :func:`gamelp.games.poker.leduc`.
    """
    from gamelp.binary import save_arrays
    from gamelp.games import poker

    try:
        if path.endswith(".npz"):
            save_arrays(poker.leduc_arrays(**json.loads(rules)), path)
        else:
            poker.write_game(poker.leduc(**json.loads(rules)), path)
    except poker.PokerRulesError as error:
        print(error, file=sys.stderr)
        return 2
    return 0


def universal_poker(ranks: int, suits: int, raise_sizes: tuple[int, ...], max_raises: int, ante: int) -> dict:
    """OpenSpiel's ``universal_poker`` parameters of our Leduc variant (the ACPC game definition of Leduc, grown)."""
    rounds = len(raise_sizes)
    stack = ante + max_raises * sum(raise_sizes)  # the most a player can put in
    return {
        "betting": "limit",
        "numPlayers": 2,
        "numRounds": rounds,
        "blind": f"{ante} {ante}",
        "raiseSize": " ".join(map(str, raise_sizes)),
        "firstPlayer": " ".join(["1"] * rounds),
        "maxRaises": " ".join([str(max_raises)] * rounds),
        "numSuits": suits,
        "numRanks": ranks,
        "numHoleCards": 1,
        "numBoardCards": " ".join(["0"] + ["1"] * (rounds - 1)),
        "stack": f"{stack} {stack}",
    }


def openspiel_point(params: str, target: float, check_every: int, memory_gb: float) -> None:
    """OpenSpiel's C++ CFR+ on ``universal_poker(params)`` until its nash_conv is at most ``target`` (chips).

    Prints one JSON line per step reached (flushed, so that a parent which stops it knows how far it got).
    """
    limit = int(memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import pyspiel

    start = time.perf_counter()

    def reached(phase: str, **more) -> None:
        row = {"phase": phase, "seconds": time.perf_counter() - start, "peak_mb": _peak_mb()} | more
        print(json.dumps(row), flush=True)

    game = pyspiel.load_game("universal_poker", json.loads(params))
    reached("game loaded")
    solver = pyspiel.CFRPlusSolver(game)
    reached("solver built")
    iteration = 0
    while True:
        iteration += 1
        solver.evaluate_and_update_policy()
        if iteration % check_every == 0:
            gap = pyspiel.nash_conv(game, solver.average_policy())
            reached("iterating", iterations=iteration, gap=gap)
            if gap <= target:
                reached("converged", iterations=iteration, gap=gap)
                return


def run_child(command: list[str], timeout: float) -> dict:
    """Run ``command`` for at most ``timeout`` seconds: its exit status, stdout, wall seconds and peak memory.

    The child's own ``ru_maxrss`` comes from ``wait4``, whether it ended or was stopped.
    """
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        stopped = False
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > timeout and not stopped:
                child.kill()
                stopped = True
            time.sleep(0.2)
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
        out.seek(0)
        err.seek(0)
        return {
            "returncode": None if stopped else child.returncode,
            "stdout": out.read(),
            "stderr": err.read(),
            "seconds": time.perf_counter() - start,
            "peak_mb": usage.ru_maxrss / 1024,
        }


def openspiel_row(rules: dict, target: float, args) -> dict:
    """How far OpenSpiel's CFR+ gets in ``--openspiel-seconds``: its last step, seconds and peak memory."""
    params = universal_poker(**rules)
    command = [sys.executable, __file__, "--openspiel-point", json.dumps(params), str(target)]
    done = run_child([*command, str(args.openspiel_check_every), str(args.openspiel_memory_gb)], args.openspiel_seconds)
    steps = [json.loads(line) for line in done["stdout"].splitlines() if line.startswith("{")]
    last = steps[-1] if steps else {"phase": "loading the game"}
    if done["returncode"] is None:
        status = f"stopped at {args.openspiel_seconds:g} s: {last['phase']}"
    elif done["returncode"]:
        lines = done["stderr"].strip().splitlines()
        status = f"failed after {last['phase']}: {lines[-1] if lines else done['returncode']}"
    else:
        status = f"{last['iterations']} iterations"
    return {
        "method": "OpenSpiel cfr+",
        "params": params,
        "steps": steps,
        "status": status,
        "seconds": done["seconds"],
        "peak_mb": done["peak_mb"],
        "gap": last.get("gap"),
    }


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
    generate_mb: float | None  # the generating process's peak memory
    unit: float  # the payoff range the target is relative to
    target: float
    rows: list[dict]
    load_average: dict  # before and after: os.getloadavg()
    json_path: str
    openspiel: dict | None = None  # OpenSpiel's CFR+ row, with --openspiel-seconds


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
    parser.add_argument(
        "--format",
        choices=("npz", "json"),
        default="npz",
        help="the game file: npz (binary, made by numpy; default) or json (the generator's walk over every deal)",
    )
    parser.add_argument(
        "--openspiel-seconds",
        type=finite_float(0.0),
        default=0.0,
        help="run OpenSpiel's CFR+ on universal_poker with the same rules for at most this long (default 0: not)",
    )
    parser.add_argument(
        "--openspiel-check-every", type=integer(1), default=10, help="OpenSpiel iterations between nash_conv checks"
    )
    parser.add_argument(
        "--openspiel-memory-gb",
        type=finite_float(0.5),
        default=16.0,
        help="address space of OpenSpiel's process, in GiB (default 16)",
    )
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
    path = out / f"leduc_r{args.ranks}_s{args.suits}_m{args.max_raises}_b{sizes}_a1.{args.format}"
    generate_seconds = generate_mb = None
    if not path.exists():  # in a process of its own, like the runs: the parent's memory stays small
        done = run_child([sys.executable, __file__, "--generate", json.dumps(rules), str(path)], float("inf"))
        if done["returncode"]:
            parser.error(done["stderr"].strip().splitlines()[-1])
        generate_seconds, generate_mb = done["seconds"], done["peak_mb"]
    unit = float(poker.leduc_largest_payoff(tuple(args.raise_sizes), args.max_raises, 1))
    load = {"before": os.getloadavg()}
    rows = []
    for method in args.methods:
        rows.append(measured(method, path, args, unit))
        print(f"{method}: done", file=sys.stderr, flush=True)
    openspiel = None
    if args.openspiel_seconds > 0:
        openspiel = openspiel_row(rules, args.target * unit, args)
        print(f"OpenSpiel: {openspiel['status']}", file=sys.stderr, flush=True)
    load["after"] = os.getloadavg()
    loaded = [row for row in rows if row.get("runs")]
    sequences, nonzeros = (loaded[0]["sequences"], loaded[0]["nonzeros"]) if loaded else (0, 0)
    json_path = out / "bench_large.json"
    write_text(
        json_path,
        json.dumps(
            {
                "args": vars(args),
                "sequences": sequences,
                "unit": unit,
                "generate_seconds": generate_seconds,
                "generate_mb": generate_mb,
                "rows": rows,
                "openspiel": openspiel,
                "load_average": load,
            },
            indent=2,
        ),
    )
    return Large(
        str(path),
        sequences,
        nonzeros,
        generate_seconds,
        generate_mb,
        unit,
        args.target,
        rows,
        load,
        str(json_path),
        openspiel,
    )


def report(result: Large) -> None:
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{v:.2f}" for v in result.load_average["before"]))
    made = (
        ""
        if result.generate_seconds is None
        else f", generated in {result.generate_seconds:.1f} s (peak {result.generate_mb:.0f} MB)"
    )
    print(f"{result.path}: {result.sequences} sequences per player, {result.nonzeros} payoff entries{made}")
    print(f"target: NashConv <= {result.target:g} x {result.unit:g} = {result.target * result.unit:.2e}")
    print(
        f"{'method':8s} {'load s':>7s} {'solve s':>8s} {'CPU s':>8s} {'total s':>8s} {'peak MB':>8s} {'base MB':>8s} "
        f"{'gap':>9s} {'value':>10s} status"
    )
    for row in result.rows:
        if not row.get("runs"):
            print(f"{row['method']:8s} {row['status']}")
            continue
        gap = "-" if row["gap"] is None else f"{row['gap']:9.2e}"
        value = "-" if row["value"] is None else f"{row['value']:10.6f}"
        total = row["load_seconds"] + row["solve_seconds"] + (result.generate_seconds or 0.0)
        print(
            f"{row['method']:8s} {row['load_seconds']:7.1f} {row['solve_seconds']:8.1f} {row['solve_cpu']:8.1f} "
            f"{total:8.1f} {row['peak_mb']:8.0f} {row['base_mb']:8.0f} {gap:>9s} {value:>10s} {row['status']}"
        )
    if result.generate_seconds is not None:
        print("total s: generation, load and solve")
    if result.openspiel is not None:
        row = result.openspiel
        gap = "-" if row["gap"] is None else f"{row['gap']:.2e}"
        print(
            f"OpenSpiel C++ CFR+ on universal_poker: {row['seconds']:.1f} s, peak {row['peak_mb']:.0f} MB, "
            f"gap {gap}: {row['status']}"
        )
    print("load average after: " + ", ".join(f"{v:.2f}" for v in result.load_average["after"]))
    print(f"wrote {result.json_path}")


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--point":
        method, path, target, unit, timeout = sys.argv[2:]
        print(json.dumps(point(method, path, float(target), float(unit), float(timeout))))
    elif len(sys.argv) == 4 and sys.argv[1] == "--generate":
        sys.exit(generate(sys.argv[2], sys.argv[3]))
    elif len(sys.argv) == 6 and sys.argv[1] == "--openspiel-point":
        openspiel_point(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    else:
        run_script(main, report)
