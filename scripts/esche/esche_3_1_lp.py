"""Thesis Section 3.1 / 3.3: the optimal deck mix of Appendix B and Mangasarian's uniqueness verdict.

Solves the 33 x 33 deck game (decks with at most 8 Vexing Devils) in the
thesis's LP form min e^T x s.t. C^T x >= e, x >= 0 and in the general form,
prints the mix beside the thesis's (0C40L 20%, 8C28L 40%, 8C32L 40%, value
0.5) and runs the uniqueness test on the full matrix as Section 3.3 does.
"""

from __future__ import annotations

import argparse
import json
from importlib import resources
from pathlib import Path

from gamelp.cli.args import run_script
from gamelp.backends import DEFAULT_BACKEND
from gamelp.matrix import MatrixGame
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.uniqueness import check_uniqueness

THESIS_MIX = {"0C40L": 0.20, "8C28L": 0.40, "8C32L": 0.40}
THESIS_VALUE = 0.5


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--payoffs", help="payoff CSV (default: the built-in Appendix B)")
    parser.add_argument("--backend", default=DEFAULT_BACKEND, help="LP backend (default %(default)s)")
    parser.add_argument("--tolerance", type=float, default=1e-7, help="duals at or below count as zero")
    parser.add_argument("--out", default="out", help="directory for the JSON summary (default %(default)s)")
    args = parser.parse_args(argv)

    appendix_b = resources.files("gamelp.games").joinpath("data", "esche_8c_payoffs.csv")
    path = args.payoffs or appendix_b
    game = MatrixGame.from_csv(path)
    decks = MatrixGame.from_csv(appendix_b).row_labels
    extra = [d for d in game.row_labels if d not in decks]
    if extra and set(decks) <= set(game.row_labels):  # a sweep grid holding Appendix B's decks and more
        at = {d: k for k, d in enumerate(game.row_labels)}
        game = game.submatrix([at[d] for d in decks], [at[d] for d in decks])
        print(f"kept Appendix B's {len(decks)} decks; left out {', '.join(extra)}")
    reduced, removed_rows, removed_cols = game.reduce_dominated()
    print(f"payoff matrix {game.shape[0]}x{game.shape[1]} from {path}")
    print(f"strictly dominated: {len(removed_rows)} rows, {len(removed_cols)} columns removed "
          f"-> {reduced.shape[0]}x{reduced.shape[1]}")

    thesis = solve_matrix_nash(game, "row", args.backend, form="thesis")
    general = solve_matrix_nash(reduced, "row", args.backend, form="general")
    mix, reduced_mix = thesis.strategy_dict(), general.strategy_dict()
    print(f"\n{'deck':>8}  {'thesis':>7}  {'ours (thesis LP, 33x33)':>24}  {'ours (general LP, reduced)':>27}")
    for label in game.row_labels:
        ours, other = mix[label], reduced_mix.get(label, 0.0)
        if ours > 1e-9 or other > 1e-9 or label in THESIS_MIX:
            print(f"{label:>8}  {100 * THESIS_MIX.get(label, 0):6.1f}%  {100 * ours:23.4f}%  {100 * other:26.4f}%")
    print(f"{'value':>8}  {THESIS_VALUE:7.4f}  {thesis.value:24.10f}  {general.value:27.10f}")

    verdict = check_uniqueness(thesis.model, thesis.solution, tolerance=args.tolerance, backend=args.backend)
    print("\nMangasarian's test on the thesis LP (Section 3.3):")
    print("  thesis: C^T x = 1 in 3 columns, x = 0 in 30 rows, all duals positive; C_K 33x33 of rank 33: unique")
    print("  ours:   " + verdict.summary().replace("\n", "\n          "))

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {"value": thesis.value, "strategy": mix, "general_value": general.value,
               "removed": {"rows": removed_rows, "columns": removed_cols}, **verdict.to_dict()}
    (out / "esche_3_1_lp.json").write_text(json.dumps(summary, indent=2, default=float))
    print(f"\nwrote {out / 'esche_3_1_lp.json'}")
    return 0


if __name__ == "__main__":
    run_script(main)
