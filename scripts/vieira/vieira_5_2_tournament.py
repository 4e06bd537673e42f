"""Vieira (2020), Figure 5.2: round-robin tournaments of the published and learned LOCM drafters, one per battler.

For each battler (max-attack, greedy) every pair of random, max-attack,
coac, closet-ai and icebox, and for max-attack also the shipped learned
drafters (``--learned``, trained with that battler; the greedy table keeps
the thesis's five), plays ``--sets`` sets of ``--matches`` matches,
seats alternating by set, the i-th match of every pair on the same draft
offers and deck shuffles (``gamelp.games.locm.tournament``; the thesis
played 20 sets of 1,000).  Prints each cell of our table beside the
thesis's, with its standard error (from the binomial errors of the two
seats) and the difference in standard errors, marking those beyond 3, and
lists the pairs whose difference exceeds 3 standard errors of the difference
(ours and the thesis's, a binomial error of sqrt(p (1 - p) / 5000): its
20,000 matches per pair hold only 5,000 distinct ones, see
``THESIS_DISTINCT_MATCHES``); then
the Nash mix over the drafters of our matrix and of the thesis's, each with
Mangasarian's uniqueness verdict, and the robust mix of our matrix over an
ellipsoid of 2 standard errors of its cells (Esche (2018), Section 2.4).
Outputs of each tournament go to
``--out/<battler>/`` (resumable: rerun with the same flags to continue).

    python scripts/vieira/vieira_5_2_tournament.py --battlers max-attack --matches 1000 --sets 2
    python scripts/vieira/vieira_5_2_tournament.py --matches 500 --sets 4 --workers 2
"""

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.cli.args import OneLineParser, add_execution_options, execution_from, integer, output_directory, run_script
from gamelp.games.locm.drafters import LEARNED_DRAFTERS, PUBLISHED_DRAFTERS
from gamelp.games.locm.tournament import TournamentResult, run_tournament
from gamelp.io import atomic_write
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.robust import solve_robust
from gamelp.models.uniqueness import check_uniqueness

THESIS_DISTINCT_MATCHES = 5_000
"""Distinct matches behind each pair's cell of Vieira (2020), Figure 5.2, which sets its sampling error.

The thesis's 20,000 matches per pair (Section 5.4) are 10 seeds x 2 seatings x
1,000 games, played by gym-locm's tournament script with ``--concurrency 4``.
That script builds its 4 environments from lambdas that read the loop's seed
variable late, so all 4 get the last one's seed and play the same 250 deals
(draft offers and shuffles): each distinct match is counted 4 times, and the
two seatings of a seed share their deals.  Replaying that procedure on
gym-locm's engine at the thesis's time reproduces the published cells
exactly (e.g. max-attack v coac 51.24, coac v closet-ai 43.12), and so do
our engine, drafters and battler on those same deals
(``gamelp.games.locm.thesis_deals.thesis_cell``); on other deals both
engines give about 48.7 and 45.5 to 46 for these two cells.  With the
random drafter the 4 copies differ in its picks only, so 5,000 is the
conservative count there.
"""

# Vieira (2020), Figure 5.2: win rate (%) of the row drafter, in the figure's order; its learned drafters
# (History, LSTM, Immediate) were trained with the table's battler.
THESIS = {
    "max-attack": (
        ("random", "max-attack", "coac", "closet-ai", "icebox", "history", "lstm", "immediate"),
        [
            [50, 45.83, 45.31, 40.18, 34, 30.11, 24.31, 19.51],
            [54.17, 50, 51.24, 43.54, 37.7, 33.3, 27.08, 20.28],
            [54.7, 48.76, 50, 43.12, 37.96, 34.28, 27.56, 21.54],
            [59.82, 56.46, 56.88, 50, 44.06, 39.5, 31.94, 23.36],
            [66, 62.3, 62.04, 55.94, 50, 44.86, 38.82, 30.04],
            [69.9, 66.7, 65.72, 60.5, 55.14, 50, 42.88, 37.98],
            [75.7, 72.92, 72.44, 68.06, 61.18, 57.12, 50, 43.82],
            [80.49, 79.72, 78.46, 74.14, 67.24, 62.02, 56.18, 50],
        ],
    ),
    "greedy": (
        ("max-attack", "random", "closet-ai", "icebox", "coac", "history", "lstm", "immediate"),
        [
            [50, 41.67, 38.08, 35.86, 28.84, 27.78, 25.76, 18.84],
            [58.34, 50, 45.87, 45.39, 36.73, 36.51, 34.5, 28.06],
            [61.92, 54.14, 50, 49.48, 41.02, 39.82, 37.64, 28.66],
            [64.14, 54.61, 50.52, 50, 43.34, 40, 39.04, 30.16],
            [71.16, 63.27, 58.98, 56.66, 50, 49.1, 47.9, 43.04],
            [72.22, 63.49, 60.18, 60, 50.9, 50, 48.1, 39.2],
            [74.24, 65.51, 62.36, 60.96, 52.1, 51.9, 50, 42.62],
            [81.16, 71.94, 70.32, 68.86, 56.96, 60.8, 57.38, 50],
        ],
    ),
}
LEARNED_BATTLER = "max-attack"
"""The battler the shipped learned drafters were trained with: they join that battler's table only."""
ROBUST_RADIUS = 2.0


