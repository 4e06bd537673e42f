"""Esche (2018) Table 3.2: the evaluation cap against draws and time for perfect-information games.

Plays the same games (random deck pairs with at most 8 creatures, each side
first half the time) under several caps on the evaluations per game; a game
that reaches the cap is a draw. Printed beside the thesis's 100 games per cap.

    python scripts/esche/esche_table_3_2_cap.py [--games 100] [--caps 5000 50000 500000 5000000] \\
        [--evaluation forest]
"""

import argparse
import time
from dataclasses import dataclass

import numpy as np

from gamelp.cli.args import OneLineParser, integer, run_script
from gamelp.games.mtg import play_game, thesis_decks
from gamelp.games.mtg.engine import LIFE_THRESHOLD
from gamelp.games.mtg.evaluation import get_evaluation
from gamelp.games.mtg.match import GameSettings

THESIS = {5_000: (20, 152), 50_000: (10, 209), 500_000: (3, 366), 5_000_000: (0, 519)}  # draws, seconds


@dataclass
class CapRow:
    """The games played under one cap."""

    cap: int  # evaluations per game
    draws: int  # games that reached the cap
    seconds: float  # wall time of all the games
    mean_evaluations: float  # per game
    thesis: tuple[int, int] | None  # the thesis's draws and seconds of 100 games, where it has the cap


@dataclass
class CapTable:
    """Table 3.2: one row per cap, the same games under each."""

    games: int
    evaluation: str
    graded: bool
    rows: list[CapRow]


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=integer(1, 10**6),
        default=100,
        help="games per cap, the same deck pairs and deals under every cap (default %(default)s)",
    )  # the deck pairs are drawn up front
    parser.add_argument(
        "--caps",
        type=integer(1),
        nargs="+",
        default=sorted(THESIS),
        help="evaluation caps per game (default: the thesis's 5000 50000 500000 5000000)",
    )
    parser.add_argument(
        "--evaluation",
        default="forest",
        choices=("forest", "layered", "life"),
        help=f"evaluation function at or below {LIFE_THRESHOLD} life (default %(default)s)",
    )
    parser.add_argument("--graded", action="store_true", help="search with full scores, not their sign")
    parser.add_argument(
        "--seed", type=integer(0), default=0, help="seed of the deck pairs and the games (default %(default)s)"
    )
    return parser


def main(argv: list[str] | None = None) -> CapTable:
    args = build_parser().parse_args(argv)

    get_evaluation(args.evaluation, threshold=LIFE_THRESHOLD)  # load (or train) outside the timing
    decks = thesis_decks()
    pairs = np.random.default_rng(args.seed).integers(len(decks), size=(args.games, 2))
    rows = []
    for cap in args.caps:
        start = time.perf_counter()
        results = [
            play_game(
                decks[i],
                decks[j],
                seed=args.seed + g,
                first=g % 2,
                settings=GameSettings(eval_cap=cap, evaluation=args.evaluation, graded=args.graded),
            )
            for g, (i, j) in enumerate(pairs)
        ]
        elapsed = time.perf_counter() - start
        draws = sum(r.winner is None for r in results)
        rows.append(CapRow(cap, draws, elapsed, float(np.mean([r.evaluations for r in results])), THESIS.get(cap)))
    return CapTable(games=args.games, evaluation=args.evaluation, graded=args.graded, rows=rows)


def report(result: CapTable) -> None:
    print(f"{result.games} games per cap, {result.evaluation} evaluation" + (" (graded)" if result.graded else ""))
    print(f"{'cap':>10}{'draws':>8}{'time (s)':>10}{'evals/game':>12}   thesis (of 100): draws, time (s)")
    for row in result.rows:
        thesis = "{:>6}{:>8}".format(*row.thesis) if row.thesis else "      -"
        print(f"{row.cap:>10,}{row.draws:>8}{row.seconds:>10.1f}{row.mean_evaluations:>12,.0f}   {thesis}")


if __name__ == "__main__":
    run_script(main, report)
