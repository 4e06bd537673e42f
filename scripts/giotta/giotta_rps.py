"""Rock-paper-scissors (Giotta 2020, section 2.2): fixed-weight score distributions, step rule, MWU/OMWU.

The experiments are :func:`gamelp.games.pennies.run_experiments`'s, as for matching pennies
(giotta_pennies.py); this script picks what its figures show (A's weights) and what it prints.

Writes into --out:
  rps_scores.png     score histograms of the paper's Figure 2 (weights favouring A, favouring B, equal)
  rps_weights.png    A's weights over plays under the step rule (mean of --runs runs)
  rps_regret.png     A's weights of the MWU and OMWU self-play iterates from the same start
  rps.json           the numbers printed

    python scripts/giotta/giotta_rps.py
    python scripts/giotta/giotta_rps.py --games 1000 --reps 5000 --plays 8000
"""

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.cli.args import OneLineParser, finite_float, integer, output_directory, run_script
from gamelp.games import pennies, rps
from gamelp.games.rps import RPS
from gamelp.io import write_text
from gamelp.regret.simplex import DEFAULT_ETA

PAPER_TABLE4 = {
    "ScoreA": [335, 363, 394, 344, 358, 363, 356, 367, 362, 365],
    "ScoreB": [252, 232, 223, 255, 242, 253, 233, 229, 232, 232],
}
"""The first ten repetitions of the paper's Table 4 (A [0.2, 0.6, 0.2] vs B [0.4, 0.5, 0.1])."""


@dataclass
class RockPaperScissors:
    """The figures of rps.json: each fixed-weight match, the step rule's final weights, the MWU/OMWU iterates."""

    games: int
    reps: int
    plays: int
    runs: int
    fixed_weights: dict[str, dict]  # per pair: A, B, expected_A, expected_B, mean_A, sd_A, mean_B, sd_B
    paper_table4: tuple[float, float]  # the means of the paper's Table 4 rows (A, B)
    step_rule: dict  # final_mean_weights_A, final_mean_abs_dev_A
    regret: dict[str, list[float]]  # mwu_last_A, omwu_last_A
    out: Path


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=integer(1), default=1000, help="games per match (default: 1000)")
    parser.add_argument("--reps", type=integer(1), default=1000, help="matches per weight pair (default: 1000)")
    parser.add_argument("--plays", type=integer(1), default=6000, help="plays of the step rule (default: 6000)")
    parser.add_argument("--runs", type=integer(1), default=300, help="step-rule runs to average (default: 300)")
    parser.add_argument(
        "--eta",
        type=finite_float(0.0, strict=True),
        default=DEFAULT_ETA,
        help="MWU/OMWU step size (default: %(default)s)",
    )
    parser.add_argument("--seed", type=integer(0), default=0, help="seed of the plays and runs (default %(default)s)")
    parser.add_argument("--out", type=output_directory, default="out", help="output directory (default: out/)")
    return parser


def main(argv: list[str] | None = None) -> RockPaperScissors:
    args = build_parser().parse_args(argv)
    options = vars(args).copy()  # the options but --out are run_experiments' parameters
    out = Path(options.pop("out"))
    run = pennies.run_experiments(RPS, rps.PAPER_START_A, rps.PAPER_START_B, rps.FIGURE2_PAIRS, **options)
    step, mwu_x, omwu_x = run.step, run.mwu[0], run.omwu[0]
    iters = np.arange(args.plays)
    run.plot(
        out,
        "rps",
        ylabel="A's weight",
        step_title="A starts Rock, B starts Paper",
        step_series={
            f"step rule mean, P({name})": (step.plays, step.weights_a[:, :, k].mean(axis=0))
            for k, name in enumerate(RPS.labels)
        },
        regret_series={
            f"{method}, P({name})": (iters, xs[:, k])
            for method, xs in (("MWU", mwu_x), ("OMWU", omwu_x))
            for k, name in enumerate(RPS.labels)
        },
    )
    paper = (float(np.mean(PAPER_TABLE4["ScoreA"])), float(np.mean(PAPER_TABLE4["ScoreB"])))
    summary = {
        "fixed_weights": run.matches,
        "step_rule": {
            "final_mean_weights_A": step.weights_a[:, -1].mean(axis=0).tolist(),
            "final_mean_abs_dev_A": float(np.abs(step.weights_a[:, -1] - 1 / 3).mean()),
        },
        "regret": {"mwu_last_A": mwu_x[-1].tolist(), "omwu_last_A": omwu_x[-1].tolist()},
    }
    write_text(out / "rps.json", json.dumps({"args": vars(args), **summary}, indent=2))
    return RockPaperScissors(
        args.games,
        args.reps,
        args.plays,
        args.runs,
        summary["fixed_weights"],
        paper,
        summary["step_rule"],
        summary["regret"],
        out,
    )


def report(result: RockPaperScissors) -> None:
    for label, pair in result.fixed_weights.items():
        print(
            f"{label:12s}: A wins {pair['mean_A']:6.1f} +- {pair['sd_A']:4.1f} (expected {pair['expected_A']:6.1f}), "
            f"B wins {pair['mean_B']:6.1f} +- {pair['sd_B']:4.1f} (expected {pair['expected_B']:6.1f})"
        )
    paper_a, paper_b = result.paper_table4
    print(f"paper (Table 4, first 10 of 1000 matches, favours A): A {paper_a:.1f}, B {paper_b:.1f}")
    rule, regret = result.step_rule, result.regret
    print(
        f"step rule after {result.plays} plays ({result.runs} runs): mean A weights "
        f"{np.round(rule['final_mean_weights_A'], 3).tolist()}, mean |w - 1/3| {rule['final_mean_abs_dev_A']:.3f}"
    )
    print(
        f"MWU last iterate A {np.round(regret['mwu_last_A'], 3).tolist()}, "
        f"OMWU {np.round(regret['omwu_last_A'], 3).tolist()}"
    )
    print(f"wrote rps_scores.png, rps_weights.png, rps_regret.png, rps.json into {result.out}")


if __name__ == "__main__":
    run_script(main, report)