def thesis_matrix(battler: str, names: list[str]) -> np.ndarray:
    """The thesis's cells (%) of ``battler``'s table among ``names`` (all in the figure), in that order."""
    order, table = THESIS[battler]
    index = [order.index(name) for name in names]
    return np.array(table, dtype=float)[np.ix_(index, index)]


@dataclass
class NashMix:
    """The row player's Nash mix over the drafters and Mangasarian's uniqueness verdict."""

    value: float
    mix: dict[str, float]
    unique: bool


@dataclass
class RobustMix:
    """The row player's robust mix over an ellipsoid of ``radius`` standard errors of the cells."""

    radius: float
    guaranteed_value: float
    nominal_value: float
    mix: dict[str, float]


@dataclass
class BattlerTable:
    """One battler's tournament beside the thesis's table (rates are of the row drafter)."""

    battler: str
    tournament: TournamentResult  # ours: drafters, matrix.payoffs, seat_pooled_se, seat_rates, matches
    thesis: np.ndarray  # the thesis's cells (%) in the order of tournament.drafters
    per_pair: int
    cells: list[dict]  # see compare()
    nash_ours: NashMix
    nash_thesis: NashMix
    robust_ours: RobustMix
    seconds: float  # for the matches this run played


@dataclass
class Figure52:
    tables: list[BattlerTable]
    workers: int
    out: Path


def _mix(strategy: dict[str, float]) -> str:
    return ", ".join(f"{label} {100 * p:.1f}%" for label, p in strategy.items() if round(100 * p, 1) > 0)


def nash_mix(game: MatrixGame) -> NashMix:
    """The row player's Nash mix of ``game`` and Mangasarian's uniqueness verdict."""
    result = solve_matrix_nash(game, "row")
    verdict = check_uniqueness(result.model, result.solution)
    return NashMix(float(result.value), dict(result.strategy_dict()), bool(verdict.unique))


def nash_line(mix: NashMix) -> str:
    """A Nash mix in one line."""
    unique = "unique" if mix.unique else "NOT unique"
    return f"value {mix.value:.4f}; mix {_mix(mix.mix)}; {unique}"


def robust_mix(game: MatrixGame) -> RobustMix:
    """The row player's robust mix over the ellipsoid of radius ``ROBUST_RADIUS`` in the cells' standard errors
    (Esche (2018), Section 2.4), with the value it guarantees there."""
    result = solve_robust(game, "ellipsoidal", ROBUST_RADIUS)
    return RobustMix(
        ROBUST_RADIUS, float(result.guaranteed_value), float(result.nominal_value), dict(result.strategy_dict())
    )


def robust_line(mix: RobustMix) -> str:
    """A robust mix, with the value it guarantees, in one line."""
    return f"guaranteed value {mix.guaranteed_value:.4f} (nominal {mix.nominal_value:.4f}); mix {_mix(mix.mix)}"


def compare(battler: str, ours, thesis: np.ndarray) -> list[dict]:
    """Every pair (i < j; its mirror cell is 100 minus it, same error): ours, its standard error, the thesis's,
    the difference in standard errors, and our rates from each seat."""
    names = list(ours.drafters)
    se = ours.seat_pooled_se
    cells = []
    for i, row in enumerate(names):
        for j, col in enumerate(names):
            if i < j:
                rate = 100 * ours.matrix.payoffs[i, j]
                p = thesis[i, j] / 100
                thesis_se = 100 * np.sqrt(p * (1 - p) / THESIS_DISTINCT_MATCHES)
                z = in_standard_errors(rate - thesis[i, j], 100 * se[i, j])
                cells.append(
                    {
                        "battler": battler,
                        "row": row,
                        "col": col,
                        "ours": float(rate),
                        "se": float(100 * se[i, j]),
                        "thesis": float(thesis[i, j]),
                        "z": z,
                        "z_both": in_standard_errors(rate - thesis[i, j], float(np.hypot(100 * se[i, j], thesis_se))),
                        "first_seat": float(100 * ours.seat_rates[i, j, 0]),
                        "second_seat": float(100 * ours.seat_rates[i, j, 1]),
                    }
                )
    return cells


def in_standard_errors(difference: float, se: float) -> float | None:
    """``difference / se``; None where the standard error is 0 (a pair whose every match went one way)."""
    return float(difference / se) if se > 0 else None


