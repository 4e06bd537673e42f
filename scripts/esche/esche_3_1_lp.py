"""Thesis Section 3.1 / 3.3: the optimal deck mix of Appendix B and Mangasarian's uniqueness verdict.

Solves the 33 x 33 deck game (decks with at most 8 Vexing Devils) in the
thesis's LP form min e^T x s.t. C^T x >= e, x >= 0 and in the general form,
prints the mix beside the thesis's (0C40L 20%, 8C28L 40%, 8C32L 40%, value
0.5) and runs the uniqueness test on the full matrix as Section 3.3 does.
"""

import argparse
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gamelp.backends import DEFAULT_BACKEND
from gamelp.cli.args import BACKEND_HELP, OneLineParser, finite_float, output_directory, run_script
from gamelp.io import write_text
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.uniqueness import UniquenessResult, check_uniqueness

THESIS_MIX = {"0C40L": 0.20, "8C28L": 0.40, "8C32L": 0.40}
THESIS_VALUE = 0.5


@dataclass
class DeckMix:
    """The deck game's optimum by the thesis's LP (full matrix) and the general LP (dominance-reduced)."""

    source: str  # the payoff CSV
    decks: list[str]  # the deck game's decks (Appendix B's), in table order
    left_out: list[str]  # decks of a larger payoff grid not in Appendix B
    shape: tuple[int, int]
    removed_rows: list  # strictly dominated, removed before the general LP
    removed_cols: list
    reduced_shape: tuple[int, int]
    mix: dict[str, float]  # the thesis LP's mix on the full matrix
    value: float
    reduced_mix: dict[str, float]  # the general LP's mix on the reduced matrix
    reduced_value: float
    verdict: UniquenessResult  # Mangasarian's test on the thesis LP
    summary_path: Path  # the JSON summary written


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--payoffs", help="payoff CSV (default: the built-in Appendix B)")
    parser.add_argument("--backend", default=DEFAULT_BACKEND, help=f"LP backend: {BACKEND_HELP}")
    parser.add_argument("--tolerance", type=finite_float(0), default=1e-7, help="duals at or below count as zero")
    parser.add_argument(
        "--out", type=output_directory, default="out", help="directory for the JSON summary (default %(default)s)"
    )
    return parser


def main(argv: list[str] | None = None) -> DeckMix:
    args = build_parser().parse_args(argv)

    appendix_b = resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv")
    path = args.payoffs or appendix_b
    game = MatrixGame.from_csv(path)
    decks = MatrixGame.from_csv(appendix_b).row_labels
    extra = [d for d in game.row_labels if d not in decks]
    left_out = []
    if extra and set(decks) <= set(game.row_labels):  # a sweep grid holding Appendix B's decks and more
        at = {d: k for k, d in enumerate(game.row_labels)}
        game = game.submatrix([at[d] for d in decks], [at[d] for d in decks])
        left_out = extra
    reduced, removed_rows, removed_cols = game.reduce_dominated()

    thesis = solve_matrix_nash(game, "row", args.backend, form="thesis")
    general = solve_matrix_nash(reduced, "row", args.backend, form="general")
    mix, reduced_mix = thesis.strategy_dict(), general.strategy_dict()
    verdict = check_uniqueness(thesis.model, thesis.solution, tolerance=args.tolerance, backend=args.backend)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {
        "value": thesis.value,
        "strategy": mix,
        "general_value": general.value,
        "removed": {"rows": removed_rows, "columns": removed_cols},
        **verdict.to_dict(),
    }
    summary_path = write_text(out / "esche_3_1_lp.json", json.dumps(summary, indent=2, default=float))
    return DeckMix(
        source=str(path),
        decks=list(game.row_labels),
        left_out=left_out,
        shape=game.shape,
        removed_rows=removed_rows,
        removed_cols=removed_cols,
        reduced_shape=reduced.shape,
        mix=mix,
        value=thesis.value,
        reduced_mix=reduced_mix,
        reduced_value=general.value,
        verdict=verdict,
        summary_path=summary_path,
    )


def report(result: DeckMix) -> None:
    if result.left_out:
        print(f"kept Appendix B's {len(result.decks)} decks; left out {', '.join(result.left_out)}")
    print(f"payoff matrix {result.shape[0]}x{result.shape[1]} from {result.source}")
    print(
        f"strictly dominated: {len(result.removed_rows)} rows, {len(result.removed_cols)} columns removed "
        f"-> {result.reduced_shape[0]}x{result.reduced_shape[1]}"
    )
    print(f"\n{'deck':>8}  {'thesis':>7}  {'ours (thesis LP, 33x33)':>24}  {'ours (general LP, reduced)':>27}")
    for label in result.decks:
        ours, other = result.mix[label], result.reduced_mix.get(label, 0.0)
        if ours > 1e-9 or other > 1e-9 or label in THESIS_MIX:
            print(f"{label:>8}  {100 * THESIS_MIX.get(label, 0):6.1f}%  {100 * ours:23.4f}%  {100 * other:26.4f}%")
    print(f"{'value':>8}  {THESIS_VALUE:7.4f}  {result.value:24.10f}  {result.reduced_value:27.10f}")

    print("\nMangasarian's test on the thesis LP (Section 3.3):")
    print("  thesis: C^T x = 1 in 3 columns, x = 0 in 30 rows, all duals positive; C_K 33x33 of rank 33: unique")
    print("  ours:   " + result.verdict.summary().replace("\n", "\n          "))
    print(f"\nwrote {result.summary_path}")


if __name__ == "__main__":
    run_script(main, report)
