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

    python scripts/bench/bench_mtg_exact.py [--games 1000] [--python-games 150] [--seed 0]
    python scripts/bench/bench_mtg_exact.py --max-creatures 16 --games 20 --python-games 0 --cap 50000000
"""

import time
from dataclasses import dataclass

import numpy as np

from gamelp.cli.args import OneLineParser, integer, run_script
from gamelp.games.mtg import play_game
from gamelp.games.mtg.deck import analysed_decks

GAMES_PER_PAIR = 200


@dataclass
class SearchRun:
    """One search's games: how many, their wall and CPU seconds, nodes and draws."""

    search: str  # "C" or "Python"
    games: int
    seconds: float
    cpu_seconds: float
    nodes: int
    draws: int
    winners: list  # per game: 0, 1 or None (a draw)

    @property
    def games_per_cpu_second(self) -> float:
        return self.games / self.cpu_seconds

    @property
    def nodes_per_cpu_second(self) -> float:
        return self.nodes / self.cpu_seconds


@dataclass
class ExactSpeed:
    """The C search's games, the C and Python searches on the same first games, and the matrix's projected cost."""

    decks: int  # the pool's size (33 or 55)
    c: SearchRun  # every game, in C
    median_nodes: int  # nodes per game of the C games
    largest_nodes: int
    c_same: SearchRun | None  # the first --python-games games again, in C
    python_same: SearchRun | None  # and in Python
    matrix_games: int  # GAMES_PER_PAIR games for every pair of the pool
    cpu_hours: float  # the matrix at the C games' CPU seconds per game
    wall_hours: float  # on 2 cores

    @property
    def decided(self) -> int:
        """Games of the comparison decided by both searches."""
        return sum(None not in pair for pair in zip(self.c_same.winners, self.python_same.winners))

    @property
    def agree(self) -> int:
        """Games of the comparison decided by both searches, with the same winner."""
        return sum(
            a == b and a is not None and b is not None for a, b in zip(self.c_same.winners, self.python_same.winners)
        )

    @property
    def cpu_ratio(self) -> float:
        """CPU time on the same games: Python's over C's."""
        return self.python_same.cpu_seconds / self.c_same.cpu_seconds


def play(name: str, pairs, compiled: bool, cap: int) -> tuple[SearchRun, list[int]]:
    start, cpu = time.perf_counter(), time.process_time()
    results = [
        play_game(
            deck1, deck2, seed=g, first=g % 2, life_threshold=0, evaluation="life", compiled=compiled, eval_cap=cap
        )
        for g, (deck1, deck2) in enumerate(pairs)
    ]
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    run = SearchRun(
        search=name,
        games=len(results),
        seconds=wall,
        cpu_seconds=cpu,
        nodes=sum(r.nodes for r in results),
        draws=sum(r.winner is None for r in results),
        winners=[r.winner for r in results],
    )
    return run, [r.nodes for r in results]


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=integer(1), default=1000, help="games played in C (default: 1000)")
    parser.add_argument(
        "--python-games",
        type=integer(0),
        default=150,
        help="the first games of those also played by the Python search (default: 150)",
    )
    parser.add_argument("--seed", type=integer(0), default=0)
    parser.add_argument(
        "--max-creatures",
        type=int,
        choices=(8, 16),
        default=8,
        help="deck pool: Appendix B's 33 decks (8, default) or Table 3.4's 55 (16)",
    )
    parser.add_argument(
        "--cap", type=integer(1), default=500_000, help="leaves per game before a draw (default: 500000)"
    )
    return parser


def main(argv: list[str] | None = None) -> ExactSpeed:
    args = build_parser().parse_args(argv)
    decks = [str(d) for d in analysed_decks(args.max_creatures)]
    rng = np.random.default_rng(args.seed)
    pairs = [tuple(rng.choice(decks, 2, replace=False)) for _ in range(args.games)]

    c_run, nodes = play("C", pairs, compiled=True, cap=args.cap)
    nodes.sort()
    c_same = python_same = None
    python_count = min(args.python_games, args.games)
    if python_count:
        same = pairs[:python_count]
        c_same, _ = play("C", same, compiled=True, cap=args.cap)
        python_same, _ = play("Python", same, compiled=False, cap=args.cap)
    per_game = c_run.cpu_seconds / args.games
    matrix_games = len(decks) * (len(decks) - 1) // 2 * GAMES_PER_PAIR
    return ExactSpeed(
        decks=len(decks),
        c=c_run,
        median_nodes=nodes[len(nodes) // 2],
        largest_nodes=nodes[-1],
        c_same=c_same,
        python_same=python_same,
        matrix_games=matrix_games,
        cpu_hours=matrix_games * per_game / 3600,
        wall_hours=matrix_games * per_game / 7200,
    )


def _row(run: SearchRun) -> None:
    print(
        f"{run.search:8}{run.games:8d}{run.seconds:10.1f}{run.cpu_seconds:10.1f}{run.games_per_cpu_second:12.2f}"
        f"{run.nodes_per_cpu_second:14,.0f}{run.draws:8d}"
    )


def report(result: ExactSpeed) -> None:
    print(f"{'search':8}{'games':>8}{'wall s':>10}{'CPU s':>10}{'games/CPU s':>12}{'nodes/CPU s':>14}{'draws':>8}")
    _row(result.c)
    print(f"nodes per game: median {result.median_nodes:,}, largest {result.largest_nodes:,}")
    if result.c_same is not None:
        _row(result.c_same)
        _row(result.python_same)
        print(
            f"on the same {result.c_same.games} games: winners agree in {result.agree} of "
            f"{result.decided} decided by both; draws C {result.c_same.draws}, "
            f"Python {result.python_same.draws}; C is {result.cpu_ratio:.0f}x faster (CPU)"
        )
    print(
        f"the {result.decks}-deck matrix ({result.matrix_games:,} games) in C: about {result.cpu_hours:.2f} "
        f"CPU hours, {result.wall_hours:.2f} h of wall time on 2 cores"
    )


if __name__ == "__main__":
    run_script(main, report)