def print_table(table: BattlerTable) -> None:
    ours, thesis, cells = table.tournament, table.thesis, table.cells
    names = list(ours.drafters)
    print(
        f"\n{table.battler} battler: {ours.matches} matches, {table.per_pair} per pair; "
        "cell = ours (SE) | Vieira (2020) [difference in SE], win rate of the row drafter, %"
    )
    width = 29
    print(" " * 12 + "".join(f"{n:>{width}}" for n in names))
    se = 100 * ours.seat_pooled_se
    for i, row in enumerate(names):
        text = []
        for j in range(len(names)):
            if i == j:
                text.append(f"{'-':>{width}}")
                continue
            rate = 100 * ours.matrix.payoffs[i, j]
            z = in_standard_errors(rate - thesis[i, j], se[i, j])
            mark = "*" if z is not None and abs(z) > 3 else " "
            shown = f"{z:+5.1f}" if z is not None else "  n/a"
            text.append(f"{rate:6.2f} ({se[i, j]:4.2f}) | {thesis[i, j]:5.2f} [{shown}]{mark}".rjust(width))
        print(f"{row:<12}" + "".join(text))
    far = [c for c in cells if c["z"] is not None and abs(c["z"]) > 3]
    print(
        f"* more than 3 standard errors from the thesis: {len(far)} of {len(cells)} pairs"
        + "".join(f"; {c['row']} v {c['col']} {c['ours']:.2f} vs {c['thesis']:.2f}" for c in far)
    )
    both = [c for c in cells if c["z_both"] is not None and abs(c["z_both"]) > 3]
    print(
        f"more than 3 standard errors of the difference (ours and the thesis's): {len(both)} pairs"
        + "".join(f"; {c['row']} v {c['col']} ({c['z_both']:+.1f})" for c in both)
    )
    print(
        "per seat (row drafter first / second), %: "
        + "; ".join(f"{c['row']} v {c['col']} {c['first_seat']:.1f} / {c['second_seat']:.1f}" for c in cells)
    )
    print(f"Nash over drafters, ours:          {nash_line(table.nash_ours)}")
    print(f"Nash over drafters, Vieira (2020): {nash_line(table.nash_thesis)}")
    print(
        f"robust mix, ours (ellipsoidal, R = {table.robust_ours.radius:g} standard errors): "
        f"{robust_line(table.robust_ours)}"
    )


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--battlers", default="max-attack,greedy", help="comma-separated (default: max-attack,greedy)")
    parser.add_argument("--matches", type=integer(1), default=1000, help="matches per set (default: 1000)")
    parser.add_argument(
        "--sets", type=integer(1), default=2, help="sets per pair, an even number: seats alternate (default: 2)"
    )
    parser.add_argument(
        "--learned",
        default=",".join(LEARNED_DRAFTERS),
        help=f"comma-separated shipped learned drafters added to the {LEARNED_BATTLER} table "
        f"(default: {','.join(LEARNED_DRAFTERS)}; '' for none)",
    )
    parser.add_argument("--seed", type=integer(0), default=0, help="tournament seed (default: 0)")
    parser.add_argument(
        "--out", type=output_directory, default="out/vieira_5_2", help="output directory (default: out/vieira_5_2)"
    )
    add_execution_options(parser)
    return parser


def main(argv: list[str] | None = None) -> Figure52:
    parser = build_parser()
    args = parser.parse_args(argv)
    battlers = [b.strip() for b in args.battlers.split(",") if b.strip()]
    unknown = [b for b in battlers if b not in THESIS]
    if unknown:
        parser.error(f"Figure 5.2 has the battlers {', '.join(THESIS)}; got {', '.join(unknown)}")
    learned = [name.strip() for name in args.learned.split(",") if name.strip()]
    if set(learned) - set(LEARNED_DRAFTERS):
        parser.error(f"the shipped learned drafters are {', '.join(LEARNED_DRAFTERS)}; got {args.learned}")
    out = Path(args.out)
    execution = execution_from(args)
    tables = []
    for battler in battlers:
        names = [
            name
            for name in THESIS[battler][0]
            if name in PUBLISHED_DRAFTERS or (battler == LEARNED_BATTLER and name in learned)
        ]
        published = thesis_matrix(battler, names)
        start = time.perf_counter()
        ours = run_tournament(
            names, battler, matches=args.matches, sets=args.sets, seed=args.seed, out=out / battler, execution=execution
        )
        seconds = time.perf_counter() - start
        cells = compare(battler, ours, published)
        errors = MatrixGame(ours.matrix.payoffs, names, names, std=ours.seat_pooled_se)
        tables.append(
            BattlerTable(
                battler,
                ours,
                published,
                args.matches * args.sets,
                cells,
                nash_mix(ours.matrix),
                nash_mix(MatrixGame(published / 100, names, names)),
                robust_mix(errors),
                seconds,
            )
        )
        with atomic_write(out / battler / "figure_5_2.json") as handle:
            json.dump({"args": vars(args), "seconds": seconds, "cells": cells}, handle, indent=2)
    return Figure52(tables, args.workers, out)


def report(result: Figure52) -> None:
    for table in result.tables:
        print_table(table)
        print(f"({table.seconds:.1f} s for the matches this run played, {result.workers} worker(s))")
    print(f"\nwrote each tournament's files and figure_5_2.json in {result.out}/<battler>/")


if __name__ == "__main__":
    run_script(main, report)
