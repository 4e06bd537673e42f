"""Benchmark: Nash equilibria of square random matrix games, gamelp against nashpy and pygambit.

``--first-order`` instead races gamelp's first-order path (DCFR+ self-play
by default, which needed about half PCFR+'s iterations on these games;
``--method`` to change it; two matrix-vector products per iteration, to a
saddle-point gap of
``--target-gap``, products in float32 from a million entries unless ``--precision float64``;
:mod:`gamelp.models.matrix_first_order`) against gamelp's LP path
on the same matrices (default n = 2000, 5000, 10000), in one run.  The LP is
skipped where its time, extrapolated as n^3 from the last LP solved, would
pass ``--lp-budget`` seconds; a first-order run stops at ``--fo-budget``
seconds and says how far it got.  The machine's load average
(``os.getloadavg()``) is printed before and after each size and kept in the
JSON, because the machine may be shared.

Random zero-sum games (payoffs uniform on [0, 1], numpy Generator with a
seed) from 33 up to 2000 rows.  gamelp solves the general Nash LP on the
default backend; nashpy (``Game.linear_program``) and pygambit (17.x,
``gbt.nash.lp_solve`` in floating point; the value is player 1's equilibrium
payoff) solve the same matrix in a subprocess each, with a 60 s timeout
(gamelp gets the same limit as its solver's time limit); a peer that times
out is not tried on larger sizes.  The peers come with gamelp's ``bench``
extra (never required by gamelp): a peer asked for and missing is refused in one
line naming it.  Every run's value is checked against gamelp's.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gamelp.backends import DEFAULT_BACKEND
from gamelp.cli.args import OneLineParser, finite_float, integer, output_directory, run_script
from gamelp.deps import require
from gamelp.errors import SolveError
from gamelp.io import atomic_write, write_text
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash

PEERS = ("nashpy", "pygambit", "scipy")  # the packages timed beside gamelp (scipy: its HiGHS, through linprog)

PEER_CODE = {
    "nashpy": """
import nashpy, numpy as np, time
A = np.load(PATH)
start = time.perf_counter()
p, q = nashpy.Game(A).linear_program()
value = float(min(A.T @ p))
print(time.perf_counter() - start, value)
""",
    "pygambit": """
import pygambit as gbt, numpy as np, time
A = np.load(PATH)
start = time.perf_counter()
game = gbt.StrategicGame.from_arrays(A, -A)
value = float(gbt.nash.lp_solve(game, rational=False).equilibrium.payoffs["1"])
print(time.perf_counter() - start, value)
""",
    # scipy's HiGHS (linprog, method "highs"): the row player's LP, max v s.t. C^T p >= v, sum p = 1, p >= 0.
    "scipy": """
import numpy as np, time
from scipy.optimize import linprog
A = np.load(PATH)
start = time.perf_counter()
m, n = A.shape
done = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.c_[-A.T, np.ones(n)], b_ub=np.zeros(n),
               A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0], bounds=[(0, None)] * m + [(None, None)],
               method="highs")
print(time.perf_counter() - start, -done.fun)
""",
}


def require_peers(names) -> None:
    """Refuse in one line, naming the ``bench`` extra, unless every peer in ``names`` is installed."""
    for name in names:
        require(name, f"bench_matrix's peer {name}", extra="bench")


def save_matrix(path: Path, A: np.ndarray) -> None:
    """Write ``A`` as the ``.npy`` file the peers read, atomically: a full disk is one line, not a truncated file."""
    with atomic_write(path, "wb") as handle:
        np.save(handle, A)


def run_peer(name: str, path: Path, timeout: float) -> tuple[float | None, float | None, str]:
    code = PEER_CODE[name].replace("PATH", repr(str(path)))
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, "timeout"
    if done.returncode != 0:
        return None, None, "error: " + done.stderr.strip().splitlines()[-1][:80]
    seconds, value = map(float, done.stdout.split())
    return seconds, value, "ok"


class _OutOfTime(Exception):
    pass


PRECISIONS = {"auto": None, "float32": True, "float64": False}  # --precision: solve_matrix_first_order's float32


def first_order_row(A: np.ndarray, method: str, target_gap: float, budget: float, precision: str = "auto") -> dict:
    """Time ``method`` to ``target_gap``; past ``budget`` seconds, report the last gap seen."""
    from gamelp.models.matrix_first_order import solve_matrix_first_order

    start = time.perf_counter()
    seen = {"iterations": 0, "gap": float("inf")}

    def watch(t, gap):
        seen.update(iterations=t, gap=gap)
        if time.perf_counter() - start > budget:
            raise _OutOfTime

    try:
        result = solve_matrix_first_order(
            MatrixGame(A),
            method,
            target_gap=target_gap,
            iterations=10**7,
            progress=watch,
            float32=PRECISIONS[precision],
        )
    except _OutOfTime:
        return dict(seen, seconds=time.perf_counter() - start, reached=False, value=None)
    return {
        "iterations": result.iterations,
        "gap": result.gap,
        "seconds": time.perf_counter() - start,
        "reached": result.converged,
        "value": result.value,
    }


@dataclass
class MatrixSpeed:
    """The peers' table (``rows`` per size, ``largest`` size solved by each), or with ``first_order`` the race."""

    first_order: bool
    rows: list[dict]  # peers: n, gamelp (seconds or "timeout"), value, and per peer its seconds or a status;
    #                   first order: n, first_order {iterations, gap, seconds, reached, value}, lp (a dict or why
    #                   it was skipped), load averages
    peers: list[str] = field(default_factory=list)  # the peers measured (installed)
    largest: dict | None = None  # per solver the largest n solved within the time limit
    notes: list[str] = field(default_factory=list)  # a peer's value off gamelp's
    stopped: str | None = None  # why gamelp stopped at the time limit
    timeout: float = 0.0  # seconds per run
    method: str = ""  # first order: the method
    fo_budget: float = 0.0
    load_average_before: tuple | None = None
    path: str = ""  # the JSON written


