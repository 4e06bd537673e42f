"""Esche (2018), Section 3.2: the standard deviations of the win rates, by the thesis's procedure.

The thesis replayed the pairs among half of its decks (those whose bolt
count is divisible by eight) four more times, took each pair's standard
deviation over the five runs of 200 games, and gave every other deck the mean
deviation of its neighbours with four fewer and four more bolts (same
creature count). It reports a mean deviation of 2.3% and a maximum of 7.8%.

This script does the same: a sweep of the tested decks with ``--repeats``
runs of ``--games`` games (any rule change of ``esche_appendix_b.py run``),
the interpolation to all 33 decks of Appendix B, and the mean and maximum
beside the thesis's. It also prints the binomial deviation
sqrt(c (1 - c) / games) of the same cells, what independent games whose winner
does not depend on the seat would show: a mean deviation below it says the
seats decided games (see ``esche_appendix_b.py seats``). ``--out`` receives
the sweep and ``appendix_b_std.csv`` (Appendix B's 33 decks) for the robust LPs:

    python scripts/esche/esche_3_2_std.py --games 200 --repeats 5 --evaluation life --life-threshold 0 \\
        --rule starting_life=3 --out out/std-life3
    python scripts/esche/esche_3_2_robust.py --std out/std-life3/appendix_b_std.csv
"""

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:  # esche_appendix_b.py beside this script, also when this script is imported by path
    sys.path.insert(0, HERE)
from esche_appendix_b import add_game_arguments, game_setup, thesis_matrix  # noqa: E402

from gamelp.cli.args import OneLineParser, integer, output_directory, run_script  # noqa: E402
from gamelp.games.errors import RunError  # noqa: E402
from gamelp.games.mtg.sweep import BatchResult, run_sweep  # noqa: E402
from gamelp.matrix import MatrixGame  # noqa: E402

THESIS_MEAN, THESIS_MAX = 0.023, 0.078


@dataclass
class Deviations:
    """The win rates' standard deviations by the thesis's procedure, beside the thesis's mean and maximum."""

    rules: dict  # rule changes of the sweep
    games: int  # games per pair and run
    repeats: int  # runs per pair
    tested: list[str]  # the decks played (bolts divisible by eight)
    interpolated: list[str]  # Appendix B's decks whose deviations are their neighbours' mean
    sweep: BatchResult  # the sweep of the tested decks (its matrix holds the measured deviations)
    std: MatrixGame  # the deviations of every pair of Appendix B's 33 decks (as payoffs)
    mean_all: float  # over the pairs of the 33 decks (interpolated)
    max_all: float
    mean_tested: float  # over the pairs of tested decks only
    max_tested: float
    mean_binomial: float  # sqrt(c (1 - c) / games) over the tested pairs
    max_binomial: float
    std_path: Path  # appendix_b_std.csv


def deck_counts(deck: str) -> tuple[int, int]:
    creatures, bolts = deck.split("C")
    return int(creatures), int(bolts.rstrip("L"))


def neighbours(deck: str) -> list[str]:
    """The decks whose deviation stands in for ``deck``'s: itself when tested, else four bolts either side."""
    creatures, bolts = deck_counts(deck)
    if bolts % 8 == 0:
        return [deck]
    return [f"{creatures}C{bolts - 4}L", f"{creatures}C{bolts + 4}L"]


def interpolated_std(measured: MatrixGame, decks: list[str]) -> np.ndarray:
    """The thesis's deviations for every pair of ``decks`` from the tested decks' ``measured`` ones:
    the mean over the neighbours of the row deck and of the column deck (four pairs when neither
    deck was tested)."""
    at = {label: k for k, label in enumerate(measured.row_labels)}
    std = np.zeros((len(decks), len(decks)))
    for i, a in enumerate(decks):
        for j, b in enumerate(decks):
            if i != j:
                std[i, j] = np.mean([measured.std[at[x], at[y]] for x in neighbours(a) for y in neighbours(b)])
    return std


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=integer(1), default=200, help="games per pair and run (default %(default)s)")
    parser.add_argument(
        "--repeats", type=integer(1), default=5, help="runs per pair (default %(default)s, the thesis's)"
    )
    add_game_arguments(parser)
    parser.add_argument("--out", type=output_directory, required=True, help="directory of the sweep and of std.csv")
    return parser


def main(argv: list[str] | None = None) -> Deviations:
    args = build_parser().parse_args(argv)

    thesis = thesis_matrix()
    decks = list(thesis.row_labels)
    tested = sorted({n for d in decks for n in neighbours(d)}, key=deck_counts)
    rules, settings, execution, game_fn = game_setup(args)
    creatures = sorted({deck_counts(d)[0] for d in tested})
    bolts = sorted({deck_counts(d)[1] for d in tested})
    result = run_sweep(
        creatures,
        bolts,
        games=args.games,
        repeats=args.repeats,
        seed=args.seed,
        settings=settings,
        out=args.out,
        execution=execution,
        game_fn=game_fn,
    )
    measured = result.matrix
    missing = [d for d in tested if d not in measured.row_labels]
    if missing:
        raise RunError(f"the sweep lacks the tested decks {', '.join(missing)}")

    std = interpolated_std(measured, decks)
    std_path = Path(args.out) / "appendix_b_std.csv"
    MatrixGame(std, decks, decks).to_csv(std_path)  # labelled like Appendix B
    upper = np.triu_indices(len(decks), 1)
    own = [k for k in zip(*upper) if decks[k[0]] in tested and decks[k[1]] in tested]
    at = {label: k for k, label in enumerate(measured.row_labels)}
    rates = np.array([measured.payoffs[at[decks[i]], at[decks[j]]] for i, j in own])
    binomial = np.sqrt(rates * (1 - rates) / args.games)
    return Deviations(
        rules=rules,
        games=args.games,
        repeats=args.repeats,
        tested=tested,
        interpolated=[d for d in decks if d not in tested],
        sweep=result,
        std=MatrixGame(std, decks, decks),
        mean_all=float(std[upper].mean()),
        max_all=float(std[upper].max()),
        mean_tested=float(np.mean([std[k] for k in own])),
        max_tested=float(np.max([std[k] for k in own])),
        mean_binomial=float(binomial.mean()),
        max_binomial=float(binomial.max()),
        std_path=std_path,
    )


def report(result: Deviations) -> None:
    print(result.sweep.summary())
    print(
        f"rules changed: {result.rules or 'none'}; {len(result.tested)} decks tested ({result.repeats} runs of "
        f"{result.games} games), {len(result.interpolated)} of Appendix B's decks interpolated"
    )
    print(f"{'standard deviation of a win rate':36} {'mean':>7} {'max':>7}")
    print(f"{'thesis (Section 3.2)':36} {THESIS_MEAN:7.1%} {THESIS_MAX:7.1%}")
    print(f"{'ours, all 33 decks (interpolated)':36} {result.mean_all:7.1%} {result.max_all:7.1%}")
    print(f"{'ours, the tested decks only':36} {result.mean_tested:7.1%} {result.max_tested:7.1%}")
    print(f"{'binomial, seat-independent games':36} {result.mean_binomial:7.1%} {result.max_binomial:7.1%}")
    print(f"wrote {result.std_path} (for esche_3_2_robust.py --std)")


if __name__ == "__main__":
    run_script(main, report)
