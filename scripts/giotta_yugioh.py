"""Simplified Yu-Gi-Oh (Giotta 2020, sections 3-6): Table 1 logit, the ADP strategy, Table 2 evaluation.

Simulates the Table 1 data set (A's attack weights over {0.4, ..., 1.0}^3,
B "always" or "half", coin-flip turn order), fits the logit of A's win and
prints it beside the paper's Table 1; derives the ADP strategy (weights in
{0.4, ..., 0.8}^3 maximising the predicted win) for a few hands; simulates
the Table 2 evaluation (A: ADP / half / always, B: half / always) and prints
its logit beside the paper's Table 2.  Writes into --out:
  yugioh_table1.csv, yugioh_table2.csv   coefficient tables, ours and the paper's
  yugioh_coefficients.png                 both tables as point-and-error-bar plots
  yugioh_adp.png                          predicted win probability over the ADP grid
  yugioh.json                             everything printed

    python scripts/giotta_yugioh.py                     # the paper's sizes, N = 27440 and 960
    python scripts/giotta_yugioh.py --games 6860 --cell-games 40 --interactions
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from gamelp.cli.args import run_script
from gamelp.deps import require
from gamelp.games import yugioh as ygo

EXAMPLE_HANDS = ([3, 1, 1], [2, 1, 2], [1, 2, 2], [4, 0, 1], [1, 0, 4])


def _plot_coefficients(tables, path: Path) -> None:
    fig, axes = plt.subplots(1, len(tables), figsize=(6 * len(tables), 4))
    for ax, (title, table) in zip(axes, tables):
        y = np.arange(len(table))
        ax.errorbar(table["paper"], y + 0.12, xerr=1.96 * table["paper_se"], fmt="s", label="paper")
        ax.errorbar(table["ours"], y - 0.12, xerr=1.96 * table["ours_se"], fmt="o", label="ours")
        ax.axvline(0, color="k", lw=0.8)
        ax.set_yticks(y, table.index)
        ax.invert_yaxis()
        ax.set_xlabel("logit coefficient (95% interval)")
        ax.set_title(title)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_adp(model: ygo.WinModel, hand, path: Path) -> None:
    grid = np.array(ygo.ADP_GRID)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, first in zip(axes, (True, False)):
        held = ygo.recorded_hand(hand, first)
        for mst in grid:
            combos = np.array([(mst, m, 0.6) for m in grid])
            ax.plot(grid, ygo.win_probability(model, first, held, combos), marker=".",
                    label=f"PrAwMST = {mst:.1f}")
        ax.set_xlabel("PrAwM (PrAwST = 0.6)")
        ax.set_title(f"hand {hand} (M, S, T), A moves {'first' if first else 'second'}")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("predicted P(A wins)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=ygo.PAPER_TABLE1_N,
                        help=f"games of the Table 1 data set (default: the paper's {ygo.PAPER_TABLE1_N})")
    parser.add_argument("--cell-games", type=int, default=ygo.PAPER_TABLE2_N // 6,
                        help="games per (A strategy, B strategy) cell of Table 2, 6 cells "
                             f"(default: {ygo.PAPER_TABLE2_N // 6}, N = {ygo.PAPER_TABLE2_N})")
    parser.add_argument("--interactions", action="store_true",
                        help="also fit weight x (FirstA, hand) interactions and use them for ADP")
    parser.add_argument("--life", type=int, default=ygo.TABLE1_RULES.life,
                        help=f"life points in units of one attack (default: {ygo.TABLE1_RULES.life})")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default: 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--out", default="out", help="output directory (default: out/)")
    args = parser.parse_args(argv)
    require("statsmodels", "giotta_yugioh.py (its logit fits)")  # before minutes of simulation
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pd.set_option("display.float_format", "{:.3f}".format)
    rules1 = ygo.Rules(life=args.life)
    rules2 = ygo.Rules(life=args.life, first_turn_draw=True)

    start = time.perf_counter()
    data1 = ygo.simulate_table1(args.games, seed=args.seed, rules=rules1, workers=args.workers,
                                progress=not args.quiet)
    seconds1 = time.perf_counter() - start
    model = ygo.fit_table1(data1)
    table1 = ygo.compare(model.table, ygo.PAPER_TABLE1)
    print(f"Table 1: logit of A's win, N = {len(data1)} (paper {ygo.PAPER_TABLE1_N}), "
          f"{seconds1:.1f} s; A wins {data1['win'].mean():.3f}, moving first "
          f"{data1.loc[data1.FirstA == 1, 'win'].mean():.3f}, second {data1.loc[data1.FirstA == 0, 'win'].mean():.3f}")
    print(table1.to_string())
    adp_model = ygo.fit_table1(data1, interactions=True) if args.interactions else model

    adp_rows = []
    for hand, first in itertools.product(EXAMPLE_HANDS, (True, False)):
        policy, prob = ygo.adp_weights(adp_model, first, ygo.recorded_hand(hand, first))
        adp_rows.append({"hand (M,S,T)": str(hand), "first": first, "PrAwMST": policy.attack_mst,
                         "PrAwM": policy.attack_m, "PrAwST": policy.attack_st, "P(win)": prob})
    adp = pd.DataFrame(adp_rows)
    print(f"\nADP weights ({'interaction' if args.interactions else 'main-effects'} model):")
    print(adp.to_string(index=False))

    start = time.perf_counter()
    data2 = ygo.simulate_table2(adp_model, games_per_cell=args.cell_games, seed=args.seed + 1,
                                rules=rules2, workers=args.workers, progress=not args.quiet)
    seconds2 = time.perf_counter() - start
    table2 = ygo.compare(ygo.fit_table2(data2), ygo.PAPER_TABLE2)
    first_rate = data2.loc[data2.FirstA == 1, "win"].mean()
    second_rate = data2.loc[data2.FirstA == 0, "win"].mean()
    by_strategy = {s: float(data2.loc[data2[f"As{s}"] == 1, "win"].mean()) for s in ygo.STRATEGIES_A}
    print(f"\nTable 2: strategy evaluation, N = {len(data2)} (paper {ygo.PAPER_TABLE2_N}), {seconds2:.1f} s; "
          f"the player moving first wins {(first_rate + 1 - second_rate) / 2:.3f} "
          f"(paper: about two-thirds; its FirstA = 2.691 implies about 0.8)")
    print(table2.to_string())
    print("A's win rate by strategy: " + ", ".join(f"{s} {v:.3f}" for s, v in by_strategy.items()))

    table1.to_csv(out / "yugioh_table1.csv")
    table2.to_csv(out / "yugioh_table2.csv")
    _plot_coefficients([(f"Table 1 (N = {len(data1)})", table1), (f"Table 2 (N = {len(data2)})", table2)],
                       out / "yugioh_coefficients.png")
    _plot_adp(adp_model, [2, 1, 2], out / "yugioh_adp.png")
    summary = {"args": vars(args), "table1": table1.to_dict(orient="index"),
               "table2": table2.to_dict(orient="index"), "adp": adp_rows,
               "first_player_win_rate_table2": (first_rate + 1 - second_rate) / 2,
               "win_rate_by_strategy": by_strategy, "seconds": {"table1": seconds1, "table2": seconds2}}
    (out / "yugioh.json").write_text(json.dumps(summary, indent=2, default=float))
    print(f"\nwrote yugioh_table1.csv, yugioh_table2.csv, yugioh_coefficients.png, yugioh_adp.png, "
          f"yugioh.json into {out}")
    return 0


if __name__ == "__main__":
    run_script(main)
