"""Esche (2018) Table 3.2: the evaluation cap against draws and time for perfect-information games.

Plays the same games (random deck pairs with at most 8 creatures, each side
first half the time) under several caps on the evaluations per game; a game
that reaches the cap is a draw. Printed beside the thesis's 100 games per cap.

    python scripts/esche_table_3_2_cap.py [--games 100] [--caps 5000 50000 500000 5000000] [--evaluation forest]
"""

import argparse
import time

import numpy as np

from gamelp.games.mtg import play_game, thesis_decks
from gamelp.games.mtg.evaluation import get_evaluation

THESIS = {5_000: (20, 152), 50_000: (10, 209), 500_000: (3, 366), 5_000_000: (0, 519)}  # draws, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--caps", type=int, nargs="+", default=sorted(THESIS))
    parser.add_argument("--evaluation", default="forest", choices=("forest", "layered", "life"))
    parser.add_argument("--graded", action="store_true", help="search with full scores, not their sign")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    get_evaluation(args.evaluation, threshold=12)  # load (or train) outside the timing
    decks = thesis_decks()
    pairs = np.random.default_rng(args.seed).integers(len(decks), size=(args.games, 2))
    print(f"{args.games} games per cap, {args.evaluation} evaluation" + (" (graded)" if args.graded else ""))
    print(f"{'cap':>10}{'draws':>8}{'time (s)':>10}{'evals/game':>12}   thesis (of 100): draws, time (s)")
    for cap in args.caps:
        start = time.perf_counter()
        results = [play_game(decks[i], decks[j], seed=args.seed + g, first=g % 2, eval_cap=cap,
                             evaluation=args.evaluation, graded=args.graded)
                   for g, (i, j) in enumerate(pairs)]
        elapsed = time.perf_counter() - start
        draws = sum(r.winner is None for r in results)
        thesis = "{:>6}{:>8}".format(*THESIS[cap]) if cap in THESIS else "      -"
        mean_evals = np.mean([r.evaluations for r in results])
        print(f"{cap:>10,}{draws:>8}{elapsed:>10.1f}{mean_evals:>12,.0f}   {thesis}")


if __name__ == "__main__":
    main()
