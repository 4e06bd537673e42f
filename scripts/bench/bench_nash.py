"""Benchmark: Leduc Nash LP (both players, load + build + solve) on every backend and against OpenSpiel.

    python scripts/bench/bench_nash.py [--repeats 3] [--backends highs,gurobi,...] [--no-openspiel]
        [--variants 3x2,...,13x4] [--growth-backends highs,cvxpy:CLARABEL]

In the same run it times OpenSpiel's ``sequence_form_lp.solve_zero_sum_game``
on OpenSpiel's own Leduc (the ``open-spiel`` and ``ecos`` packages, its default LP solver through cvxpy, come
with gamelp's ``bench`` extra; without them the script refuses in one line naming it, unless ``--no-openspiel``),
reports every time with its ratio to OpenSpiel, then times bigger Leduc
variants from the generator to show how the time grows with the number of
sequences: both players from one LP (player 1's, player 2's strategy from
its duals) split into load, build and solve, on each growth backend, beside
the two LPs (one per player) on HiGHS.  Times are wall seconds; the CPU
seconds of the process are reported beside them (a shared machine inflates
the wall).
"""

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

from gamelp.backends import check
from gamelp.cli.args import OneLineParser, integer, run_script
from gamelp.deps import require
from gamelp.errors import BackendError
from gamelp.game import load_game
from gamelp.games import poker
from gamelp.games.errors import PokerRulesError
from gamelp.models.nash import sequence_form_lp, solve_model, solve_nash

BACKENDS = "highs,gurobi,pyomo:appsi_highs,pyomo:gurobi_direct,cvxpy:HIGHS,cvxpy:CLARABEL"


def ours(path: str, backend: str) -> tuple[float, float]:
    """Seconds for load + build + solve of both players, and player 1's value."""
    began = time.perf_counter()
    game = load_game(path)
    values = [solve_nash(game, player, backend).value for player in (1, 2)]
    return time.perf_counter() - began, values[0]


def one_lp(path: str, backend: str) -> dict:
    """Both players from one LP: wall seconds of load, build and solve, CPU seconds, value and gap."""
    wall, cpu = time.perf_counter(), time.process_time()
    game = load_game(path)
    loaded = time.perf_counter()
    model = sequence_form_lp(game, 1)
    model.matrix_form()
    built = time.perf_counter()
    result = solve_model(game, 1, model, backend)
    y = result.opponent_strategy
    if y is None:
        raise BackendError(f"{backend} returned no duals")
    gap = game.saddle_point_gap(result.strategy, y)
    done = time.perf_counter()
    return {
        "load": loaded - wall,
        "build": built - loaded,
        "solve": done - built,
        "seconds": done - wall,
        "cpu": time.process_time() - cpu,
        "value": result.value,
        "gap": gap,
    }


def two_lps(path: str, backend: str) -> dict:
    """Both players from their own LPs: wall and CPU seconds of load + build + solve, and the value."""
    cpu = time.process_time()
    seconds, value = ours(path, backend)
    return {"seconds": seconds, "cpu": time.process_time() - cpu, "value": value}


def medians(runs: list[dict]) -> dict:
    """Each numeric field's median over the runs."""
    return {key: median(run[key] for run in runs) for key in runs[0]}


def openspiel() -> tuple[float, float]:
    """Seconds for OpenSpiel's sequence-form LP on its Leduc (both players in one call, its default
    solver ECOS through cvxpy), and the value."""
    import pyspiel
    from open_spiel.python.algorithms import sequence_form_lp

    began = time.perf_counter()
    game = pyspiel.load_game("leduc_poker")
    value, _, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    return time.perf_counter() - began, float(value)


def timed(fn, repeats: int) -> tuple[float, float]:
    runs = [fn() for _ in range(repeats)]
    return median(t for t, _ in runs), runs[-1][1]


@dataclass
class NashSpeed:
    """Leduc's Nash LP per backend beside OpenSpiel, and the default backend on bigger Leduc variants."""

    repeats: int
    openspiel: tuple[float, float] | None  # OpenSpiel's median seconds and value (None: --no-openspiel)
    backends: list[dict]  # backend, seconds, value, ratio (OpenSpiel's seconds / ours, or None); or backend, refused
    growth: list[dict]  # ranks, suits, sequences (player 1's), backend, lps (1 or 2), medians of one_lp / two_lps


