"""Benchmark: the selected equilibrium (select="min-norm") against the plain Nash LP, both players.

    python scripts/bench/bench_select.py [--games kuhn,leduc,leduc:13x4] [--backend highs] [--repeats 3]

For each game it times, in this process, ``solve_equilibrium(game, backend)``
(player 1's Nash LP and its duals: both players' strategies) and
``solve_equilibrium(game, backend, select="min-norm")`` (the same LP, then per
player the approximate QP and the exact step of :mod:`gamelp.models.select`),
the best of ``--repeats`` runs each after one untimed warm-up (the imports).
It reports the ratio, which backend took the QPs, the exact step's seconds,
whether both selections were verified, and how far the selected strategies
are from the plain LP's (the plain LP's point is a vertex; the selection is
not).  A game whose selection fails is reported with the failure.  Times are
wall seconds on a machine that may be shared.
"""

import time
from dataclasses import dataclass

import numpy as np

from gamelp.cli.args import OneLineParser, integer, run_script
from gamelp.errors import GamelpError
from gamelp.game import load_game
from gamelp.models.nash import solve_equilibrium


@dataclass
class SelectSpeed:
    """One row per game: the plain LP's and the selection's best times and what the selection found."""

    backend: str
    repeats: int
    rows: list[dict]  # game, sequences, plain, select, ratio, qp_backend, exact_step, verified, moved, error


def _best(run, repeats: int) -> tuple[float, object]:
    """The best wall time of ``repeats`` calls of ``run`` after an untimed one, and the last result."""
    result = run()
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - began)
    return best, result


def measure(name: str, backend: str, repeats: int) -> dict:
    """Time the plain LP and the selection on ``name``; the selection's failure, if any, is the row's error."""
    game = load_game(name)
    row: dict = {"game": name, "sequences": game.pl1.num_sequences + game.pl2.num_sequences}
    plain_time, plain = _best(lambda: solve_equilibrium(game, backend), repeats)
    row["plain"] = plain_time
    try:
        select_time, selected = _best(lambda: solve_equilibrium(game, backend, select="min-norm"), repeats)
    except GamelpError as exc:
        return {**row, "error": str(exc).splitlines()[0][:120]}
    selections = selected.result.selections + (selected.y_selection,)
    return {
        **row,
        "select": select_time,
        "ratio": select_time / plain_time,
        "qp_backend": ",".join(sorted({s.solution.backend for s in selections})),
        "exact_step": sum(s.polish_time for s in selections),
        "verified": all(s.polished for s in selections),
        "moved": float(max(np.abs(selected.x - plain.x).max(), np.abs(selected.y - plain.y).max())),
        "error": None,
    }


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", default="kuhn,leduc,leduc:13x4", help="games, comma-separated (default: %(default)s)"
    )
    parser.add_argument("--backend", default="highs", help="the LP's backend (default: %(default)s)")
    parser.add_argument("--repeats", type=integer(1), default=3, help="timed runs, best kept (default: %(default)s)")
    return parser


def main(argv: list[str] | None = None) -> SelectSpeed:
    args = build_parser().parse_args(argv)
    rows = [measure(name.strip(), args.backend, args.repeats) for name in args.games.split(",")]
    return SelectSpeed(backend=args.backend, repeats=args.repeats, rows=rows)


def report(result: SelectSpeed) -> None:
    print(f"solve_equilibrium on {result.backend}: plain LP against select='min-norm' (best of {result.repeats}, s)")
    print(
        f"{'game':12s} {'sequences':>9s} {'plain':>8s} {'select':>8s} {'ratio':>7s} {'exact step':>10s}  "
        f"{'verified':8s} {'moved':>7s}  QP on"
    )
    for row in result.rows:
        head = f"{row['game']:12s} {row['sequences']:9d} {row['plain']:8.3f}"
        if row["error"]:
            print(f"{head}  select failed: {row['error']}")
            continue
        print(
            f"{head} {row['select']:8.3f} {row['ratio']:7.1f} {row['exact_step']:10.3f}  "
            f"{row['verified']!s:8s} {row['moved']:7.3f}  {row['qp_backend']}"
        )


if __name__ == "__main__":
    run_script(main, report)
