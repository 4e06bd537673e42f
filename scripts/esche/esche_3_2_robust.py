"""Thesis Section 3.2, Table 3.5: robust deck mixes for interval and ellipsoidal uncertainty, R = 2 and 3.

The thesis's standard deviations are not published (mean 2.3%, max 7.8%).
They are read from ``--std`` (a CSV with the payoffs' labels) when given;
otherwise each win rate's binomial standard error sqrt(c (1 - c) / n) from
n = 200 games is used, which the output says.  The thesis removed the decks
dominated under the nominal payoffs first (the 16 decks of Table 3.5
remain); dominance under the estimate need not hold across the uncertainty
set, so here only decks dominated in every matrix of the largest set
(R = 3) are removed, and the robust values are those of the full game.  Each
cell shows the thesis's percentage and ours; below the table, the value each
LP certifies, the worst case recomputed for the returned mix, and
Mangasarian's verdict for the interval LPs (Section 3.3).
"""

import argparse
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from gamelp.cli.args import OneLineParser, integer, output_directory, run_script
from gamelp.io import write_text
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.robust import solve_robust
from gamelp.models.uniqueness import UniquenessResult, check_uniqueness

RADII = (2.0, 3.0)
COLUMNS = ["No Variation", "|z_ij|<=2", "|z_ij|<=3", "||z||_2<=2", "||z||_2<=3"]
TABLE_3_5 = {  # percent, columns as above
    "0C28L": (0, 0, 0, 2, 3),
    "0C32L": (0, 0, 0, 5, 5),
    "0C36L": (0, 0, 0, 10, 5),
    "0C40L": (20, 51, 46, 18, 15),
    "0C44L": (0, 0, 0, 0, 2),
    "4C24L": (0, 0, 7, 0, 3),
    "4C28L": (0, 0, 0, 6, 8),
    "4C32L": (0, 5, 12, 6, 11),
    "4C36L": (0, 0, 0, 5, 6),
    "4C40L": (0, 15, 14, 1, 3),
    "8C20L": (0, 0, 0, 1, 4),
    "8C24L": (0, 0, 0, 8, 8),
    "8C28L": (40, 17, 17, 13, 11),
    "8C32L": (40, 12, 3, 19, 12),
    "8C36L": (0, 0, 0, 5, 5),
}


@dataclass
class RobustMix:
    """One column of Table 3.5: a (robust) LP's mix, the value it certifies and the recomputed worst case."""

    kind: str  # nominal, interval or ellipsoidal
    radius: float  # R (0 for the nominal LP)
    strategy: dict[str, float]  # deck -> share
    value: float  # the value the LP certifies
    guaranteed_value: float  # the worst case over the uncertainty set, recomputed for the mix
    verdict: UniquenessResult | None  # Mangasarian's test (interval LPs only)


@dataclass
class RobustTable:
    """Table 3.5: the nominal and the four robust mixes of the deck game."""

    deviations: str | None  # the --std CSV, or None for binomial standard errors
    games: int  # games per pair behind the binomial errors
    mean_std: float
    max_std: float
    removed_rows: list | None  # dominated in every matrix of the R = 3 box; None with --no-reduce
    removed_cols: list | None
    decks: list[str]  # the decks left, in table order
    runs: list[RobustMix]  # nominal, interval R = 2, 3, ellipsoidal R = 2, 3
    results_path: Path  # the JSON written


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--payoffs", help="payoff CSV (default: the built-in Appendix B)")
    parser.add_argument("--std", help="CSV of standard deviations (default: binomial standard errors)")
    parser.add_argument("--games", type=integer(1), default=200, help="games per pair for the binomial errors")
    parser.add_argument("--backend", default="highs", help="LP backend for the interval LPs")
    parser.add_argument("--cone-backend", default="cvxpy:CLARABEL", help="backend for the ellipsoidal LPs")
    parser.add_argument("--no-reduce", action="store_true", help="keep every deck")
    parser.add_argument(
        "--out", type=output_directory, default="out", help="directory for the JSON results (default %(default)s)"
    )
    return parser


