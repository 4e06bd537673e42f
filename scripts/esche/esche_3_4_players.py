"""Esche (2018), Section 3.4: the imperfect-information player against the two heuristics.

The thesis plays the imperfect-information player against the aggressive and
the defensive heuristic, and the defensive heuristic against the aggressive
one, 200 games a repeat on random decks (at most 8 creatures), each side
first half of the time, 20 repeats; it reports the mean win rate and the
standard deviation over repeats.  This script runs the same tournament at a
scale that finishes in minutes by default (fewer games and repeats, two
sampled deals per decision, the life-difference evaluation and a small
cap: the imperfect player still costs seconds a game); raise ``--games 200
--repeats 20 --samples 8 --evaluation forest`` towards the thesis's scale.
With few games per repeat the deviation over repeats is larger than the
thesis's (it shrinks like 1/sqrt(games)).

    python scripts/esche/esche_3_4_players.py
    python scripts/esche/esche_3_4_players.py --games 200 --repeats 20 --workers 2 --out out/esche_3_4
    python scripts/esche/esche_3_4_players.py --max-creatures 16   # the 59% (sd 8.9) case
    python scripts/esche/esche_3_4_players.py --max-creatures 16 --life-threshold 0 --eval-cap 1000000 \\
        --samples 8 --perfect

``--life-threshold 0`` makes the imperfect player search every sampled deal
to its end with the C search (perfect-information Monte Carlo) and
``--perfect`` adds the perfect-information player against the aggressive
one. Over 600 games with up to 16 creatures (docs/esche-reproduction.md,
Section 6): 46% at the defaults, 54% with 8 deals searched to the end, 59.5%
with perfect information.

The defensive heuristic bolts the player only when it "has enough in its hand
to win the game" (Section 2.6). ``--defensive castable`` (the default) counts
the bolts it can cast now, ``--defensive hand`` every bolt in hand; measured
over 2,000 games on random decks (at most 8 creatures), defensive v aggressive
is 30.2% and 49.8%, the thesis's 34% (sd 7.3).
"""

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from gamelp.cli.args import OneLineParser, add_execution_options, execution_from, integer, output_directory, run_script
from gamelp.games.mtg import sweep
from gamelp.games.mtg.deck import analysed_decks
from gamelp.games.mtg.engine import LIFE_THRESHOLD
from gamelp.games.mtg.evaluation import EVALUATIONS
from gamelp.io import write_text

IMPERFECT = "imperfect"
DEFENSIVE = {"castable": "defensive", "hand": "defensive-hand"}  # player kinds
# (row player, column player): (thesis win rate %, thesis sd %), Section 3.4
THESIS = {
    8: {
        (IMPERFECT, "aggressive"): (48, 4.3),
        (IMPERFECT, "defensive"): (62, 5.8),
        ("defensive", "aggressive"): (34, 7.3),
    },
    16: {(IMPERFECT, "aggressive"): (59, 8.9)},
}


@dataclass
class Pairing:
    """One pairing of Section 3.4: the row player's win rate in percent and its deviation over repeats."""

    row: str
    col: str
    ours: float  # percent
    ours_sd: float  # percent, over repeats
    thesis: int | str  # percent ("-" where the thesis has none)
    thesis_sd: float | str


