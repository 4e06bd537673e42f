"""Benchmark: how time and peak memory grow with the size of the game, and the fitted exponent of each family.

    python scripts/bench/bench_scaling.py [--repeats 3] [--variants 3x2,4x3,6x3,8x4,13x4] [--regret-target 1e-4]
        [--sizes 250,500,1000,2000] [--matrix-target 1e-6] [--out out/]

Three families, each timed at growing sizes, every point in a fresh Python
process (its peak resident memory, ``ru_maxrss``, is that point's alone; the
process's memory after the imports is reported beside it):

* ``lp``: both players of a Leduc variant (the poker generator, ranks x
  suits) from one Nash LP on HiGHS, load + build + solve
  (:func:`gamelp.models.nash.solve_equilibrium`); size = player 1's sequences;
* ``regret``: the same variants by the default regret method, ``pdcfr+``, to
  ``--regret-target`` (relative to the payoff range); size = sequences;
* ``dense``: random ``n x n`` matrix games (uniform payoffs) by the dense
  first-order path (:func:`gamelp.models.matrix_first_order.solve_matrix_first_order`,
  ``dcfr+``) to ``--matrix-target``; size = ``n``.

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
import tempfile
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


def point(family: str, size: str, target: float) -> dict:
    """Solve one point in this process: size, seconds, peak memory, the memory after the imports, and the gap."""
    from gamelp.game import load_game
    from gamelp.games import poker
    from gamelp.matrix import MatrixGame
    from gamelp.models.matrix_first_order import solve_matrix_first_order
    from gamelp.models.nash import solve_equilibrium
    from gamelp.regret import solve_regret

    kuhn = load_game("kuhn")  # warm up: the solver libraries load before the clock starts
    solve_equilibrium(kuhn)
    solve_regret(kuhn, "pdcfr+", 10)
    with tempfile.TemporaryDirectory() as tmp:
        if family == "dense":
            n = int(size)
            game = MatrixGame(np.random.default_rng(n).uniform(size=(n, n)))
            base = _peak_mb()
            start = time.perf_counter()
            result = solve_matrix_first_order(game, "dcfr+", target_gap=target, iterations=10**6)
            seconds, sequences, gap = time.perf_counter() - start, n, result.gap
        else:
            ranks, suits = (int(v) for v in size.split("x"))
            path = Path(tmp) / f"leduc_{size}.json"
            poker.write_game(poker.leduc(ranks=ranks, suits=suits), path)
            base = _peak_mb()
            start = time.perf_counter()
            game = load_game(path)
            if family == "lp":
                gap = solve_equilibrium(game).gap
            else:
                gap = solve_regret(game, "pdcfr+", 10**6, target_gap=target, track_last=False).gap
            seconds, sequences = time.perf_counter() - start, game.pl1.num_sequences
    return {"size": sequences, "seconds": seconds, "peak_mb": _peak_mb(), "base_mb": base, "gap": gap}


def measured(family: str, size: str, target: float, repeats: int) -> dict:
    """Median seconds of ``repeats`` fresh processes, the largest peak memory, and the label of the point."""
    runs = []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, __file__, "--point", family, size, str(target)],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(done.stdout))
    return {
        "family": family,
        "label": size,
        "size": runs[0]["size"],
        "seconds": median(r["seconds"] for r in runs),
        "peak_mb": max(r["peak_mb"] for r in runs),
        "base_mb": min(r["base_mb"] for r in runs),
        "gap": runs[-1]["gap"],
    }


def exponent(rows: list[dict]) -> float | None:
    """Slope of log(seconds) against log(size) (None with fewer than two sizes)."""
    sizes = np.array([r["size"] for r in rows], dtype=float)
    if np.unique(sizes).size < 2:
        return None
    return float(np.polyfit(np.log(sizes), np.log([r["seconds"] for r in rows]), 1)[0])


@dataclass
class Scaling:
    """Every family's points (family, label, size, seconds, peak_mb, base_mb, gap) and fitted exponents."""

    rows: list[dict]
    exponents: dict  # family -> fitted exponent (None: fewer than two sizes)
    repeats: int
    load_average: dict  # before and after: os.getloadavg()
    json_path: str
    plot_path: str | None  # None: matplotlib missing


