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

    python scripts/esche_3_2_std.py --games 200 --repeats 5 --evaluation life --life-threshold 0 \\
        --rule starting_life=3 --out out/std-life3
    python scripts/esche_3_2_robust.py --std out/std-life3/appendix_b_std.csv
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from esche_appendix_b import add_game_arguments, game_setup, thesis_matrix
from gamelp.cli.args import OneLineParser, run_script
from gamelp.games.mtg.sweep import run_sweep
from gamelp.matrix import MatrixGame

THESIS_MEAN, THESIS_MAX = 0.023, 0.078


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


def main(argv=None) -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pair and run (default %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per pair (default %(default)s, the thesis's)")
    add_game_arguments(parser)
    parser.add_argument("--out", required=True, help="directory of the sweep and of std.csv")
    args = parser.parse_args(argv)

    thesis = thesis_matrix()
    decks = list(thesis.row_labels)
    tested = sorted({n for d in decks for n in neighbours(d)}, key=deck_counts)
    rules, settings, execution, game_fn = game_setup(args)
    creatures = sorted({deck_counts(d)[0] for d in tested})
    bolts = sorted({deck_counts(d)[1] for d in tested})
    result = run_sweep(creatures, bolts, games=args.games, repeats=args.repeats, seed=args.seed, settings=settings,
                       out=args.out, execution=execution, game_fn=game_fn)
    print(result.summary())
    measured = result.matrix
    missing = [d for d in tested if d not in measured.row_labels]
    if missing:
        raise SystemExit(f"the sweep lacks the tested decks {', '.join(missing)}")

    std = interpolated_std(measured, decks)
    MatrixGame(std, decks, decks).to_csv(Path(args.out) / "appendix_b_std.csv")  # labelled like Appendix B
    upper = np.triu_indices(len(decks), 1)
    own = [k for k in zip(*upper) if decks[k[0]] in tested and decks[k[1]] in tested]
    at = {label: k for k, label in enumerate(measured.row_labels)}
    rates = np.array([measured.payoffs[at[decks[i]], at[decks[j]]] for i, j in own])
    binomial = np.sqrt(rates * (1 - rates) / args.games)
    print(f"rules changed: {rules or 'none'}; {len(tested)} decks tested ({args.repeats} runs of {args.games} games), "
          f"{len([d for d in decks if d not in tested])} of Appendix B's decks interpolated")
    print(f"{'standard deviation of a win rate':36} {'mean':>7} {'max':>7}")
    print(f"{'thesis (Section 3.2)':36} {THESIS_MEAN:7.1%} {THESIS_MAX:7.1%}")
    print(f"{'ours, all 33 decks (interpolated)':36} {std[upper].mean():7.1%} {std[upper].max():7.1%}")
    print(f"{'ours, the tested decks only':36} {np.mean([std[k] for k in own]):7.1%} "
          f"{np.max([std[k] for k in own]):7.1%}")
    print(f"{'binomial, seat-independent games':36} {binomial.mean():7.1%} {binomial.max():7.1%}")
    print(f"wrote {Path(args.out) / 'appendix_b_std.csv'} (for esche_3_2_robust.py --std)")
    return 0


if __name__ == "__main__":
    run_script(main)
