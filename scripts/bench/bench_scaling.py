"""Benchmark: how time and peak memory grow with the size of the game, and the fitted exponent of each family.

    python scripts/bench/bench_scaling.py [--repeats 3] [--variants 3x2,4x3,6x3,8x4,13x4,5x2x3,8x2x3]
        [--regret-target 1e-4] [--sizes 250,500,1000,2000] [--matrix-target 1e-6] [--budget 900]
        [--format npz|json] [--out out/]

Three families, each timed at growing sizes, every point in a fresh Python
process (its peak resident memory, ``ru_maxrss``, is that point's alone; the
process's memory after the imports is reported beside it, and its CPU
seconds beside the wall clock's, which a shared machine stretches):

* ``lp``: both players of a Leduc variant (the poker generator, ranks x
  suits, or ranks x suits x betting rounds: raises of 2 in the first round
  and 4 in every later one) from one Nash LP on HiGHS, load + build + solve
  (:func:`gamelp.models.nash.solve_equilibrium`); size = player 1's sequences;
* ``regret``: the same variants by the default regret method, ``pdcfr+``, to
  a NashConv of ``--regret-target`` times the largest payoff
  (:func:`gamelp.games.poker.leduc_largest_payoff`), load + solve; size = sequences;
* ``dense``: random ``n x n`` matrix games (uniform payoffs) by the dense
  first-order path (:func:`gamelp.models.matrix_first_order.solve_matrix_first_order`,
  ``dcfr+``) to ``--matrix-target``; size = ``n``.

Each variant's game file is written once, into ``--out``, before the clock
starts (and reused): a binary game file (:mod:`gamelp.binary`) by default,
the JSON format with ``--format json``.  A point whose first run takes more than a minute runs
only once; a point past ``--budget`` seconds is stopped, and the family's
larger points are skipped: the table goes to the largest size that fits.
The fitted exponent is the slope of log(seconds) against log(size), least
squares over the family's points: seconds grow like size^exponent.  The
table goes to standard output, the points to ``bench_scaling.json`` and the
log-log plot to ``bench_scaling.png`` in ``--out``.  Times are medians of
``--repeats`` wall-clock runs; the machine's load average is kept with them.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

import numpy as np

from gamelp.cli.args import OneLineParser, finite_float, integer, output_directory, run_script
from gamelp.io import write_text

FAMILIES = ("lp", "regret", "dense")


def _peak_mb() -> float:
    """This process's peak resident memory in MB (Linux reports ``ru_maxrss`` in kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def point(family: str, size: str, target: float, path: str) -> dict:
    """Solve one point in this process: size, seconds, CPU seconds, peak memory, the memory after the imports, gap."""
    from gamelp.game import load_game
    from gamelp.games import poker
    from gamelp.matrix import MatrixGame
    from gamelp.models.matrix_first_order import solve_matrix_first_order
    from gamelp.models.nash import solve_equilibrium
    from gamelp.regret import solve_regret
    from gamelp.units import payoff_range

    kuhn = load_game("kuhn")  # warm up: the solver libraries load before the clock starts
    solve_equilibrium(kuhn)
    solve_regret(kuhn, "pdcfr+", 10)
    if family == "dense":
        n = int(size)
        matrix = MatrixGame(np.random.default_rng(n).uniform(size=(n, n)))
        base = _peak_mb()
        start, cpu = time.perf_counter(), time.process_time()
        result = solve_matrix_first_order(matrix, "dcfr+", target_gap=target, iterations=10**6)
        sequences, gap = n, result.gap
    else:
        base = _peak_mb()
        start, cpu = time.perf_counter(), time.process_time()
        game = load_game(path)
        if family == "lp":
            gap = solve_equilibrium(game).gap
        else:
            unit = poker.leduc_largest_payoff(**leduc_rules(size, raise_sizes_only=True))
            regret = solve_regret(
                game, "pdcfr+", 10**7, target_gap=target * unit / payoff_range(game.A), track_last=False
            )
            gap = regret.gap
        sequences = game.pl1.num_sequences
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"size": sequences, "seconds": seconds, "cpu": cpu, "peak_mb": _peak_mb(), "base_mb": base, "gap": gap}


def leduc_rules(label: str, *, raise_sizes_only: bool = False) -> dict:
    """The rules of the variant ``RxS`` (ranks x suits) or ``RxSxN`` (N betting rounds: raises of 2, then 4)."""
    from gamelp.games import poker

    ranks, suits, rounds = poker.parse_leduc_variant(label, rounds=True)
    rules = {"raise_sizes": (2,) + (4,) * (rounds - 1), "max_raises": 2}
    return rules if raise_sizes_only else {"ranks": ranks, "suits": suits} | rules


