"""Benchmark: throughput of a mini-Magic deck sweep by worker count and batch size.

Runs the same small sweep (same seed, so the very same games) once per
(workers, batch size), each into a fresh store, and reports games per second
and the speed-up over the first configuration; the matrices must come out
identical.  With fast games (the random player) the batch size shows the
cost of sending single games to workers and committing them one by one.

    python scripts/bench_sweep.py                      # 1 and 2 workers, batches of 1 and 32, fast settings
    python scripts/bench_sweep.py --workers 1,2,4 --batch-sizes 1 --player perfect --evaluation forest --games 20
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from gamelp.games.mtg import cli, sweep


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=cli.int_list, default=[1, 2], help="worker counts (default: 1,2)")
    parser.add_argument("--batch-sizes", type=cli.int_list, default=[1, 32], help="games per task (default: 1,32)")
    parser.add_argument("--creatures", type=cli.int_list, default=[0, 4, 8], help="default: 0,4,8")
    parser.add_argument("--bolts", type=cli.int_list, default=[20, 28, 36], help="default: 20,28,36")
    parser.add_argument("--games", type=int, default=20, help="games per pair (default: 20)")
    parser.add_argument("--player", default="perfect", help="player kind on both sides (default: perfect)")
    parser.add_argument("--evaluation", choices=cli.EVALUATIONS, default="life", help="default: life")
    parser.add_argument("--eval-cap", type=int, default=2_000, help="default: 2000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="out", help="directory for bench_sweep.json (default: out/)")
    args = parser.parse_args(argv)

    load = os.getloadavg()[0]
    rows, first = [], None
    for workers in args.workers:
        for batch_size in args.batch_sizes:
            with tempfile.TemporaryDirectory() as store:
                start = time.perf_counter()
                result = sweep.run_sweep(args.creatures, args.bolts, games=args.games, seed=args.seed,
                                         player=args.player, evaluation=args.evaluation, eval_cap=args.eval_cap,
                                         out=store, workers=workers, batch_size=batch_size, progress=False)
                seconds = time.perf_counter() - start
            first = first or result
            same = np.array_equal(result.matrix.payoffs, first.matrix.payoffs)
            rows.append({"workers": workers, "batch_size": batch_size, "games": result.games, "seconds": seconds,
                         "games_per_second": result.games / seconds, "same_matrix": bool(same)})
    base = rows[0]["games_per_second"]
    print(f"sweep of {len(first.matrix.row_labels)} decks, {first.games} games, player {args.player}, "
          f"evaluation {args.evaluation}, cap {args.eval_cap}; {os.cpu_count()} cores, load average {load:.1f} "
          "before the runs (other work on the machine skews the ratio)")
    print(f"{'workers':>8} {'batch':>6} {'seconds':>9} {'games/s':>9} {'speed-up':>9}  same matrix")
    for row in rows:
        row["speedup"] = row["games_per_second"] / base
        print(f"{row['workers']:>8} {row['batch_size']:>6} {row['seconds']:>9.2f} {row['games_per_second']:>9.1f} "
              f"{row['speedup']:>9.2f}  {row['same_matrix']}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_sweep.json").write_text(json.dumps({"args": vars(args), "load_average": load, "runs": rows}, indent=2))
    return 0 if all(row["same_matrix"] for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