def variant_list(text: str) -> list[tuple[int, ...]]:
    """``3x2,4x2``: Leduc variants as (ranks, suits)."""
    try:
        variants = [poker.parse_leduc_variant(part) for part in text.split(",") if part.strip()]
    except PokerRulesError:
        variants = []
    if not variants:
        raise argparse.ArgumentTypeError(f"expected variants like 3x2,4x2 (ranks x suits), got {text!r}")
    return variants


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=integer(1), default=3, help="runs per backend; the median time (default %(default)s)"
    )
    parser.add_argument(
        "--backends", default=BACKENDS, help="comma-separated backends to time on Leduc (default: %(default)s)"
    )
    parser.add_argument(
        "--no-openspiel",
        action="store_true",
        help="skip OpenSpiel's sequence-form LP (and so the need for open-spiel and ecos)",
    )
    parser.add_argument(
        "--variants", type=variant_list, default="3x2,4x2,4x3,5x3,6x3,8x4,13x4", help="Leduc ranks x suits for growth"
    )
    parser.add_argument("--growth-backends", default="highs,cvxpy:CLARABEL", help="backends of the one-LP growth rows")
    return parser


def main(argv: list[str] | None = None) -> NashSpeed:
    args = build_parser().parse_args(argv)
    if not args.no_openspiel:  # the peer, refused in one line before anything runs
        for module in ("pyspiel", "ecos"):  # ecos: the cone solver of OpenSpiel's sequence-form LP
            require(module, "bench_nash's OpenSpiel reference (--no-openspiel leaves it out)", extra="bench")
    reference = None if args.no_openspiel else timed(openspiel, args.repeats)
    leduc = load_game("leduc")
    backends = []
    for backend in args.backends.split(","):
        try:
            check(sequence_form_lp(leduc, 1), backend)
            seconds, value = timed(lambda b=backend: ours("leduc", b), args.repeats)
        except BackendError as exc:
            backends.append({"backend": backend, "refused": str(exc)})
            continue
        backends.append(
            {
                "backend": backend,
                "seconds": seconds,
                "value": value,
                "ratio": reference[0] / seconds if reference else None,
            }
        )
    growth = []
    with tempfile.TemporaryDirectory() as tmp:
        for ranks, suits in args.variants:
            path = Path(tmp) / f"leduc_{ranks}x{suits}.json"
            poker.write_game(poker.leduc(ranks=ranks, suits=suits), path)
            sequences = load_game(path).pl1.num_sequences
            size = {"ranks": ranks, "suits": suits, "sequences": sequences}
            for backend in args.growth_backends.split(","):
                try:
                    check(sequence_form_lp(load_game("kuhn"), 1), backend)
                except BackendError as exc:
                    print(f"growth: {backend} refused: {exc}", file=sys.stderr)
                    continue
                runs = [one_lp(str(path), backend) for _ in range(args.repeats)]
                growth.append({**size, "backend": backend, "lps": 1, **medians(runs)})
            runs = [two_lps(str(path), "highs") for _ in range(args.repeats)]
            growth.append({**size, "backend": "highs", "lps": 2, **medians(runs)})
    return NashSpeed(repeats=args.repeats, openspiel=reference, backends=backends, growth=growth)


def report(result: NashSpeed) -> None:
    reference = result.openspiel
    print(f"Leduc Nash LP, both players, load + build + solve; median of {result.repeats}")
    print(f"{'solver':24s} {'seconds':>9s} {'vs OpenSpiel':>13s} {'value pl1':>12s}")
    if reference:
        print(f"{'OpenSpiel (ECOS)':24s} {reference[0]:9.4f} {'1.00':>13s} {reference[1]:12.6f}")
    for row in result.backends:
        if "refused" in row:
            print(f"{row['backend']:24s} refused: {row['refused']}")
            continue
        ratio = f"{row['ratio']:.1f}x faster" if row["ratio"] is not None else ""
        print(f"{'gamelp ' + row['backend']:24s} {row['seconds']:9.4f} {ratio:>13s} {row['value']:12.6f}")

    print(
        f"\nGrowth with the number of sequences: both players, load + build + solve, median of {result.repeats} "
        f"(wall seconds; CPU seconds of this process beside them; {os.cpu_count()} cores, shared)"
    )
    print(
        f"{'Leduc variant':18s} {'sequences':>9s} {'backend':>15s} {'LPs':>3s} {'load':>7s} {'build':>7s} "
        f"{'solve':>8s} {'total':>8s} {'cpu':>8s} {'value pl1':>12s} {'gap':>9s}"
    )
    for row in result.growth:
        parts = [f"{row[key]:7.3f}" if key in row else f"{'':>7s}" for key in ("load", "build")]
        solve = f"{row['solve']:8.3f}" if "solve" in row else f"{'':>8s}"
        gap = f"{row['gap']:9.1e}" if "gap" in row else ""
        print(
            f"{row['ranks']:2d} ranks x {row['suits']} suits {row['sequences']:9d} {row['backend']:>15s} "
            f"{row['lps']:3d} {' '.join(parts)} {solve} {row['seconds']:8.3f} {row['cpu']:8.3f} "
            f"{row['value']:12.8f} {gap}"
        )


if __name__ == "__main__":
    run_script(main, report)
