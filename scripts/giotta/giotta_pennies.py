"""Matching pennies (Giotta 2020, section 2.1): step adjustment, MWU/OMWU self-play, fixed-weight scores.

The experiments are :func:`gamelp.games.pennies.run_experiments`'s, as for rock-paper-scissors
(giotta_rps.py); this script picks what its figures show (P(heads) of both players) and what it prints.

Writes into --out:
  pennies_weights.png    P(heads) over plays of one step-adjustment run (the paper's Figure 1)
                         and the mean of --runs runs
  pennies_regret.png     P(heads) of the MWU and OMWU self-play iterates from the same start
  pennies_scores.png     score histograms for fixed weights (A favoured, B favoured, equilibrium)
  pennies.json           the numbers printed

    python scripts/giotta/giotta_pennies.py
    python scripts/giotta/giotta_pennies.py --plays 5000 --runs 1000 --seed 3
"""

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.cli.args import OneLineParser, finite_float, integer, output_directory, run_script
from gamelp.games import pennies
from gamelp.games.pennies import PENNIES
from gamelp.io import write_text
from gamelp.regret.simplex import DEFAULT_ETA

FIXED_PAIRS = {
    "favours A": ((0.7, 0.3), (0.6, 0.4)),
    "favours B": ((0.7, 0.3), (0.3, 0.7)),
    "equilibrium": ((0.5, 0.5), (0.5, 0.5)),
}


@dataclass
class Pennies:
    """The figures of pennies.json: the step rule's runs, the MWU/OMWU iterates and each fixed-weight match."""

    plays: int
    runs: int
    games: int
    step_rule: dict[str, float | None]  # final_mean_heads_A/B, mean_abs_dev_A/B_after_1000 (None under 1000 plays)
    regret: dict[str, float]  # mwu_last_heads_A, omwu_last_heads_A, mwu_average_heads_A
    fixed_weights: dict[str, dict]  # per pair: A, B, expected_A, expected_B, mean_A, mean_B
    out: Path


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plays", type=integer(1), default=2000, help="plays per run (default: 2000)")
    parser.add_argument("--window", type=integer(1), default=20, help="plays between adjustments (default: 20)")
    parser.add_argument("--cutoff", type=integer(0), default=4, help="losing margin that triggers a step (default: 4)")
    parser.add_argument("--step", type=finite_float(0.0, strict=True), default=0.05, help="weight step (default: 0.05)")
    parser.add_argument("--runs", type=integer(1), default=500, help="independent runs for the mean (default: 500)")
    parser.add_argument(
        "--eta",
        type=finite_float(0.0, strict=True),
        default=DEFAULT_ETA,
        help="MWU/OMWU step size (default: %(default)s)",
    )
    parser.add_argument("--games", type=integer(1), default=1000, help="games per fixed-weight match (default: 1000)")
    parser.add_argument("--reps", type=integer(1), default=1000, help="fixed-weight matches (default: 1000)")
    parser.add_argument("--seed", type=integer(0), default=0, help="seed of the plays and runs (default %(default)s)")
    parser.add_argument("--out", type=output_directory, default="out", help="output directory (default: out/)")
    return parser


def main(argv: list[str] | None = None) -> Pennies:
    args = build_parser().parse_args(argv)
    options = vars(args).copy()  # the options but --out are run_experiments' parameters, the step rule's too
    out = Path(options.pop("out"))
    start_a, start_b = pennies.PAPER_START_A, pennies.PAPER_START_B
    run = pennies.run_experiments(PENNIES, start_a, start_b, FIXED_PAIRS, match_seed=args.seed + 1, **options)
    step = run.step
    heads_a, heads_b = step.weights_a[..., 0], step.weights_b[..., 0]  # P(heads): the first action's weight
    (mwu_x, mwu_y), (omwu_x, omwu_y) = run.mwu, run.omwu
    iters = np.arange(args.plays)
    run.plot(
        out,
        "pennies",
        ylabel="P(heads)",
        step_title="A (match) starts tails, B (mismatch) starts heads",
        step_series={
            "step rule, A (one run)": (step.plays, heads_a[0]),
            "step rule, B (one run)": (step.plays, heads_b[0]),
            f"step rule, A (mean of {args.runs})": (step.plays, heads_a.mean(axis=0)),
            f"step rule, B (mean of {args.runs})": (step.plays, heads_b.mean(axis=0)),
        },
        regret_series={
            "MWU, A": (iters, mwu_x[:, 0]),
            "MWU, B": (iters, mwu_y[:, 0]),
            "OMWU, A": (iters, omwu_x[:, 0]),
            "OMWU, B": (iters, omwu_y[:, 0]),
        },
    )
    late = step.plays >= 1000
    summary = {
        "step_rule": {
            "plays": args.plays,
            "runs": args.runs,
            "mean_abs_dev_A_after_1000": float(np.abs(heads_a[:, late] - 0.5).mean()) if late.any() else None,
            "mean_abs_dev_B_after_1000": float(np.abs(heads_b[:, late] - 0.5).mean()) if late.any() else None,
            "final_mean_heads_A": float(heads_a[:, -1].mean()),
            "final_mean_heads_B": float(heads_b[:, -1].mean()),
        },
        "regret": {
            "mwu_last_heads_A": float(mwu_x[-1, 0]),
            "omwu_last_heads_A": float(omwu_x[-1, 0]),
            "mwu_average_heads_A": float(mwu_x[:, 0].mean()),
        },
        # the matches without their spread, which this script does not print
        "fixed_weights": {
            label: {key: value for key, value in match.items() if not key.startswith("sd_")}
            for label, match in run.matches.items()
        },
    }
    write_text(out / "pennies.json", json.dumps({"args": vars(args), **summary}, indent=2))
    return Pennies(
        args.plays, args.runs, args.games, summary["step_rule"], summary["regret"], summary["fixed_weights"], out
    )


def report(result: Pennies) -> None:
    print("paper: both players start pure and opposite and settle near P(heads) = 0.5 after about 1000 plays")
    s = result.step_rule
    print(
        f"ours : step rule, {result.runs} runs: final mean P(heads) A {s['final_mean_heads_A']:.3f}, "
        f"B {s['final_mean_heads_B']:.3f}; mean |P(heads) - 0.5| after 1000 plays: "
        f"A {s['mean_abs_dev_A_after_1000']}, B {s['mean_abs_dev_B_after_1000']}"
    )
    r = result.regret
    print(
        f"       MWU last iterate P(heads) A {r['mwu_last_heads_A']:.3f} (average {r['mwu_average_heads_A']:.3f}),"
        f" OMWU last iterate {r['omwu_last_heads_A']:.3f}"
    )
    for label, pair in result.fixed_weights.items():
        print(
            f"fixed {label:12s}: A wins {pair['mean_A']:7.1f} (expected {pair['expected_A']:6.1f}), "
            f"B wins {pair['mean_B']:7.1f} (expected {pair['expected_B']:6.1f})"
        )
    print(f"wrote pennies_weights.png, pennies_regret.png, pennies_scores.png, pennies.json into {result.out}")


if __name__ == "__main__":
    run_script(main, report)
