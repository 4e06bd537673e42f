"""Benchmark: throughput of the shared match runner by worker count and batch size, on either simulator.

Runs the same small batch (same seed, so the very same matches) once per
(workers, batch size), each into a fresh store, and reports matches per
second and the speed-up over the first configuration; the win-rate matrices
must come out identical.  ``--game mtg`` sweeps mini-Magic deck pairs;
``--game locm`` plays a LOCM drafter tournament with the max-attack
battler, whose matches take milliseconds, so the batch size shows the cost
of sending single matches to workers and committing them one by one.

    python scripts/bench/bench_sweep.py                    # mtg: 1 and 2 workers, batches of 1 and 32
    python scripts/bench/bench_sweep.py --game locm --matches 2000
    python scripts/bench/bench_sweep.py --workers 1,2,4 --batch-sizes 1 --player perfect --evaluation forest --games 20
"""

import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.cli.args import OneLineParser, int_list, integer, output_directory, run_script, worker_counts
from gamelp.games.locm.tournament import run_tournament
from gamelp.games.mtg import sweep
from gamelp.games.mtg.evaluation import EVALUATIONS
from gamelp.games.runner import Execution
from gamelp.io import atomic_write


def run_once(args, workers: int, batch_size: int, store: str):
    """One batch of the chosen game: (its win-rate matrix, the number of matches played)."""
    execution = Execution(workers=workers, batch_size=batch_size, progress=False)
    if args.game == "locm":
        result = run_tournament(
            args.drafters.split(","),
            "max-attack",
            matches=args.matches // 2,
            sets=2,
            seed=args.seed,
            out=store,
            figures=False,
            execution=execution,
        )
        return result.matrix, result.matches
    result = sweep.run_sweep(
        args.creatures,
        args.bolts,
        games=args.games,
        seed=args.seed,
        player=args.player,
        settings=sweep.GameSettings(evaluation=args.evaluation, eval_cap=args.eval_cap),
        out=store,
        execution=execution,
    )
    return result.matrix, result.games


@dataclass
class SweepSpeed:
    """One row per (workers, batch size): matches, seconds, matches/s, speed-up, same matrix as the first run."""

    game: str
    entrants: int
    cores: int
    load_average: float  # 1-minute load average before the runs
    runs: list[dict]  # workers, batch_size, matches, seconds, matches_per_second, same_matrix, speedup
    path: str  # the JSON written

    @property
    def same(self) -> bool:
        return all(row["same_matrix"] for row in self.runs)


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("mtg", "locm"), default="mtg", help="simulator (default: mtg)")
    parser.add_argument("--workers", type=worker_counts, default=[1, 2], help="worker counts (default: 1,2)")
    parser.add_argument("--batch-sizes", type=int_list, default=[1, 32], help="matches per task (default: 1,32)")
    parser.add_argument("--creatures", type=int_list, default=[0, 4, 8], help="mtg: default 0,4,8")
    parser.add_argument("--bolts", type=int_list, default=[20, 28, 36], help="mtg: default 20,28,36")
    parser.add_argument("--games", type=integer(1), default=20, help="mtg: games per pair (default: 20)")
    parser.add_argument("--player", default="perfect", help="mtg: player kind on both sides (default: perfect)")
    parser.add_argument("--evaluation", choices=EVALUATIONS, default="life", help="mtg: default life")
    parser.add_argument("--eval-cap", type=integer(1), default=2_000, help="mtg: default 2000")
    parser.add_argument("--drafters", default="random,icebox", help="locm: drafters (default: random,icebox)")
    parser.add_argument("--matches", type=integer(2), default=2000, help="locm: matches per pair (default: 2000)")
    parser.add_argument(
        "--seed",
        type=integer(0),
        default=0,
        help="seed of the batch, the same matches in every configuration (default %(default)s)",
    )
    parser.add_argument(
        "--out", type=output_directory, default="out", help="directory for bench_sweep_GAME.json (default: out/)"
    )
    return parser


def main(argv: list[str] | None = None) -> SweepSpeed:
    parser = build_parser()
    args = parser.parse_args(argv)
    if min(args.workers) < 1 or min(args.batch_sizes) < 1:
        parser.error("argument --workers/--batch-sizes: counts must be at least 1")

    load = os.getloadavg()[0]
    rows, first = [], None
    for workers in args.workers:
        for batch_size in args.batch_sizes:
            with tempfile.TemporaryDirectory() as store:
                start = time.perf_counter()
                matrix, matches = run_once(args, workers, batch_size, store)
                seconds = time.perf_counter() - start
            first = first if first is not None else matrix
            same = np.array_equal(matrix.payoffs, first.payoffs)
            rows.append(
                {
                    "workers": workers,
                    "batch_size": batch_size,
                    "matches": matches,
                    "seconds": seconds,
                    "matches_per_second": matches / seconds,
                    "same_matrix": bool(same),
                }
            )
    base = rows[0]["matches_per_second"]
    for row in rows:
        row["speedup"] = row["matches_per_second"] / base
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"bench_sweep_{args.game}.json"
    with atomic_write(path) as handle:
        json.dump({"args": vars(args), "load_average": load, "runs": rows}, handle, indent=2)
    return SweepSpeed(
        game=args.game,
        entrants=len(first.row_labels),
        cores=os.cpu_count(),
        load_average=load,
        runs=rows,
        path=str(path),
    )


def report(result: SweepSpeed) -> None:
    print(
        f"{result.game}: {result.entrants} entrants, {result.runs[0]['matches']} matches per run; "
        f"{result.cores} cores, load average {result.load_average:.1f} before the runs (other work on the machine "
        "skews the ratio)"
    )
    print(f"{'workers':>8} {'batch':>6} {'seconds':>9} {'matches/s':>10} {'speed-up':>9}  same matrix")
    for row in result.runs:
        print(
            f"{row['workers']:>8} {row['batch_size']:>6} {row['seconds']:>9.2f} {row['matches_per_second']:>10.1f} "
            f"{row['speedup']:>9.2f}  {row['same_matrix']}"
        )


def finish(result: SweepSpeed) -> None:
    """Report, then exit with status 1 if a configuration's win rates differed from the first's."""
    report(result)
    sys.exit(0 if result.same else 1)


if __name__ == "__main__":
    run_script(main, finish)
