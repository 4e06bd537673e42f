"""Benchmark: perfect-information mini Magic games per second and search nodes per second.

Plays perfect-vs-perfect games (Esche 2018, ch. 3.1) between random deck pairs
with at most 8 creatures (card counts multiples of 4), each side first half the
time, at the thesis's cap of 500,000 evaluations, and compares the time per game
with the thesis's 100 games in 366 s (3 draws) on a 2.66 GHz core.

    python scripts/bench_mtg.py [--games 100] [--cap 500000] [--evaluation forest]
"""

import argparse
import time

import numpy as np

from gamelp.games.mtg import play_game, thesis_decks
from gamelp.games.mtg.evaluation import get_evaluation

THESIS_SECONDS, THESIS_GAMES, THESIS_DRAWS = 366.0, 100, 3


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--cap", type=int, default=500_000, help="evaluation cap per game")
    parser.add_argument("--evaluation", default="forest", choices=("forest", "layered", "life"))
    parser.add_argument("--graded", action="store_true", help="search with full scores, not their sign")
    parser.add_argument("--threshold", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    if args.threshold > 0:
        get_evaluation(args.evaluation, threshold=args.threshold)  # load (or train) outside the timing
    decks = thesis_decks()
    rng = np.random.default_rng(args.seed)
    pairs = rng.integers(len(decks), size=(args.games, 2))
    start, cpu_start = time.perf_counter(), time.process_time()
    results = [play_game(decks[i], decks[j], seed=args.seed + g, first=g % 2, eval_cap=args.cap,
                         evaluation=args.evaluation, life_threshold=args.threshold, graded=args.graded)
               for g, (i, j) in enumerate(pairs)]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    nodes = sum(r.nodes for r in results)
    draws = sum(r.winner is None for r in results)
    per_game = elapsed / args.games
    thesis_per_game = THESIS_SECONDS / THESIS_GAMES
    print(f"{args.games} perfect-information games, cap {args.cap:,}, {args.evaluation} evaluation")
    print(f"{'':24}{'ours':>14}{'thesis':>14}")
    print(f"{'time (s)':24}{elapsed:14.2f}{THESIS_SECONDS * args.games / THESIS_GAMES:14.1f}")
    print(f"{'CPU time (s)':24}{cpu:14.2f}")
    print(f"{'seconds per game':24}{per_game:14.4f}{thesis_per_game:14.2f}")
    print(f"{'CPU seconds per game':24}{cpu / args.games:14.4f}")
    print(f"{'games per second':24}{1 / per_game:14.2f}{1 / thesis_per_game:14.3f}")
    print(f"{'draws (cap reached)':24}{draws:14d}{THESIS_DRAWS * args.games / THESIS_GAMES:14.1f}")
    print(f"{'search nodes':24}{nodes:14,d}")
    print(f"{'nodes per second':24}{nodes / elapsed:14,.0f}")
    print(f"{'nodes per CPU second':24}{nodes / cpu:14,.0f}")
    print(f"{'evaluations per game':24}{sum(r.evaluations for r in results) / args.games:14,.1f}")
    print(f"speed-up per game over the thesis: {thesis_per_game / per_game:.1f}x wall, "
          f"{thesis_per_game * args.games / cpu:.1f}x CPU (aim: 10x)")


if __name__ == "__main__":
    main()