@dataclass
class Tournament:
    """Section 3.4's tournament: the pairings beside the thesis's, and the batch they come from."""

    max_creatures: int
    games: int  # games per pairing and repeat
    repeats: int
    pairings: list[Pairing]
    batch: sweep.BatchResult  # every pair of the players (the matrix, counts, draws)
    out: Path  # the run's store and results directory


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", type=integer(1), default=10, help="games per pairing and repeat (thesis: 200; default: 10)"
    )
    parser.add_argument("--repeats", type=integer(1), default=3, help="repeats (thesis: 20; default: 3)")
    parser.add_argument(
        "--samples", type=integer(1), default=2, help="deals the imperfect player samples per decision (default: 2)"
    )
    parser.add_argument(
        "--max-creatures",
        type=int,
        choices=(8, 16),
        default=8,
        help="deck pool: the thesis's decks with up to 8 (default) or 16 creatures",
    )
    parser.add_argument(
        "--evaluation",
        choices=EVALUATIONS,
        default="life",
        help="evaluation in the imperfect player's searches (thesis: forest; default: life)",
    )
    parser.add_argument(
        "--life-threshold",
        type=integer(0),
        default=LIFE_THRESHOLD,
        help="life at which the imperfect player's searches stop and evaluate, 12, 8, 4 as in "
        "Section 2.6 (default: %(default)s); 0 searches every sampled deal to the end with the C search",
    )
    parser.add_argument(
        "--eval-cap",
        type=integer(1),
        default=500,
        help="leaves per sampled deal, per move with --life-threshold 0 (default: 500)",
    )
    parser.add_argument(
        "--defensive",
        choices=("castable", "hand"),
        default="castable",
        help="what the defensive player counts as a lethal hand of bolts (default: castable)",
    )
    parser.add_argument(
        "--perfect",
        action="store_true",
        help="also play the perfect-information player (it sees both hands and libraries) against "
        "the aggressive one, searching as the imperfect player does: with --life-threshold 0 "
        "exact play, the ceiling of any sampling player (not in the thesis)",
    )
    parser.add_argument("--seed", type=integer(0), default=0, help="seed of the decks and deals (default %(default)s)")
    parser.add_argument(
        "--out",
        type=output_directory,
        default="out/esche_3_4",
        help="store and results directory (default: out/esche_3_4)",
    )
    add_execution_options(parser)
    return parser


def main(argv: list[str] | None = None) -> Tournament:
    args = build_parser().parse_args(argv)

    defensive = DEFENSIVE[args.defensive]
    thesis = {
        tuple(defensive if p == "defensive" else p for p in pair): figures
        for pair, figures in THESIS[args.max_creatures].items()
    }
    if args.perfect:
        thesis[("perfect", "aggressive")] = ("-", "-")
    players = list(dict.fromkeys(p for pair in thesis for p in pair))
    out = Path(args.out) / (
        f"c{args.max_creatures}_g{args.games}_r{args.repeats}_n{args.samples}"
        f"_{args.evaluation}{args.life_threshold}_cap{args.eval_cap}_s{args.seed}"
        + ("_hand" if args.defensive == "hand" else "")
        + ("_perfect" if args.perfect else "")
    )
    result = sweep.run_tournament(
        players,
        analysed_decks(args.max_creatures),
        games=args.games,
        repeats=args.repeats,
        seed=args.seed,
        settings=sweep.GameSettings(
            evaluation=args.evaluation,
            eval_cap=args.eval_cap,
            life_threshold=args.life_threshold,
            imperfect_samples=args.samples,
        ),
        out=out,
        execution=execution_from(args),
    )
    index = {name: k for k, name in enumerate(result.matrix.row_labels)}
    pairings = []
    for (row, col), (rate, sd) in thesis.items():
        i, j = index[row], index[col]
        ours, ours_sd = 100 * float(result.matrix.payoffs[i, j]), 100 * float(result.matrix.std[i, j])
        pairings.append(Pairing(row, col, ours, ours_sd, rate, sd))
    payload = [
        {"row": p.row, "col": p.col, "ours": p.ours, "ours_sd": p.ours_sd, "thesis": p.thesis, "thesis_sd": p.thesis_sd}
        for p in pairings
    ]
    write_text(out / "section_3_4.json", json.dumps(payload, indent=2))
    return Tournament(
        max_creatures=args.max_creatures,
        games=args.games,
        repeats=args.repeats,
        pairings=pairings,
        batch=result,
        out=out,
    )


def report(result: Tournament) -> None:
    print(
        f"Section 3.4, decks with up to {result.max_creatures} creatures, {result.games} games x {result.repeats} "
        "repeats"
    )
    print(f"{'pairing':<30} {'ours %':>7} {'(sd)':>6}   {'thesis %':>8} {'(sd)':>6}")
    for p in result.pairings:
        print(
            f"{p.row + ' v ' + p.col:<30} {p.ours:>7.1f} {f'({p.ours_sd:.1f})':>6}   {p.thesis:>8} "
            f"{f'({p.thesis_sd})':>6}"
        )
    print(result.batch.summary())
    print(f"wrote {result.out}/section_3_4.json, payoffs.csv, std.csv, pairs.csv, {sweep.STORE_NAME}")


if __name__ == "__main__":
    run_script(main, report)
