"""Benchmark: Leduc Nash LP (both players, load + build + solve) on every backend and against OpenSpiel.

    python scripts/bench_nash.py [--repeats 3] [--backends highs,gurobi,...] [--no-openspiel]

In the same run it times OpenSpiel's ``sequence_form_lp.solve_zero_sum_game``
on OpenSpiel's own Leduc (the ``open-spiel`` and ``ecos`` packages, its default LP solver through cvxpy, are
installed by this script if missing; they are never gamelp dependencies),
reports every time with its ratio to OpenSpiel, then times the default
backend on bigger Leduc variants from the generator to show how the time
grows with the number of sequences.
"""

import argparse
import importlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from gamelp.backends import check
from gamelp.errors import BackendError
from gamelp.game import load_game
from gamelp.games import poker
from gamelp.models.nash import sequence_form_lp, solve_nash

BACKENDS = "highs,gurobi,pyomo:appsi_highs,pyomo:gurobi_direct,cvxpy:HIGHS,cvxpy:CLARABEL"


def ours(path: str, backend: str) -> tuple[float, float]:
    """Seconds for load + build + solve of both players, and player 1's value."""
    began = time.perf_counter()
    game = load_game(path)
    values = [solve_nash(game, player, backend).value for player in (1, 2)]
    return time.perf_counter() - began, values[0]


def openspiel() -> tuple[float, float]:
    """Seconds for OpenSpiel's sequence-form LP on its Leduc (both players in one call, its default
    solver ECOS through cvxpy), and the value."""
    for package, module in (("open-spiel", "pyspiel"), ("ecos", "ecos")):
        try:
            importlib.import_module(module)
        except ImportError:
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", package], check=True)
    import pyspiel
    from open_spiel.python.algorithms import sequence_form_lp

    began = time.perf_counter()
    game = pyspiel.load_game("leduc_poker")
    value, _, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    return time.perf_counter() - began, float(value)


def timed(fn, repeats: int) -> tuple[float, float]:
    runs = [fn() for _ in range(repeats)]
    return median(t for t, _ in runs), runs[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--backends", default=BACKENDS)
    parser.add_argument("--no-openspiel", action="store_true")
    parser.add_argument("--variants", default="3x2,4x2,4x3,5x3,6x3", help="Leduc ranks x suits for growth")
    args = parser.parse_args()

    reference = None if args.no_openspiel else timed(openspiel, args.repeats)
    print(f"Leduc Nash LP, both players, load + build + solve; median of {args.repeats}")
    print(f"{'solver':24s} {'seconds':>9s} {'vs OpenSpiel':>13s} {'value pl1':>12s}")
    if reference:
        print(f"{'OpenSpiel (ECOS)':24s} {reference[0]:9.4f} {'1.00':>13s} {reference[1]:12.6f}")
    leduc = load_game("leduc")
    for backend in args.backends.split(","):
        try:
            check(sequence_form_lp(leduc, 1), backend)
            seconds, value = timed(lambda b=backend: ours("leduc", b), args.repeats)
        except BackendError as exc:
            print(f"{backend:24s} refused: {exc}")
            continue
        ratio = f"{reference[0] / seconds:.1f}x faster" if reference else ""
        print(f"{'gamelp ' + backend:24s} {seconds:9.4f} {ratio:>13s} {value:12.6f}")

    print("\nGrowth with the number of sequences (default backend, highs)")
    print(f"{'Leduc variant':14s} {'sequences':>10s} {'seconds':>9s} {'value pl1':>12s}")
    with tempfile.TemporaryDirectory() as tmp:
        for variant in args.variants.split(","):
            ranks, suits = (int(v) for v in variant.split("x"))
            path = Path(tmp) / f"leduc_{variant}.json"
            poker.write_game(poker.leduc(ranks=ranks, suits=suits), path)
            sequences = load_game(path).pl1.num_sequences
            seconds, value = timed(lambda p=str(path): ours(p, "highs"), args.repeats)
            print(f"{ranks} ranks x {suits} suits {sequences:8d} {seconds:9.4f} {value:12.6f}")


if __name__ == "__main__":
    main()
