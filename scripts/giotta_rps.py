"""Rock-paper-scissors (Giotta 2020, section 2.2): fixed-weight score distributions, step rule, MWU/OMWU.

Writes into --out:
  rps_scores.png     score histograms of the paper's Figure 2 (weights favouring A, favouring B, equal)
  rps_weights.png    A's weights over plays under the step rule (mean of --runs runs)
  rps_regret.png     A's weights of the MWU and OMWU self-play iterates from the same start
  rps.json           the numbers printed

    python scripts/giotta_rps.py
    python scripts/giotta_rps.py --games 1000 --reps 5000 --plays 8000
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from gamelp.games import pennies, rps
from gamelp.games.rps import RPS

PAPER_TABLE4 = {"ScoreA": [335, 363, 394, 344, 358, 363, 356, 367, 362, 365],
                "ScoreB": [252, 232, 223, 255, 242, 253, 233, 229, 232, 232]}
"""The first ten repetitions of the paper's Table 4 (A [0.2, 0.6, 0.2] vs B [0.4, 0.5, 0.1])."""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per match (default: 1000)")
    parser.add_argument("--reps", type=int, default=1000, help="matches per weight pair (default: 1000)")
    parser.add_argument("--plays", type=int, default=6000, help="plays of the step rule (default: 6000)")
    parser.add_argument("--runs", type=int, default=300, help="step-rule runs to average (default: 300)")
    parser.add_argument("--eta", type=float, default=0.1, help="MWU/OMWU step size (default: 0.1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="out", help="output directory (default: out/)")
    args = parser.parse_args(argv)
    out = Path(args.out)

    summary = {"fixed_weights": {}}
    panels = []
    for i, (label, (wa, wb)) in enumerate(rps.FIGURE2_PAIRS.items()):
        a, b = RPS.score_distributions(wa, wb, args.games, args.reps, seed=args.seed + i)
        p_a, p_b = RPS.expected_scores(wa, wb)
        caption = f"{label}: A {np.round(wa, 2).tolist()} vs B {np.round(wb, 2).tolist()}"
        panels.append((caption, a, b))
        summary["fixed_weights"][label] = {
            "A": list(wa), "B": list(wb), "expected_A": args.games * p_a, "expected_B": args.games * p_b,
            "mean_A": float(a.mean()), "sd_A": float(a.std()), "mean_B": float(b.mean()), "sd_B": float(b.std())}
        print(f"{label:12s}: A wins {a.mean():6.1f} +- {a.std():4.1f} (expected {args.games * p_a:6.1f}), "
              f"B wins {b.mean():6.1f} +- {b.std():4.1f} (expected {args.games * p_b:6.1f})")
    paper_a, paper_b = np.mean(PAPER_TABLE4["ScoreA"]), np.mean(PAPER_TABLE4["ScoreB"])
    print(f"paper (Table 4, first 10 of 1000 matches, favours A): A {paper_a:.1f}, B {paper_b:.1f}")
    pennies.plot_score_histograms(panels, out / "rps_scores.png",
                                  f"Rock-paper-scissors: games won out of {args.games}, {args.reps} matches")

    run = RPS.step_adjustment(rps.PAPER_START_A, rps.PAPER_START_B, n_plays=args.plays,
                              n_runs=args.runs, seed=args.seed)
    mwu_x, _ = RPS.regret_dynamics(rps.PAPER_START_A, rps.PAPER_START_B, "mwu", args.plays, eta=args.eta)
    omwu_x, _ = RPS.regret_dynamics(rps.PAPER_START_A, rps.PAPER_START_B, "omwu", args.plays, eta=args.eta)
    iters = np.arange(args.plays)
    series = {}
    for k, name in enumerate(RPS.labels):
        series[f"step rule mean, P({name})"] = (run.plays, run.weights_a[:, :, k].mean(axis=0))
    pennies.plot_weights(series, out / "rps_weights.png", "A's weight",
                         "Rock-paper-scissors, step rule: A starts Rock, B starts Paper", equilibrium=1 / 3)
    pennies.plot_weights({f"{method}, P({name})": (iters, xs[:, k])
                          for method, xs in (("MWU", mwu_x), ("OMWU", omwu_x))
                          for k, name in enumerate(RPS.labels)},
                         out / "rps_regret.png", "A's weight",
                         f"Rock-paper-scissors, MWU / OMWU self-play (eta = {args.eta}), same start",
                         equilibrium=1 / 3)
    dev = np.abs(run.weights_a[:, -1] - 1 / 3).mean()
    summary["step_rule"] = {"final_mean_weights_A": run.weights_a[:, -1].mean(axis=0).tolist(),
                            "final_mean_abs_dev_A": float(dev)}
    summary["regret"] = {"mwu_last_A": mwu_x[-1].tolist(), "omwu_last_A": omwu_x[-1].tolist()}
    print(f"step rule after {args.plays} plays ({args.runs} runs): mean A weights "
          f"{np.round(run.weights_a[:, -1].mean(axis=0), 3).tolist()}, mean |w - 1/3| {dev:.3f}")
    print(f"MWU last iterate A {np.round(mwu_x[-1], 3).tolist()}, OMWU {np.round(omwu_x[-1], 3).tolist()}")
    (out / "rps.json").write_text(json.dumps({"args": vars(args), **summary}, indent=2))
    print(f"wrote rps_scores.png, rps_weights.png, rps_regret.png, rps.json into {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
