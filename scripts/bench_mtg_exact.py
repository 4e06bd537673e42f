"""Benchmark: exact mini Magic games (no evaluation cut-off) in C against the Python search.

Plays the same perfect-information games, to their end (Esche 2018, ch. 2.1,
without the evaluation function: ``life_threshold=0``), between random pairs of
Appendix B's 33 decks, seats alternating, at the thesis's cap of 500,000
leaves per game: first with the C search (:mod:`gamelp.games.mtg.exact`), then
with both searches on the first ``--python-games`` of them. Prints games and
nodes per second of each, the ratio, whether the winners agree, and the
one-core time the C search would take for the whole 528-pair, 200-game matrix.

    python scripts/bench_mtg_exact.py [--games 1000] [--python-games 150] [--seed 0]
"""

import argparse
import time

import numpy as np

from gamelp.cli.args import run_script
from gamelp.games.mtg import play_game
from gamelp.games.mtg.deck import analysed_decks

MATRIX_GAMES = 528 * 200


def play(pairs, compiled: bool):
    start, cpu = time.perf_counter(), time.process_time()
    results = [play_game(deck1, deck2, seed=g, first=g % 2, life_threshold=0, evaluation="life",
                         compiled=compiled) for g, (deck1, deck2) in enumerate(pairs)]
    return results, time.perf_counter() - start, time.process_time() - cpu


def report(name: str, results, elapsed: float, cpu: float) -> None:
    nodes = sum(r.nodes for r in results)
    draws = sum(r.winner is None for r in results)
    print(f"{name:8}{len(results):8d}{elapsed:10.1f}{cpu:10.1f}{len(results) / cpu:12.2f}"
          f"{nodes / cpu:14,.0f}{draws:8d}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games played in C (default: 1000)")
    parser.add_argument("--python-games", type=int, default=150,
                        help="the first games of those also played by the Python search (default: 150)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    decks = [str(d) for d in analysed_decks()]
    rng = np.random.default_rng(args.seed)
    pairs = [tuple(rng.choice(decks, 2, replace=False)) for _ in range(args.games)]

    print(f"{'search':8}{'games':>8}{'wall s':>10}{'CPU s':>10}{'games/CPU s':>12}{'nodes/CPU s':>14}{'draws':>8}")
    c_results, c_wall, c_cpu = play(pairs, compiled=True)
    report("C", c_results, c_wall, c_cpu)
    python_count = min(args.python_games, args.games)
    if python_count:
        same = pairs[:python_count]
        c_same, *c_times = play(same, compiled=True)
        report("C", c_same, *c_times)
        py_same, *py_times = play(same, compiled=False)
        report("Python", py_same, *py_times)
        decided = [(c.winner, p.winner) for c, p in zip(c_same, py_same) if None not in (c.winner, p.winner)]
        print(f"on the same {python_count} games: winners agree in {sum(a == b for a, b in decided)} of "
              f"{len(decided)} decided by both; draws C {sum(r.winner is None for r in c_same)}, "
              f"Python {sum(r.winner is None for r in py_same)}; C is {py_times[1] / c_times[1]:.0f}x faster (CPU)")
    per_game = c_cpu / args.games
    print(f"the 33-deck matrix ({MATRIX_GAMES:,} games) in C: about {MATRIX_GAMES * per_game / 3600:.2f} CPU hours, "
          f"{MATRIX_GAMES * per_game / 7200:.2f} h of wall time on 2 cores")


if __name__ == "__main__":
    run_script(main)