def game_file(label: str, out: Path, suffix: str = "npz") -> Path:
    """The variant's game file in ``out`` (binary, ``npz``, or ``json``), written unless it is there already.

    The generator runs in a process of its own: Linux passes a process's
    largest resident size on to the processes it starts (``ru_maxrss``
    survives fork and exec), so a parent that generated a large game would
    inflate every point's peak memory.  A rule the generator refuses raises
    :class:`gamelp.games.errors.PokerRulesError` with its message.
    """
    from gamelp.games.errors import PokerRulesError

    path = out / f"leduc_{label}.{suffix}"
    if not path.exists():
        done = subprocess.run(
            [sys.executable, __file__, "--generate", label, str(path)], capture_output=True, text=True
        )
        if done.returncode:
            raise PokerRulesError(done.stderr.strip().splitlines()[-1])
    return path


def generate(label: str, path: str) -> int:
    """Write the variant's game file (the child process of :func:`game_file`); 2 if the rules are refused.

    A ``.npz`` path gets the binary game file made by numpy (:func:`gamelp.games.poker.leduc_arrays`), any other
    the JSON file of the generator's walk over every deal (:func:`gamelp.games.poker.leduc`).
    """
    from gamelp.binary import save_arrays
    from gamelp.games import poker

    try:
        if path.endswith(".npz"):
            save_arrays(poker.leduc_arrays(**leduc_rules(label)), path)
        else:
            poker.write_game(poker.leduc(**leduc_rules(label)), path)
    except poker.PokerRulesError as error:
        print(error, file=sys.stderr)
        return 2
    return 0


def measured(family: str, size: str, target: float, repeats: int, budget: float, path: str) -> dict:
    """Median seconds of ``repeats`` fresh processes (one past a minute), the largest peak memory, and the label.

    ``over_budget`` is true (and the times None) when a process ran past ``budget`` seconds.
    """
    runs = []
    for _ in range(repeats):
        try:
            done = subprocess.run(
                [sys.executable, __file__, "--point", family, size, str(target), path],
                capture_output=True,
                text=True,
                check=True,
                timeout=budget,
            )
        except subprocess.TimeoutExpired:
            return {"family": family, "label": size, "over_budget": True}
        runs.append(json.loads(done.stdout))
        if runs[0]["seconds"] > 60:
            break
    return {
        "family": family,
        "label": size,
        "size": runs[0]["size"],
        "seconds": median(r["seconds"] for r in runs),
        "cpu": median(r["cpu"] for r in runs),
        "peak_mb": max(r["peak_mb"] for r in runs),
        "base_mb": min(r["base_mb"] for r in runs),
        "gap": runs[-1]["gap"],
        "runs": len(runs),
        "over_budget": False,
    }


def exponent(rows: list[dict], key: str = "seconds") -> float | None:
    """Slope of log(``key``) against log(size) over the measured points (None with fewer than two sizes)."""
    rows = [r for r in rows if not r["over_budget"]]
    sizes = np.array([r["size"] for r in rows], dtype=float)
    if np.unique(sizes).size < 2:
        return None
    return float(np.polyfit(np.log(sizes), np.log([r[key] for r in rows]), 1)[0])


@dataclass
class Scaling:
    """Every family's points (family, label, size, seconds, cpu, peak_mb, base_mb, gap, runs) and fitted exponents."""

    rows: list[dict]
    exponents: dict  # family -> fitted exponent of the seconds (None: fewer than two sizes)
    cpu_exponents: dict  # family -> fitted exponent of the CPU seconds
    repeats: int
    load_average: dict  # before and after: os.getloadavg()
    json_path: str
    plot_path: str | None  # None: matplotlib missing


def variants(text: str) -> list[str]:
    """``3x2,4x3,5x2x3``: Leduc variants as ranks x suits, or ranks x suits x betting rounds (at least 2)."""
    from gamelp.games import poker
    from gamelp.games.errors import PokerRulesError

    parts = [p.strip() for p in text.split(",") if p.strip()]
    try:
        ok = [poker.parse_leduc_variant(p, rounds=True) for p in parts] != []
    except PokerRulesError:
        ok = False
    if not ok:
        raise argparse.ArgumentTypeError(
            f"expected variants like 3x2,4x3,5x2x3 (ranks x suits, or ranks x suits x rounds >= 2), got {text!r}"
        )
    return parts


