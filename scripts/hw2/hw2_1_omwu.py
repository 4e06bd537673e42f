"""Homework 2, problem 1: MWU against optimistic MWU (OMWU) in self-play on matrix games.

For rock-paper-superscissors ([[0,-1,1],[1,0,-2],[-1,2,0]], equilibrium
(1/2, 1/4, 1/4) for both players, value 0) and a random game (payoffs
uniform in [-1, 1]), both
players run MWU or OMWU (predictive FTRL with negative entropy, step eta).
The script plots

* player 1's regret R^T against the bound of Problem 1.8,
  log(n)/eta + eta sum_t ||l^t - m^t||_inf^2 - 1/(4 eta) sum_{t>=2} ||x^t - x^{t-1}||_1^2
  (m^t = 0 for MWU, m^t = l^{t-1} for OMWU);
* the saddle-point gap of the last iterate and of the average: OMWU's last
  iterate converges, MWU's cycles (only its average converges);
* player 1's weights over time on rock-paper-superscissors.

    python scripts/hw2/hw2_1_omwu.py                    # T = 5000, eta = 0.2, plots in out/
    python scripts/hw2/hw2_1_omwu.py --iterations 20000 --eta 0.1 --size 10 --seed 3

OMWU's last-iterate convergence needs a small enough step and can be slow
on random games (its rate depends on the game); on rock-paper-superscissors
it is fast.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from gamelp.cli.args import OneLineParser, finite_float, integer, output_directory, run_script
from gamelp.plots import save_figure
from gamelp.regret import LOCAL_MINIMISERS, self_play_matrix
from gamelp.units import payoff_range

RPSS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -2.0], [-1.0, 2.0, 0.0]])
RPSS_EQUILIBRIUM = np.array([0.5, 0.25, 0.25])
RPSS_NAME = "rock-paper-superscissors"


@dataclass
class SelfPlayRun:
    """One game and method: player 1's final regret and Problem 1.8's bound, and the final saddle-point gaps."""

    game: str
    method: str
    regret: float
    bound: float
    holds: bool  # the regret stayed within the bound after every iteration
    gap_average: float
    gap_last: float


@dataclass
class SelfPlay:
    """The figures of the script: each run, and OMWU's last iterate on rock-paper-superscissors."""

    iterations: int
    eta: float
    runs: list[SelfPlayRun]
    rpss_value: float
    rpss_last_x: list[float]
    rpss_last_y: list[float]
    plots: list[Path]


def regret_and_bound(result, M, eta: float, optimistic: bool) -> tuple[np.ndarray, np.ndarray]:
    """Player 1's regret R^t and the right-hand side of Problem 1.8 after every iteration t."""
    utilities = result.ys @ M.T  # l^t = M y^t, one row per iteration
    predictions = np.vstack([np.zeros(M.shape[0]), utilities[:-1]]) if optimistic else 0.0 * utilities
    regret = utilities.cumsum(axis=0).max(axis=1) - np.cumsum((result.xs * utilities).sum(axis=1))
    errors = np.cumsum(np.abs(utilities - predictions).max(axis=1) ** 2)
    moves = np.r_[0.0, np.cumsum(np.abs(np.diff(result.xs, axis=0)).sum(axis=1) ** 2)]
    return regret, np.log(M.shape[0]) / eta + eta * errors - moves / (4 * eta)


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=integer(1), default=5000, help="self-play iterations T (default: 5000)")
    parser.add_argument(
        "--eta", type=finite_float(0.0, strict=True), default=0.2, help="step size of both players (default: 0.2)"
    )
    parser.add_argument("--size", type=integer(1, 10**4), default=5, help="the random game is size x size (default: 5)")
    parser.add_argument("--seed", type=integer(0), default=0, help="seed of the random game (default: 0)")
    parser.add_argument("--out", type=output_directory, default="out", help="directory for the plots (default: out/)")
    return parser