def race_first_order(args) -> MatrixSpeed:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    rows, last_lp = [], None
    before = os.getloadavg()
    for n in args.sizes:
        A = rng.uniform(size=(n, n))
        fo = first_order_row(A, args.method, args.target_gap, args.fo_budget, args.precision)
        row = {"n": n, "first_order": fo, "load_average_before": os.getloadavg()}
        predicted = None if last_lp is None else last_lp[1] * (n / last_lp[0]) ** 3
        if args.lp_budget <= 0 or (predicted is not None and predicted > args.lp_budget):
            row["lp"] = (
                "skipped: --lp-budget 0"
                if args.lp_budget <= 0
                else f"skipped: predicted {predicted:.0f} s > budget {args.lp_budget:g} s"
            )
        else:
            start = time.perf_counter()
            lp = solve_matrix_nash(MatrixGame(A), "row", args.backend)
            seconds = time.perf_counter() - start
            last_lp = (n, seconds)
            diff = None if fo["value"] is None else abs(fo["value"] - lp.value)
            row["lp"] = {"seconds": seconds, "value": lp.value, "value_difference": diff}
        if args.fo_peers:
            path = out / f"bench_matrix_{n}.npy"
            save_matrix(path, A)
            for peer in args.fo_peers:
                seconds, value, status = run_peer(peer, path, args.timeout)
                row[peer] = {"seconds": seconds, "value": value, "status": status}
            path.unlink()
        row["load_average_after"] = os.getloadavg()
        print(f"n = {n} done", file=sys.stderr, flush=True)
        rows.append(row)
    path = out / "bench_matrix_first_order.json"
    write_text(path, json.dumps({"args": vars(args), "rows": rows}, indent=2))
    return MatrixSpeed(
        first_order=True,
        rows=rows,
        method=args.method,
        fo_budget=args.fo_budget,
        load_average_before=before,
        path=str(path),
    )


def report_first_order(result: MatrixSpeed) -> None:
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{v:.2f}" for v in result.load_average_before))
    print(
        f"{'n':>6} {result.method + ' iters':>12} {'gap':>9} {'seconds':>9} {'LP seconds':>11} {'LP / FO':>8} "
        f"{'|value diff|':>12}"
    )
    for row in result.rows:
        fo, lp = row["first_order"], row["lp"]
        if isinstance(lp, str):
            lp_text = f"{'skipped':>11} {'':>8} {'':>12}"
        else:
            diff = lp["value_difference"]
            lp_text = f"{lp['seconds']:11.1f} {lp['seconds'] / fo['seconds']:8.2f} " + (
                f"{diff:12.2e}" if diff is not None else f"{'':>12}"
            )
        note = "" if fo["reached"] else f"  (stopped at the {result.fo_budget:g} s budget)"
        print(f"{row['n']:6d} {fo['iterations']:>12} {fo['gap']:9.2e} {fo['seconds']:9.1f} {lp_text}{note}")
        if isinstance(lp, str):
            print(f"       LP {lp}")
        for peer in (name for name in PEERS if name in row):
            run = row[peer]
            shown = (
                f"{run['seconds']:.1f} s ({run['seconds'] / fo['seconds']:.2f} x the first-order time), "
                f"value {run['value']:.9f}"
                if run["status"] == "ok"
                else run["status"]
            )
            print(f"       {peer} (same matrix): {shown}")
        print("       load average after: " + ", ".join(f"{v:.2f}" for v in row["load_average_after"]))


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--sizes",
        type=integer(1, 10_000),
        nargs="+",
        default=[33, 100, 250, 500, 1000, 2000],
        help="matrix sizes n (default: 33 ... 2000; with --first-order 2000 5000 10000)",
    )
    parser.add_argument("--backend", default=DEFAULT_BACKEND, help="gamelp's LP backend (default %(default)s)")
    parser.add_argument("--timeout", type=finite_float(0.0, strict=True), default=60.0, help="seconds per peer run")
    parser.add_argument("--seed", type=integer(0), default=0, help="seed of the random matrices (default %(default)s)")
    parser.add_argument(
        "--peers",
        nargs="*",
        default=["nashpy", "pygambit"],
        choices=list(PEERS),
        help="the other packages to time (default: nashpy pygambit)",
    )
    parser.add_argument(
        "--out",
        type=output_directory,
        default="out",
        help="directory for the JSON and the matrices (default %(default)s)",
    )
    parser.add_argument("--first-order", action="store_true", help="race the first-order path against the LP")
    parser.add_argument("--method", default="dcfr+", help="first-order method (default dcfr+)")
    parser.add_argument(
        "--fo-peers",
        nargs="*",
        choices=("nashpy", "scipy"),
        default=[],
        help="first-order race: also time these on each matrix (nashpy's LP; scipy's HiGHS, linprog), "
        "each in a process limited to --timeout seconds",
    )
    parser.add_argument(
        "--precision",
        choices=sorted(PRECISIONS),
        default="auto",
        help="first-order products: float32 until the target (checked in float64), float64, or auto "
        "(float32 from a million entries; the default)",
    )
    parser.add_argument(
        "--target-gap", type=finite_float(0.0, strict=True), default=1e-6, help="first-order target (default 1e-6)"
    )
    parser.add_argument(
        "--fo-budget", type=finite_float(0.0, strict=True), default=1800.0, help="seconds per first-order run"
    )
    parser.add_argument(
        "--lp-budget",
        type=finite_float(),
        default=300.0,
        help="skip an LP whose extrapolated time passes this (seconds, default 300; 0: no LP)",
    )
    return parser


