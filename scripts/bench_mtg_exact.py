"""Benchmark: exact mini Magic games (no evaluation cut-off) in C against the Python search.

Plays the same perfect-information games, to their end (Esche 2018, ch. 2.1,
without the evaluation function: ``life_threshold=0``), between random pairs of
Appendix B's 33 decks (``--max-creatures 16``: the 55 decks of Table 3.4),
seats alternating, at the thesis's cap of 500,000 leaves per game
(``--cap``): first with the C search (:mod:`gamelp.games.mtg.exact`), then
with both searches on the first ``--python-games`` of them. Prints games and
nodes per second of each, the ratio, whether the winners agree, the median and
largest game, and the one-core time the C search would take for the whole
matrix of the pool, 200 games a pair (528 pairs for 33 decks, 1,485 for 55).

    python scripts/bench_mtg_exact.py [--games 1000] [--python-games 150] [--seed 0]
    python scripts/bench_mtg_exact.py --max-creatures 16 --games 20 --python-games 0 --cap 50000000
"""

import time

import numpy as np

from gamelp.cli.args import OneLineParser, integer, run_script
from gamelp.games.mtg import play_game
from gamelp.games.mtg.deck import analysed_decks

GAMES_PER_PAIR = 200


def play(pairs, compiled: bool, cap: int):
    start, cpu = time.perf_counter(), time.process_time()
    results = [play_game(deck1, deck2, seed=g, first=g % 2, life_threshold=0, evaluation="life",
                         compiled=compiled, eval_cap=cap) for g, (deck1, deck2) in enumerate(pairs)]
    return results, time.perf_counter() - start, time.process_time() - cpu


def report(name: str, results, elapsed: float, cpu: float) -> None:
    nodes = sum(r.nodes for r in results)
    draws = sum(r.winner is None for r in results)
    print(f"{name:8}{len(results):8d}{elapsed:10.1f}{cpu:10.1f}{len(results) / cpu:12.2f}"
          f"{nodes / cpu:14,.0f}{draws:8d}")


def main(argv=None):
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=integer(1), default=1000, help="games played in C (default: 1000)")
    parser.add_argument("--python-games", type=integer(0), default=150,
                        help="the first games of those also played by the Python search (default: 150)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-creatures", type=int, choices=(8, 16), default=8,
                        help="deck pool: Appendix B's 33 decks (8, default) or Table 3.4's 55 (16)")
    parser.add_argument("--cap", type=integer(1), default=500_000, help="leaves per game before a draw (default: 500000)")
    args = parser.parse_args(argv)
    decks = [str(d) for d in analysed_decks(args.max_creatures)]
    rng = np.random.default_rng(args.seed)
    pairs = [tuple(rng.choice(decks, 2, replace=False)) for _ in range(args.games)]

    print(f"{'search':8}{'games':>8}{'wall s':>10}{'CPU s':>10}{'games/CPU s':>12}{'nodes/CPU s':>14}{'draws':>8}")
    c_results, c_wall, c_cpu = play(pairs, compiled=True, cap=args.cap)
    report("C", c_results, c_wall, c_cpu)
    nodes = sorted(r.nodes for r in c_results)
    print(f"nodes per game: median {nodes[len(nodes) // 2]:,}, largest {nodes[-1]:,}")
    python_count = min(args.python_games, args.games)
    if python_count:
        same = pairs[:python_count]
        c_same, *c_times = play(same, compiled=True, cap=args.cap)
        report("C", c_same, *c_times)
        py_same, *py_times = play(same, compiled=False, cap=args.cap)
        report("Python", py_same, *py_times)
        decided = [(c.winner, p.winner) for c, p in zip(c_same, py_same) if None not in (c.winner, p.winner)]
        print(f"on the same {python_count} games: winners agree in {sum(a == b for a, b in decided)} of "
              f"{len(decided)} decided by both; draws C {sum(r.winner is None for r in c_same)}, "
              f"Python {sum(r.winner is None for r in py_same)}; C is {py_times[1] / c_times[1]:.0f}x faster (CPU)")
    per_game = c_cpu / args.games
    matrix_games = len(decks) * (len(decks) - 1) // 2 * GAMES_PER_PAIR
    print(f"the {len(decks)}-deck matrix ({matrix_games:,} games) in C: about {matrix_games * per_game / 3600:.2f} "
          f"CPU hours, {matrix_games * per_game / 7200:.2f} h of wall time on 2 cores")


if __name__ == "__main__":
    run_script(main)