def main(argv: list[str] | None = None) -> SelfPlay:
    args = build_parser().parse_args(argv)
    games = {
        RPSS_NAME: RPSS,
        f"random {args.size}x{args.size} (seed {args.seed})": np.random.default_rng(args.seed).uniform(
            -1.0, 1.0, size=(args.size, args.size)
        ),
    }
    out = Path(args.out)
    fig = Figure(figsize=(6 * len(games), 8))
    axes = fig.subplots(2, len(games), squeeze=False)
    rpss_runs = {}
    runs = []
    for col, (name, M) in enumerate(games.items()):
        for method, style in (("mwu", "tab:blue"), ("omwu", "tab:red")):
            # The homework's eta is in payoff units; gamelp's is relative to the payoff range.
            result = self_play_matrix(M, method, args.iterations, eta=args.eta * payoff_range(M))
            iters = np.arange(1, args.iterations + 1)  # after the run, which refuses a length memory cannot hold
            regret, bound = regret_and_bound(result, M, args.eta, optimistic=LOCAL_MINIMISERS[method].predictive)
            if col == 0:
                rpss_runs[method] = result
            runs.append(
                SelfPlayRun(
                    name,
                    method,
                    float(regret[-1]),
                    float(bound[-1]),
                    bool(np.all(regret <= bound + 1e-9)),
                    float(result.gap),
                    float(result.last_gaps[-1]),
                )
            )
            axes[0, col].plot(iters, regret, color=style, label=f"{method.upper()} regret")
            axes[0, col].plot(iters, bound, color=style, ls="--", label=f"{method.upper()} bound (Problem 1.8)")
            axes[1, col].semilogy(iters, result.last_gaps, color=style, label=f"{method.upper()} last iterate")
            axes[1, col].semilogy(iters, result.gaps, color=style, ls=":", label=f"{method.upper()} average")
        axes[0, col].set(title=f"{name}: player 1 regret", xlabel="iteration t", ylabel="R^t")
        axes[0, col].set_yscale("symlog", linthresh=1.0)
        axes[1, col].set(title=f"{name}: saddle-point gap", xlabel="iteration t", ylabel="gap")
        for ax in axes[:, col]:
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
    plots = [save_figure(fig, out / "hw2_1_regret_and_gap.png")]

    fig = Figure(figsize=(12, 4))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (method, result) in zip(axes, rpss_runs.items()):
        for i, action in enumerate(("rock", "paper", "superscissors")):
            ax.plot(iters, result.xs[:, i], label=action)
            ax.axhline(RPSS_EQUILIBRIUM[i], color=f"C{i}", ls=":", lw=0.8)
        ax.set(
            title=f"{method.upper()} on rock-paper-superscissors: player 1's last iterate",
            xlabel="iteration t",
            ylabel="probability",
        )
        ax.grid(alpha=0.3)
        ax.legend()
    plots.append(save_figure(fig, out / "hw2_1_rpss_weights.png"))

    omwu = rpss_runs["omwu"]
    return SelfPlay(
        args.iterations,
        args.eta,
        runs,
        float(omwu.value),
        [float(p) for p in omwu.last_x],
        [float(p) for p in omwu.last_y],
        plots,
    )


def report(result: SelfPlay) -> None:
    print(f"T = {result.iterations}, eta = {result.eta}")
    print(
        f"{'game':<34} {'method':<5} {'regret R^T':>11} {'bound':>10} {'holds':>6} {'gap(avg)':>10} {'gap(last)':>10}"
    )
    for run in result.runs:
        print(
            f"{run.game:<34} {run.method:<5} {run.regret:>11.4f} {run.bound:>10.3f} {run.holds!s:>6} "
            f"{run.gap_average:>10.2e} {run.gap_last:>10.2e}"
        )
    print(
        f"rock-paper-superscissors equilibrium (the homework: value 0, x = y = (1/2, 1/4, 1/4)); ours: value "
        f"{result.rpss_value:+.2e}, OMWU last x = {np.round(result.rpss_last_x, 4).tolist()}, "
        f"last y = {np.round(result.rpss_last_y, 4).tolist()}"
    )
    print(f"plots: {', '.join(map(str, result.plots))}")


if __name__ == "__main__":
    run_script(main, report)
