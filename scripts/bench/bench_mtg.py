"""Benchmark: perfect-information mini Magic games per second and search nodes per second.

Plays perfect-vs-perfect games (Esche 2018, ch. 3.1) between random deck pairs
with at most 8 creatures (card counts multiples of 4), each side first half the
time, at the thesis's cap of 500,000 evaluations, and compares the time per game
with the thesis's 100 games in 366 s (3 draws) on a 2.66 GHz core.

    python scripts/bench/bench_mtg.py [--games 100] [--cap 500000] [--evaluation forest]
"""

import time
from dataclasses import dataclass

import numpy as np

from gamelp.cli.args import OneLineParser, integer, run_script
from gamelp.games.mtg import play_game, thesis_decks
from gamelp.games.mtg.engine import EVAL_CAP, LIFE_THRESHOLD
from gamelp.games.mtg.evaluation import get_evaluation
from gamelp.games.mtg.match import GameSettings

THESIS_SECONDS, THESIS_GAMES, THESIS_DRAWS = 366.0, 100, 3


@dataclass
class MtgSpeed:
    """The games played and what they cost, beside the thesis's 100 games in 366 s (3 draws)."""

    games: int
    cap: int
    evaluation: str
    seconds: float  # wall time of all the games
    cpu_seconds: float
    nodes: int  # search nodes, all games
    draws: int  # games that reached the cap
    evaluations: int  # evaluations, all games

    @property
    def seconds_per_game(self) -> float:
        return self.seconds / self.games

    @property
    def games_per_second(self) -> float:
        return 1 / self.seconds_per_game

    @property
    def thesis_seconds(self) -> float:
        """The thesis's time for as many games."""
        return THESIS_SECONDS * self.games / THESIS_GAMES

    @property
    def thesis_draws(self) -> float:
        return THESIS_DRAWS * self.games / THESIS_GAMES

    @property
    def thesis_seconds_per_game(self) -> float:
        return THESIS_SECONDS / THESIS_GAMES

    @property
    def speedup(self) -> float:
        """Wall time per game: the thesis's over ours."""
        return self.thesis_seconds_per_game / self.seconds_per_game

    @property
    def cpu_speedup(self) -> float:
        return self.thesis_seconds / self.cpu_seconds


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", type=integer(1, 10**6), default=100, help="games, one random deck pair each (default %(default)s)"
    )  # the deck pairs are drawn up front
    parser.add_argument("--cap", type=integer(1), default=EVAL_CAP, help="evaluation cap per game")
    parser.add_argument(
        "--evaluation",
        default="forest",
        choices=("forest", "layered", "life"),
        help="evaluation function at or below --threshold (default %(default)s)",
    )
    parser.add_argument("--graded", action="store_true", help="search with full scores, not their sign")
    parser.add_argument(
        "--threshold",
        type=integer(0),
        default=LIFE_THRESHOLD,
        help="life at or below which the evaluation is used; 0 plays exactly (default %(default)s)",
    )
    parser.add_argument(
        "--seed", type=integer(0), default=0, help="seed of the deck pairs and the games (default %(default)s)"
    )
    return parser


def main(argv: list[str] | None = None) -> MtgSpeed:
    args = build_parser().parse_args(argv)
    if args.threshold > 0:
        get_evaluation(args.evaluation, threshold=args.threshold)  # load (or train) outside the timing
    decks = thesis_decks()
    rng = np.random.default_rng(args.seed)
    pairs = rng.integers(len(decks), size=(args.games, 2))
    start, cpu_start = time.perf_counter(), time.process_time()
    results = [
        play_game(
            decks[i],
            decks[j],
            seed=args.seed + g,
            first=g % 2,
            settings=GameSettings(
                eval_cap=args.cap, evaluation=args.evaluation, life_threshold=args.threshold, graded=args.graded
            ),
        )
        for g, (i, j) in enumerate(pairs)
    ]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return MtgSpeed(
        games=args.games,
        cap=args.cap,
        evaluation=args.evaluation,
        seconds=elapsed,
        cpu_seconds=cpu,
        nodes=sum(r.nodes for r in results),
        draws=sum(r.winner is None for r in results),
        evaluations=sum(r.evaluations for r in results),
    )


def report(result: MtgSpeed) -> None:
    r = result
    print(f"{r.games} perfect-information games, cap {r.cap:,}, {r.evaluation} evaluation")
    print(f"{'':24}{'ours':>14}{'thesis':>14}")
    print(f"{'time (s)':24}{r.seconds:14.2f}{r.thesis_seconds:14.1f}")
    print(f"{'CPU time (s)':24}{r.cpu_seconds:14.2f}")
    print(f"{'seconds per game':24}{r.seconds_per_game:14.4f}{r.thesis_seconds_per_game:14.2f}")
    print(f"{'CPU seconds per game':24}{r.cpu_seconds / r.games:14.4f}")
    print(f"{'games per second':24}{r.games_per_second:14.2f}{1 / r.thesis_seconds_per_game:14.3f}")
    print(f"{'draws (cap reached)':24}{r.draws:14d}{r.thesis_draws:14.1f}")
    print(f"{'search nodes':24}{r.nodes:14,d}")
    print(f"{'nodes per second':24}{r.nodes / r.seconds:14,.0f}")
    print(f"{'nodes per CPU second':24}{r.nodes / r.cpu_seconds:14,.0f}")
    print(f"{'evaluations per game':24}{r.evaluations / r.games:14,.1f}")
    print(f"speed-up per game over the thesis: {r.speedup:.1f}x wall, {r.cpu_speedup:.1f}x CPU (aim: 10x)")


if __name__ == "__main__":
    run_script(main, report)