def main(argv: list[str] | None = None) -> MatrixSpeed:
    parser = build_parser()
    args = parser.parse_args(argv)
    require_peers(args.fo_peers if args.first_order else args.peers)  # before anything runs
    if args.first_order:
        if args.sizes == parser.get_default("sizes"):
            args.sizes = [2000, 5000, 10000]
        return race_first_order(args)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    peers = list(args.peers)
    alive = set(peers)
    rng = np.random.default_rng(args.seed)
    rows, largest, stopped = [], dict.fromkeys(["gamelp"] + peers), None
    for n in args.sizes:
        A = rng.uniform(size=(n, n))
        path = out / f"bench_matrix_{n}.npy"
        save_matrix(path, A)
        start = time.perf_counter()
        try:
            ours = solve_matrix_nash(MatrixGame(A), "row", args.backend, time_limit=args.timeout)
        except SolveError as exc:  # the solver's own time limit: no reference value for the peers
            stopped = str(exc)
            rows.append({"n": n, "gamelp": "timeout"})
            path.unlink()
            break
        seconds = time.perf_counter() - start
        largest["gamelp"] = n
        row = {"n": n, "gamelp": seconds, "value": ours.value}
        for name in peers:
            if name not in alive:
                continue
            peer_seconds, value, status = run_peer(name, path, args.timeout)
            if peer_seconds is None:
                alive.discard(name)
                row[name] = status
                continue
            if abs(value - ours.value) > 1e-6:
                notes.append(f"{name} at n={n}: value {value:.8f} != {ours.value:.8f}")
            largest[name] = n
            row[name] = peer_seconds
        rows.append(row)
        path.unlink()
        print(f"n = {n} done", file=sys.stderr, flush=True)
    path = out / "bench_matrix.json"
    write_text(path, json.dumps({"rows": rows, "largest": largest}, indent=2))
    return MatrixSpeed(
        first_order=False,
        rows=rows,
        peers=peers,
        largest=largest,
        notes=notes,
        stopped=stopped,
        timeout=args.timeout,
        path=str(path),
    )


def report(result: MatrixSpeed) -> None:
    if result.first_order:
        report_first_order(result)
        return
    for note in result.notes:
        if note.startswith("could not install"):
            print(f"  {note}")
    print(f"{'n':>5} {'gamelp (s)':>11} " + " ".join(f"{name + ' (s)':>14} {'ratio':>7}" for name in result.peers))
    for row in result.rows:
        if row["gamelp"] == "timeout":
            print(f"{row['n']:5d} gamelp stopped at the {result.timeout:g} s limit ({result.stopped}); stopping")
            break
        for note in result.notes:
            if note.startswith(tuple(f"{name} at n={row['n']}:" for name in result.peers)):
                print(f"  {note}")
        cells = []
        for name in result.peers:
            peer = row.get(name, "skipped")
            if isinstance(peer, str):
                cells.append(f"{peer[:14]:>14} {'':>7}")
            else:
                cells.append(f"{peer:14.3f} {peer / row['gamelp']:7.1f}")
        print(f"{row['n']:5d} {row['gamelp']:11.3f} " + " ".join(cells))
    print(
        "\nlargest size solved within the time limit: "
        + ", ".join(f"{name} {size}" for name, size in result.largest.items())
    )


if __name__ == "__main__":
    run_script(main, report)
