"""Esche (2018), Table 3.4: the optimal deck mix when decks may hold up to 16 Vexing Devils.

The thesis played every pair of its 55 decks with at most 16 creatures and
more than 12 non-land cards (200 games a pair) and solved the deck game; it
does not publish that matrix, only the optimal mix (Table 3.4). This script
plays the same grid with the game settings and rule changes of
``esche_appendix_b.py run`` (the sweep also plays the grid's other decks; the
deck game keeps the 55), solves the deck LP and prints our mix beside the
thesis's:

    python scripts/esche/esche_table_3_4.py --games 200 --evaluation life --life-threshold 0 \\
        --rule starting_life=3 --rule first_player_draws=1 --out out/table-3-4-life3

The exact game at 20 life (``--evaluation life --life-threshold 0`` without
rule changes) is played by the C search: about 0.02 CPU seconds a game over
random pairs of the 55 decks (``bench_mtg_exact.py --max-creatures 16``);
``--analysed --games 20`` (29,700 games) took 9 minutes of one core;
``--analysed --games 200 --seed 3 --workers 2`` (297,000 games) 47 minutes on two,
the matrix shipped as ``games/data/mtg_exact_55_payoffs.csv``, with 106 games drawn
at the thesis's cap. Exact play is now uncapped and about 20 times cheaper a game
(docs/esche-reproduction.md, Section 8): every game is decided, the cells those
draws were left out of were replayed into the shipped matrix, and the whole run
takes 3 minutes on two workers (251 CPU seconds), every cell the shipped one.
``--creatures`` and ``--bolts`` shrink the grid.
"""

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:  # esche_appendix_b.py beside this script, also when this script is imported by path
    sys.path.insert(0, HERE)
from esche_appendix_b import add_game_arguments, game_setup  # noqa: E402

from gamelp.cli.args import OneLineParser, int_list, integer, output_directory, run_script  # noqa: E402
from gamelp.games.mtg.deck import analysed_decks  # noqa: E402
from gamelp.games.mtg.sweep import BatchResult, run_sweep  # noqa: E402
from gamelp.models.nash import solve_matrix_nash  # noqa: E402

TABLE_3_4 = {
    "0C36L": 16,
    "4C32L": 8,
    "8C32L": 5,
    "12C20L": 14,
    "12C24L": 7,
    "12C28L": 17,
    "16C16L": 6,
    "16C20L": 16,
    "16C24L": 10,
}  # percent


@dataclass
class DeckMix16:
    """Table 3.4: the optimal mix over the thesis's decks with up to 16 creatures that the sweep played."""

    rules: dict  # rule changes of the sweep
    sweep: BatchResult  # every played pair of the grid
    decks: list[str]  # the deck game's decks (the thesis's 55 on the default grid)
    mix: dict[str, float]  # deck -> share
    value: float


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--creatures",
        type=int_list,
        default=list(range(0, 17, 4)),
        help="Vexing Devil counts of the grid, e.g. 0,4,8 or 0:16:4 (default 0:16:4)",
    )
    parser.add_argument(
        "--bolts",
        type=int_list,
        default=list(range(0, 61, 4)),
        help="Lightning Bolt counts of the grid (default 0:60:4)",
    )
    parser.add_argument("--games", type=integer(1), default=200, help="games per pair (default %(default)s)")
    parser.add_argument(
        "--analysed",
        action="store_true",
        help="play only the grid's decks the thesis analysed (the 55 on the default grid), not its other 15",
    )
    add_game_arguments(parser)
    parser.add_argument("--backend", default="auto", help="LP backend (default %(default)s)")
    parser.add_argument("--out", type=output_directory, required=True, help="directory of the sweep")
    return parser


def main(argv: list[str] | None = None) -> DeckMix16:
    args = build_parser().parse_args(argv)

    rules, settings, execution, game_fn = game_setup(args)
    result = run_sweep(
        args.creatures,
        args.bolts,
        games=args.games,
        seed=args.seed,
        analysed=args.analysed,
        settings=settings,
        out=args.out,
        execution=execution,
        game_fn=game_fn,
    )
    played = {label: k for k, label in enumerate(result.matrix.row_labels)}
    decks = [k for k in map(str, analysed_decks(16)) if k in played]
    game = result.matrix.submatrix([played[d] for d in decks], [played[d] for d in decks])
    nash = solve_matrix_nash(game, "row", args.backend)
    return DeckMix16(rules=rules, sweep=result, decks=decks, mix=nash.strategy_dict(), value=nash.value)


def report(result: DeckMix16) -> None:
    print(result.sweep.summary())
    print(
        f"rules changed: {result.rules or 'none'}; deck game over {len(result.decks)} of the thesis's 55 decks "
        f"(at most 16 creatures, more than 12 non-land cards)"
    )
    print(f"{'deck':>8} {'thesis %':>9} {'ours %':>8}")
    for deck in result.decks:
        if result.mix[deck] > 1e-9 or deck in TABLE_3_4:
            print(f"{deck:>8} {TABLE_3_4.get(deck, 0):9d} {100 * result.mix[deck]:8.1f}")
    print(f"{'value':>8} {'':>9} {result.value:8.4f}")


if __name__ == "__main__":
    run_script(main, report)