def sizes(text: str) -> list[str]:
    """``250,500``: matrix sizes n."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() and int(p) >= 2 for p in parts):
        raise argparse.ArgumentTypeError(f"expected matrix sizes like 250,500 (at least 2), got {text!r}")
    return parts


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=integer(1), default=3, help="processes per point; median time (default 3)")
    parser.add_argument(
        "--families",
        nargs="+",
        choices=FAMILIES,
        default=list(FAMILIES),
        help="families to time: lp, regret, dense (default: all)",
    )
    parser.add_argument("--variants", type=variants, default="3x2,4x3,6x3,8x4,13x4", help="Leduc variants")
    parser.add_argument(
        "--regret-target", type=finite_float(0.0, strict=True), default=1e-4, help="regret gap (default 1e-4)"
    )
    parser.add_argument("--sizes", type=sizes, default="250,500,1000,2000", help="matrix sizes n")
    parser.add_argument(
        "--matrix-target", type=finite_float(0.0, strict=True), default=1e-6, help="dense gap (default 1e-6)"
    )
    parser.add_argument(
        "--budget", type=finite_float(0.0, strict=True), default=900.0, help="seconds per process (default 900)"
    )
    parser.add_argument(
        "--format",
        choices=("npz", "json"),
        default="npz",
        help="the variants' game files: npz (binary, made by numpy; default) or json (the generator's walk over "
        "every deal); seconds include loading them",
    )
    parser.add_argument(
        "--out", type=output_directory, default="out", help="directory for the game files, the JSON and the plot"
    )
    return parser


def main(argv: list[str] | None = None) -> Scaling:
    from gamelp.games.errors import PokerRulesError

    parser = build_parser()
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        paths = {
            label: str(game_file(label, out, args.format))
            for label in args.variants
            if {"lp", "regret"} & set(args.families)
        }
    except PokerRulesError as error:
        parser.error(str(error))
    load = {"before": os.getloadavg()}
    rows = []
    for family in args.families:
        labels = args.sizes if family == "dense" else args.variants
        target = {"lp": 0.0, "regret": args.regret_target, "dense": args.matrix_target}[family]
        for label in labels:
            row = measured(family, label, target, args.repeats, args.budget, paths.get(label, ""))
            rows.append(row)
            print(f"{family} {label}: done", file=sys.stderr, flush=True)
            if row["over_budget"]:
                break  # the larger points would not fit either
    load["after"] = os.getloadavg()
    exponents = {f: exponent([r for r in rows if r["family"] == f]) for f in args.families}
    cpu_exponents = {f: exponent([r for r in rows if r["family"] == f], "cpu") for f in args.families}
    json_path = out / "bench_scaling.json"
    saved = {"args": vars(args), "rows": rows, "exponents": exponents, "cpu_exponents": cpu_exponents}
    write_text(json_path, json.dumps(saved | {"load_average": load}, indent=2))
    return Scaling(rows, exponents, cpu_exponents, args.repeats, load, str(json_path), plot(rows, exponents, out))


def plot(rows: list[dict], exponents: dict, out: Path) -> str | None:
    """Log-log plot of seconds against size, one line per family; None if matplotlib is missing."""
    from gamelp.errors import MissingDependency

    try:
        from matplotlib.figure import Figure

        from gamelp.plots import save_figure
    except (ImportError, MissingDependency):
        return None
    fig = Figure(figsize=(7, 4.5))
    ax = fig.subplots()
    for family, slope in exponents.items():
        points = [r for r in rows if r["family"] == family and not r["over_budget"]]
        shown = "" if slope is None else f" (exponent {slope:.2f})"
        ax.loglog([r["size"] for r in points], [r["seconds"] for r in points], marker="o", label=family + shown)
    ax.set_xlabel("size (sequences per player; n for the dense matrices)")
    ax.set_ylabel("seconds (median)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return str(save_figure(fig, out / "bench_scaling.png"))


def report(result: Scaling) -> None:
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{v:.2f}" for v in result.load_average["before"]))
    print(f"time and peak memory against size, median of {result.repeats} processes each (one past a minute)")
    print(
        f"{'family':8s} {'point':>8s} {'size':>8s} {'seconds':>9s} {'CPU s':>9s} {'peak MB':>9s} {'base MB':>9s} "
        f"{'gap':>9s} runs"
    )
    for row in result.rows:
        if row["over_budget"]:
            print(f"{row['family']:8s} {row['label']:>8s} past the budget: stopped, larger points skipped")
            continue
        print(
            f"{row['family']:8s} {row['label']:>8s} {row['size']:8d} {row['seconds']:9.3f} {row['cpu']:9.3f} "
            f"{row['peak_mb']:9.0f} {row['base_mb']:9.0f} {row['gap']:9.1e} {row['runs']:4d}"
        )
    for family, slope in result.exponents.items():
        cpu = result.cpu_exponents[family]
        grows = f"seconds grow like size^{slope:.2f} (CPU seconds: size^{cpu:.2f})" if slope is not None else ""
        print(f"{family}: {grows}" if grows else f"{family}: one size only")
    print("load average after: " + ", ".join(f"{v:.2f}" for v in result.load_average["after"]))
    print(f"wrote {result.json_path}" + (f" and {result.plot_path}" if result.plot_path else ""))


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--point":
        print(json.dumps(point(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5])))
    elif len(sys.argv) == 4 and sys.argv[1] == "--generate":
        sys.exit(generate(sys.argv[2], sys.argv[3]))
    else:
        run_script(main, report)