def variants(text: str) -> list[str]:
    """``3x2,4x3``: Leduc variants as ranks x suits."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    try:
        ok = bool(parts) and all(len(p.split("x")) == 2 and min(map(int, p.split("x"))) >= 1 for p in parts)
    except ValueError:
        ok = False
    if not ok:
        raise argparse.ArgumentTypeError(f"expected variants like 3x2,4x3 (ranks x suits), got {text!r}")
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
    parser.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    parser.add_argument("--variants", type=variants, default="3x2,4x3,6x3,8x4,13x4", help="Leduc variants")
    parser.add_argument(
        "--regret-target", type=finite_float(0.0, strict=True), default=1e-4, help="regret gap (default 1e-4)"
    )
    parser.add_argument("--sizes", type=sizes, default="250,500,1000,2000", help="matrix sizes n")
    parser.add_argument(
        "--matrix-target", type=finite_float(0.0, strict=True), default=1e-6, help="dense gap (default 1e-6)"
    )
    parser.add_argument("--out", type=output_directory, default="out", help="directory for the JSON and the plot")
    return parser


def main(argv: list[str] | None = None) -> Scaling:
    args = build_parser().parse_args(argv)
    load = {"before": os.getloadavg()}
    rows = []
    for family in args.families:
        labels = args.sizes if family == "dense" else args.variants
        target = {"lp": 0.0, "regret": args.regret_target, "dense": args.matrix_target}[family]
        for label in labels:
            rows.append(measured(family, label, target, args.repeats))
            print(f"{family} {label}: done", file=sys.stderr, flush=True)
    load["after"] = os.getloadavg()
    exponents = {f: exponent([r for r in rows if r["family"] == f]) for f in args.families}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / "bench_scaling.json"
    write_text(
        json_path,
        json.dumps({"args": vars(args), "rows": rows, "exponents": exponents, "load_average": load}, indent=2),
    )
    return Scaling(rows, exponents, args.repeats, load, str(json_path), plot(rows, exponents, out))


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
        points = [r for r in rows if r["family"] == family]
        shown = "" if slope is None else f" (exponent {slope:.2f})"
        ax.loglog([r["size"] for r in points], [r["seconds"] for r in points], marker="o", label=family + shown)
    ax.set_xlabel("size (sequences per player; n for the dense matrices)")
    ax.set_ylabel("seconds (median)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return str(save_figure(fig, out / "bench_scaling.png"))


def report(result: Scaling) -> None:
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{v:.2f}" for v in result.load_average["before"]))
    print(f"time and peak memory against size, median of {result.repeats} processes each")
    print(f"{'family':8s} {'point':>8s} {'size':>8s} {'seconds':>9s} {'peak MB':>9s} {'base MB':>9s} {'gap':>9s}")
    for row in result.rows:
        print(
            f"{row['family']:8s} {row['label']:>8s} {row['size']:8d} {row['seconds']:9.3f} {row['peak_mb']:9.0f} "
            f"{row['base_mb']:9.0f} {row['gap']:9.1e}"
        )
    for family, slope in result.exponents.items():
        print(f"{family}: seconds grow like size^{slope:.2f}" if slope is not None else f"{family}: one size only")
    print("load average after: " + ", ".join(f"{v:.2f}" for v in result.load_average["after"]))
    print(f"wrote {result.json_path}" + (f" and {result.plot_path}" if result.plot_path else ""))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--point":
        print(json.dumps(point(sys.argv[2], sys.argv[3], float(sys.argv[4]))))
    else:
        run_script(main, report)