def main(argv: list[str] | None = None) -> RobustTable:
    args = build_parser().parse_args(argv)

    path = args.payoffs or resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv")
    game = MatrixGame.from_csv(path, std_path=args.std)
    if game.std is None:
        C = game.payoffs
        game = MatrixGame(C, game.row_labels, game.col_labels, std=np.sqrt(C * (1 - C) / args.games))
    mean_std, max_std = float(game.std.mean()), float(game.std.max())
    rows = cols = None
    if not args.no_reduce:
        game, rows, cols = game.reduce_dominated(radius=max(RADII))

    nominal = solve_matrix_nash(game, "row", args.backend)
    runs = [RobustMix("nominal", 0.0, nominal.strategy_dict(), nominal.value, nominal.guaranteed_value, None)]
    for kind, backend in (("interval", args.backend), ("ellipsoidal", args.cone_backend)):
        for radius in RADII:
            result = solve_robust(game, kind, radius, backend=backend)
            verdict = check_uniqueness(result.model, result.solution) if kind == "interval" else None
            runs.append(
                RobustMix(
                    kind,
                    radius,
                    dict(zip(game.row_labels, result.strategy.tolist())),
                    result.value,
                    result.guaranteed_value,
                    verdict,
                )
            )

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    payload = [
        {
            "kind": run.kind,
            "radius": run.radius,
            "value": run.value,
            "guaranteed_value": run.guaranteed_value,
            "strategy": run.strategy,
            "unique": None if run.verdict is None else run.verdict.unique,
        }
        for run in runs
    ]
    results_path = write_text(out / "esche_3_2_robust.json", json.dumps(payload, indent=2))
    return RobustTable(
        deviations=args.std,
        games=args.games,
        mean_std=mean_std,
        max_std=max_std,
        removed_rows=rows,
        removed_cols=cols,
        decks=list(game.row_labels),
        runs=runs,
        results_path=results_path,
    )


def report(result: RobustTable) -> None:
    if result.deviations is None:
        print(
            f"deviations: NOT the thesis's (unpublished); binomial standard errors sqrt(c(1-c)/n), n = {result.games}"
        )
    else:
        print(f"deviations: from {result.deviations}")
    print(f"mean deviation {100 * result.mean_std:.2f}%, max {100 * result.max_std:.2f}% (thesis: mean 2.3%, max 7.8%)")
    if result.removed_rows is not None:
        n = len(result.decks)
        print(
            f"removed {len(result.removed_rows)} rows and {len(result.removed_cols)} columns dominated in every "
            f"matrix of the R = {max(RADII):g} box -> {n}x{n}"
        )

    print("\nTable 3.5: optimum strategies for eight creatures (percent), thesis / ours")
    print(f"{'Deck':>7} " + " ".join(f"{name:>14}" for name in COLUMNS))
    for label in result.decks:
        thesis = TABLE_3_5.get(label, (0,) * 5)
        ours = [100 * run.strategy[label] for run in result.runs]
        if max(ours) < 0.05 and max(thesis) == 0:
            continue
        print(f"{label:>7} " + " ".join(f"{t:>6d} / {o:5.1f}" for t, o in zip(thesis, ours)))
    print(f"{'value':>7} " + " ".join(f"{'':>6}   {run.value:.3f}" for run in result.runs))
    print(f"{'worst':>7} " + " ".join(f"{'':>6}   {run.guaranteed_value:.3f}" for run in result.runs))

    print("\nMangasarian's test on the interval LPs (thesis: unique, smallest dual about 5e-5 at R = 3):")
    for run in result.runs:
        verdict = run.verdict
        if verdict is not None:
            print(
                f"  R = {run.radius:g}: unique = {verdict.unique}, K = {len(verdict.K)}, L = {len(verdict.L)}, "
                f"rank {verdict.rank}/{verdict.num_variables}, smallest positive dual "
                f"{verdict.smallest_positive_dual:.3g}, largest zero dual {verdict.largest_zero_dual}"
            )
    print(f"\nwrote {result.results_path}")


if __name__ == "__main__":
    run_script(main, report)
