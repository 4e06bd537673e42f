"""The ``gamelp mtg`` command: play one mini-Magic game, sweep deck pairs, run a player tournament.

``add_subparser(subparsers)`` hangs the ``mtg`` command on gamelp's argparse
CLI; every leaf sets ``func(args) -> exit code`` and raises ``GamelpError``
for bad input.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict

from gamelp.argtypes import MAX_COUNT
from gamelp.cli.args import add_execution_options, execution_from, int_list, integer, output_directory, workers
from gamelp.cli.output import print_json
from gamelp.games.mtg import sweep
from gamelp.games.mtg.deck import analysed_decks
from gamelp.games.mtg.engine import EVAL_CAP, LIFE_THRESHOLD
from gamelp.games.mtg.evaluation import EVALUATIONS
from gamelp.games.mtg.forest import THRESHOLDS
from gamelp.games.mtg.match import PLAYER_KINDS, play_game

# Training games are kept in memory as positions (hundreds a game): a million is 1,000 times the thesis's 1,000.
MAX_TRAINING_GAMES = 10**6


def name_list(text: str) -> list[str]:
    """A comma-separated list of names for an argparse option; an empty list is an argparse error."""
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return names


def _add_game_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("game settings")
    group.add_argument(
        "--evaluation",
        choices=EVALUATIONS,
        default="forest",
        help="evaluation function called at or below the life threshold (default: forest)",
    )
    group.add_argument(
        "--eval-cap",
        type=integer(1, MAX_COUNT),
        default=EVAL_CAP,
        help="evaluations after which a game is a draw (default: %(default)s, the thesis's)",
    )
    group.add_argument(
        "--life-threshold",
        type=integer(0, MAX_COUNT),
        default=LIFE_THRESHOLD,
        help="life at or below which the evaluation function is used (default: %(default)s)",
    )
    group.add_argument(
        "--verify",
        action="store_true",
        help="check the evaluation's verdict by full minimax; disagreements are dropped",
    )


def _add_batch_options(parser: argparse.ArgumentParser, default_repeats: int) -> None:
    parser.add_argument(
        "--games", type=integer(1, MAX_COUNT), default=200, help="games per pair and repeat (default: 200)"
    )
    parser.add_argument(
        "--repeats",
        type=integer(1, MAX_COUNT),
        default=default_repeats,
        help=f"independent repeats giving standard deviations (default: {default_repeats})",
    )
    parser.add_argument("--seed", type=integer(0), default=0, help="batch seed (default: 0)")
    add_execution_options(parser)
    _add_game_options(parser)


def _game_options(args: argparse.Namespace) -> dict:
    return {
        "evaluation": args.evaluation,
        "eval_cap": args.eval_cap,
        "life_threshold": args.life_threshold,
        "verify": args.verify,
    }


def _batch_options(args: argparse.Namespace) -> dict:
    """The counts, seed and execution a sweep and a tournament take alike."""
    return {"games": args.games, "repeats": args.repeats, "seed": args.seed, "execution": execution_from(args)}


# ----------------------------------------------------------------------------- play


def cmd_play(args: argparse.Namespace) -> int:
    """``mtg play``: play one game between two decks and print its result."""
    result = play_game(
        args.deck1,
        args.deck2,
        player1=args.player1,
        player2=args.player2,
        seed=args.seed,
        first=args.first,
        verbose=args.verbose,
        settings=sweep.GameSettings(**_game_options(args)),
    )
    sides = [f"{args.deck1} ({args.player1})", f"{args.deck2} ({args.player2})"]
    if result.winner is None:
        verdict = f"draw (the evaluation cap of {args.eval_cap} was reached)" if result.capped else "draw"
    else:
        verdict = f"{sides[result.winner]} wins"
    print(
        f"{verdict} after {result.turns} turns ({sides[result.first]} went first; "
        f"{result.nodes} nodes searched, {result.evaluations} evaluations)"
    )
    if result.mismatch:
        print("warning: the evaluation function's verdict disagreed with full minimax")
    return 0


# ----------------------------------------------------------------------------- sweep


def cmd_sweep(args: argparse.Namespace) -> int:
    """``mtg sweep``: play the grid of deck pairs and print the win-rate matrix."""
    start = time.perf_counter()
    result = sweep.run_sweep(
        args.creatures,
        args.bolts,
        mirror=args.mirror,
        analysed=args.analysed,
        player=args.player,
        settings=sweep.GameSettings(**_game_options(args)),
        out=args.out,
        **_batch_options(args),
    )
    print(result.summary())
    print(
        f"wrote {args.out}/payoffs.csv, std.csv, pairs.csv and {sweep.STORE_NAME} "
        f"({len(result.matrix.row_labels)} decks) in {time.perf_counter() - start:.1f} s"
    )
    return 0


# ----------------------------------------------------------------------------- train-forest


def cmd_train_forest(args: argparse.Namespace) -> int:
    """``mtg train-forest``: train the evaluation forests, one per life threshold, and cache them."""
    from gamelp.games.mtg import forest

    start = time.perf_counter()
    forests = forest.train_forests(
        args.games,
        args.seed,
        args.trees,
        args.thresholds,
        progress=not args.quiet,
        label_cap=args.label_cap,
        workers=args.workers,
    )
    print(
        f"forests for {'/'.join(map(str, args.thresholds))} life from {args.games} games "
        f"(seed {args.seed}, {args.trees} trees) in {forest.default_cache_dir()}, {time.perf_counter() - start:.0f} s"
    )
    if args.test_games:
        test = forest.collect_positions(
            args.test_games,
            args.thresholds,
            [args.seed, 1],
            label_cap=args.label_cap,
            progress=not args.quiet,
            workers=args.workers,
        )
        for t in args.thresholds:
            X, y = test.X[t], test.y[t]
            accuracy = float((forests[t].predict(X) == y).mean()) if len(y) else float("nan")
            print(
                f"{t:>2} life: out-of-sample accuracy {accuracy:.1%} on {len(y)} positions of "
                f"{args.test_games} new games (player 1 wins {y.mean():.0%})"
            )
        print(f"Esche (2018), Table 3.1, 9 trees at 12 life: {1 - 37.8 / 200:.1%} (37.8 of 200 wrong)")
    return 0


# ----------------------------------------------------------------------------- tournament


def _table(result: sweep.BatchResult) -> str:
    labels = list(result.matrix.row_labels)
    width = max(14, *(len(x) + 2 for x in labels))
    lines = ["win rate of row vs column, % (sd)", " " * width + "".join(f"{x:>{width}}" for x in labels)]
    for i, row in enumerate(labels):
        cells = [
            "-" if i == j else f"{100 * result.matrix.payoffs[i, j]:.1f} ({100 * result.matrix.std[i, j]:.1f})"
            for j in range(len(labels))
        ]
        lines.append(f"{row:<{width}}" + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)


def tournament_json(result: sweep.BatchResult) -> dict:
    """The tournament as plain data: the rate and sd matrices and the per-pair counts."""
    return {
        "players": list(result.matrix.row_labels),
        "win_rate": result.matrix.payoffs.tolist(),
        "std": result.matrix.std.tolist(),
        "pairs": [asdict(p) for p in result.pairs],
        "games": result.games,
        "draws": result.draws,
        "mismatches": result.mismatches,
    }


def cmd_tournament(args: argparse.Namespace) -> int:
    """``mtg tournament``: play the players against each other over the decks and print the table."""
    decks = args.decks or [str(deck) for deck in analysed_decks(args.max_creatures)]
    settings = sweep.GameSettings(**_game_options(args), imperfect_samples=args.samples)
    result = sweep.run_tournament(args.players, decks, settings=settings, out=args.out, **_batch_options(args))
    if args.json:
        print_json(tournament_json(result))
    else:
        print(_table(result))
        print(result.summary())
    return 0


# ----------------------------------------------------------------------------- wiring


def add_subparser(subparsers) -> argparse.ArgumentParser:
    """Add ``mtg`` (with ``play``, ``sweep``, ``train-forest``, ``tournament``) to an argparse subparsers object."""
    mtg = subparsers.add_parser(
        "mtg",
        help="the mini Magic: The Gathering simulator",
        description="Mini Magic (Mountain, Lightning Bolt, Vexing Devil): play a game, "
        "sweep deck pairs into a payoff matrix, or pit players against each other.",
    )
    commands = mtg.add_subparsers(dest="mtg_command", required=True, metavar="{play,sweep,train-forest,tournament}")

    play = commands.add_parser(
        "play", help="play one game and print the winner", description="Play one game; --verbose shows it turn by turn."
    )
    play.add_argument("--deck1", default="8C28L", help="deck of player 1, e.g. 8C28L (default: 8C28L)")
    play.add_argument("--deck2", default="0C40L", help="deck of player 2 (default: 0C40L)")
    play.add_argument("--player1", choices=PLAYER_KINDS, default="perfect", help="player 1's kind (default: perfect)")
    play.add_argument("--player2", choices=PLAYER_KINDS, default="perfect", help="player 2's kind (default: perfect)")
    play.add_argument("--seed", type=integer(0), default=0, help="game seed (default: 0)")
    play.add_argument(
        "--first",
        type=int,
        choices=(0, 1),
        default=0,
        help="seat that plays first: 0 (--deck1, --player1) or 1 (default: 0)",
    )
    play.add_argument("--verbose", action="store_true", help="show the game turn by turn")
    _add_game_options(play)
    play.set_defaults(func=cmd_play)

    sw = commands.add_parser(
        "sweep",
        help="win-rate matrix over a grid of decks",
        description="Play every pair of decks on a grid of creature and bolt counts and "
        "write DIR/payoffs.csv, DIR/std.csv, DIR/pairs.csv and DIR/games.sqlite. "
        "Run again with the same arguments and --resume to finish an interrupted sweep.",
    )
    sw.add_argument(
        "--creatures",
        type=int_list,
        default=list(sweep.THESIS_CREATURES),
        help="Vexing Devil counts, e.g. 0,4,8 or 0:16:4 (default: 0,4,8)",
    )
    sw.add_argument(
        "--bolts",
        type=int_list,
        default=list(sweep.THESIS_BOLTS),
        help="Lightning Bolt counts (default: 0:60:4); decks over 60 cards are skipped",
    )
    sw.add_argument("--mirror", action="store_true", help="also play each deck against itself (fills the diagonal)")
    sw.add_argument(
        "--analysed",
        action="store_true",
        help="only the decks Esche (2018) analysed: more than 12 non-land cards and at least one "
        "Mountain (the 33 decks of Appendix B on the default grid)",
    )
    sw.add_argument(
        "--player", choices=PLAYER_KINDS, default="perfect", help="player kind on both sides (default: perfect)"
    )
    sw.add_argument("--out", type=output_directory, default="out/sweep", help="output directory (default: out/sweep)")
    _add_batch_options(sw, default_repeats=1)
    sw.set_defaults(func=cmd_sweep)

    train = commands.add_parser(
        "train-forest",
        help="train and cache the random-forest evaluations",
        description="Train the forests of Esche (2018), Sections 2.2 and 2.6: perfect-"
        "information games between random decks, positions recorded when a "
        "player first has 12, 8 and 4 life or less, labelled with the winner. "
        "The forests are cached; --test-games measures their accuracy on new games.",
    )
    train.add_argument(
        "--games",
        type=integer(1, MAX_TRAINING_GAMES),
        default=1000,
        help="training games (default: 1000, the thesis's)",
    )
    train.add_argument("--seed", type=integer(0), default=0, help="training seed (default: 0)")
    train.add_argument("--trees", type=integer(1), default=9, help="trees per forest (default: 9, the thesis's)")
    train.add_argument(
        "--thresholds",
        type=int_list,
        default=list(THRESHOLDS),
        help=f"life thresholds, one forest each (default: {','.join(map(str, THRESHOLDS))})",
    )
    train.add_argument(
        "--label-cap",
        type=integer(1, MAX_COUNT),
        default=300_000,
        help="positions a game's exact search may score before the game is skipped (default: 300000)",
    )
    train.add_argument(
        "--test-games",
        type=integer(0, MAX_TRAINING_GAMES),
        default=200,
        help="new games measuring out-of-sample accuracy (default: 200; 0 skips)",
    )
    train.add_argument("--workers", type=workers, default=1, help="worker processes playing the games (default: 1)")
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    train.set_defaults(func=cmd_train_forest)

    tour = commands.add_parser(
        "tournament",
        help="player-against-player win rates on random decks",
        description="Pit player kinds against each other (thesis Section 3.4): every game "
        "draws both decks at random from the pool.",
    )
    tour.add_argument(
        "--players",
        type=name_list,
        default=["perfect", "aggressive", "defensive", "random"],
        help="comma-separated player kinds (default: perfect,aggressive,defensive,random)",
    )
    tour.add_argument(
        "--decks",
        "--deck",
        type=name_list,
        default=None,
        help="comma-separated deck pool (default: the thesis's decks, see --max-creatures)",
    )
    tour.add_argument(
        "--max-creatures",
        type=integer(0, MAX_COUNT),
        default=8,
        help="default pool: thesis decks with up to this many creatures (default: 8)",
    )
    tour.add_argument(
        "--out", type=output_directory, default=None, help="directory for a resumable store and the matrices (optional)"
    )
    tour.add_argument(
        "--samples",
        type=integer(1, MAX_COUNT),
        default=None,
        help="deals the imperfect player samples per decision (default: the engine's)",
    )
    tour.add_argument("--json", action="store_true", help="print JSON instead of the table")
    _add_batch_options(tour, default_repeats=20)
    tour.set_defaults(func=cmd_tournament)
    return mtg
