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

    python scripts/hw2_1_omwu.py                    # T = 5000, eta = 0.2, plots in out/
    python scripts/hw2_1_omwu.py --iterations 20000 --eta 0.1 --size 10 --seed 3

OMWU's last-iterate convergence needs a small enough step and can be slow
on random games (its rate depends on the game); on rock-paper-superscissors
it is fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from gamelp.regret import self_play_matrix

RPSS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -2.0], [-1.0, 2.0, 0.0]])
RPSS_EQUILIBRIUM = np.array([0.5, 0.25, 0.25])


def regret_and_bound(result, M, eta: float, optimistic: bool) -> tuple[np.ndarray, np.ndarray]:
    """Player 1's regret R^t and the right-hand side of Problem 1.8 after every iteration t."""
    utilities = result.ys @ M.T                      # l^t = M y^t, one row per iteration
    predictions = np.vstack([np.zeros(M.shape[0]), utilities[:-1]]) if optimistic else 0.0 * utilities
    regret = utilities.cumsum(axis=0).max(axis=1) - np.cumsum((result.xs * utilities).sum(axis=1))
    errors = np.cumsum(np.abs(utilities - predictions).max(axis=1) ** 2)
    moves = np.r_[0.0, np.cumsum(np.abs(np.diff(result.xs, axis=0)).sum(axis=1) ** 2)]
    return regret, np.log(M.shape[0]) / eta + eta * errors - moves / (4 * eta)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=5000, help="self-play iterations T (default: 5000)")
    parser.add_argument("--eta", type=float, default=0.2, help="step size of both players (default: 0.2)")
    parser.add_argument("--size", type=int, default=5, help="the random game is size x size (default: 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random game (default: 0)")
    parser.add_argument("--out", default="out", help="directory for the plots (default: out/)")
    args = parser.parse_args(argv)

    games = {"rock-paper-superscissors": RPSS,
             f"random {args.size}x{args.size} (seed {args.seed})":
                 np.random.default_rng(args.seed).uniform(-1.0, 1.0, size=(args.size, args.size))}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    iters = np.arange(1, args.iterations + 1)
    fig, axes = plt.subplots(2, len(games), figsize=(6 * len(games), 8), squeeze=False)
    rpss_runs = {}
    print(f"T = {args.iterations}, eta = {args.eta}")
    print(f"{'game':<34} {'method':<5} {'regret R^T':>11} {'bound':>10} {'holds':>6} {'gap(avg)':>10} "
          f"{'gap(last)':>10}")
    for col, (name, M) in enumerate(games.items()):
        for method, style in (("mwu", "tab:blue"), ("omwu", "tab:red")):
            result = self_play_matrix(M, method, args.iterations, eta=args.eta)
            regret, bound = regret_and_bound(result, M, args.eta, optimistic=method == "omwu")
            if col == 0:
                rpss_runs[method] = result
            holds = bool(np.all(regret <= bound + 1e-9))
            print(f"{name:<34} {method:<5} {regret[-1]:>11.4f} {bound[-1]:>10.3f} {str(holds):>6} "
                  f"{result.gap:>10.2e} {result.last_gaps[-1]:>10.2e}")
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
    fig.tight_layout()
    fig.savefig(out / "hw2_1_regret_and_gap.png", dpi=120)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
    for ax, (method, result) in zip(axes, rpss_runs.items()):
        for i, action in enumerate(("rock", "paper", "superscissors")):
            ax.plot(iters, result.xs[:, i], label=action)
            ax.axhline(RPSS_EQUILIBRIUM[i], color=f"C{i}", ls=":", lw=0.8)
        ax.set(title=f"{method.upper()} on rock-paper-superscissors: player 1's last iterate",
               xlabel="iteration t", ylabel="probability")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "hw2_1_rpss_weights.png", dpi=120)
    plt.close(fig)

    omwu = rpss_runs["omwu"]
    print(f"rock-paper-superscissors equilibrium (seed: value 0, x = y = (1/2, 1/4, 1/4)); ours: value "
          f"{omwu.value:+.2e}, OMWU last x = {np.round(omwu.last_x, 4).tolist()}, "
          f"last y = {np.round(omwu.last_y, 4).tolist()}")
    print(f"plots: {out / 'hw2_1_regret_and_gap.png'}, {out / 'hw2_1_rpss_weights.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
