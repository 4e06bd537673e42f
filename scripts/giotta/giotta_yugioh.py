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

    python scripts/giotta/giotta_yugioh.py                     # the paper's sizes, N = 27440 and 960
    python scripts/giotta/giotta_yugioh.py --games 6860 --cell-games 40 --interactions
"""

import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gamelp.cli.args import OneLineParser, integer, output_directory, run_script, workers
from gamelp.deps import require
from gamelp.games import yugioh as ygo
from gamelp.io import atomic_write, write_text
from gamelp.plots import save_figure

EXAMPLE_HANDS = ([3, 1, 1], [2, 1, 2], [1, 2, 2], [4, 0, 1], [1, 0, 4])


@dataclass
class YugiohTables:
    """Tables 1 and 2 (ours beside the paper's: columns paper, paper_se, ours, ours_se) and the ADP weights."""

    table1: pd.DataFrame
    table1_games: int
    a_win_rate: float  # A's win rate in the Table 1 data set, overall, moving first, second
    a_win_rate_first: float
    a_win_rate_second: float
    interactions: bool
    adp: list[dict]  # per hand and turn order: hand (M,S,T), first, PrAwMST, PrAwM, PrAwST, P(win)
    table2: pd.DataFrame
    table2_games: int
    first_player_win_rate: float  # Table 2's data set, either player moving first
    win_rate_by_strategy: dict[str, float]
    seconds: dict[str, float]
    out: Path


def _plot_coefficients(tables, path: Path) -> None:
    fig = Figure(figsize=(6 * len(tables), 4))
    axes = fig.subplots(1, len(tables))
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
    save_figure(fig, path)


def _plot_adp(model: ygo.WinModel, hand, path: Path) -> None:
    grid = np.array(ygo.ADP_GRID)
    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, first in zip(axes, (True, False)):
        held = ygo.recorded_hand(hand, first)
        for mst in grid:
            combos = np.array([(mst, m, 0.6) for m in grid])
            ax.plot(grid, ygo.win_probability(model, first, held, combos), marker=".", label=f"PrAwMST = {mst:.1f}")
        ax.set_xlabel("PrAwM (PrAwST = 0.6)")
        ax.set_title(f"hand {hand} (M, S, T), A moves {'first' if first else 'second'}")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("predicted P(A wins)")
    axes[0].legend(fontsize=8)
    save_figure(fig, path)


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        type=integer(1),
        default=ygo.PAPER_TABLE1_N,
        help=f"games of the Table 1 data set (default: the paper's {ygo.PAPER_TABLE1_N})",
    )
    parser.add_argument(
        "--cell-games",
        type=integer(1),
        default=ygo.PAPER_TABLE2_N // 6,
        help="games per (A strategy, B strategy) cell of Table 2, 6 cells "
        f"(default: {ygo.PAPER_TABLE2_N // 6}, N = {ygo.PAPER_TABLE2_N})",
    )
    parser.add_argument(
        "--interactions", action="store_true", help="also fit weight x (FirstA, hand) interactions and use them for ADP"
    )
    parser.add_argument(
        "--life",
        type=integer(1),
        default=ygo.TABLE1_RULES.life,
        help=f"life points in units of one attack (default: {ygo.TABLE1_RULES.life})",
    )
    parser.add_argument("--workers", type=workers, default=2, help="worker processes (default: 2)")
    parser.add_argument("--seed", type=integer(0), default=0, help="seed of the simulated games (default %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--out", type=output_directory, default="out", help="output directory (default: out/)")
    return parser


def main(argv: list[str] | None = None) -> YugiohTables:
    args = build_parser().parse_args(argv)
    require("statsmodels", "giotta_yugioh.py (its logit fits)")  # before minutes of simulation
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rules1 = ygo.Rules(life=args.life)
    rules2 = ygo.Rules(life=args.life, first_turn_draw=True)

    start = time.perf_counter()
    data1 = ygo.simulate_table1(args.games, seed=args.seed, rules=rules1, workers=args.workers, progress=not args.quiet)
    seconds1 = time.perf_counter() - start
    model = ygo.fit_table1(data1)
    table1 = ygo.compare(model.table, ygo.PAPER_TABLE1)
    adp_model = ygo.fit_table1(data1, interactions=True) if args.interactions else model

    adp_rows = []
    for hand, first in itertools.product(EXAMPLE_HANDS, (True, False)):
        policy, prob = ygo.adp_weights(adp_model, first, ygo.recorded_hand(hand, first))
        adp_rows.append(
            {
                "hand (M,S,T)": str(hand),
                "first": first,
                "PrAwMST": policy.attack_mst,
                "PrAwM": policy.attack_m,
                "PrAwST": policy.attack_st,
                "P(win)": prob,
            }
        )

    start = time.perf_counter()
    data2 = ygo.simulate_table2(
        adp_model,
        games_per_cell=args.cell_games,
        seed=args.seed + 1,
        rules=rules2,
        workers=args.workers,
        progress=not args.quiet,
    )
    seconds2 = time.perf_counter() - start
    table2 = ygo.compare(ygo.fit_table2(data2), ygo.PAPER_TABLE2)
    first_rate = data2.loc[data2.FirstA == 1, "win"].mean()
    second_rate = data2.loc[data2.FirstA == 0, "win"].mean()
    by_strategy = {s: float(data2.loc[data2[f"As{s}"] == 1, "win"].mean()) for s in ygo.STRATEGIES_A}

    for name, table in (("yugioh_table1.csv", table1), ("yugioh_table2.csv", table2)):
        with atomic_write(out / name, newline="") as handle:
            table.to_csv(handle)
    _plot_coefficients(
        [(f"Table 1 (N = {len(data1)})", table1), (f"Table 2 (N = {len(data2)})", table2)],
        out / "yugioh_coefficients.png",
    )
    _plot_adp(adp_model, [2, 1, 2], out / "yugioh_adp.png")
    result = YugiohTables(
        table1,
        len(data1),
        float(data1["win"].mean()),
        float(data1.loc[data1.FirstA == 1, "win"].mean()),
        float(data1.loc[data1.FirstA == 0, "win"].mean()),
        args.interactions,
        adp_rows,
        table2,
        len(data2),
        float((first_rate + 1 - second_rate) / 2),
        by_strategy,
        {"table1": seconds1, "table2": seconds2},
        out,
    )
    summary = {
        "args": vars(args),
        "table1": table1.to_dict(orient="index"),
        "table2": table2.to_dict(orient="index"),
        "adp": adp_rows,
        "first_player_win_rate_table2": result.first_player_win_rate,
        "win_rate_by_strategy": by_strategy,
        "seconds": result.seconds,
    }
    write_text(out / "yugioh.json", json.dumps(summary, indent=2, default=float))
    return result


def report(result: YugiohTables) -> None:
    three = "{:.3f}".format
    print(
        f"Table 1: logit of A's win, N = {result.table1_games} (paper {ygo.PAPER_TABLE1_N}), "
        f"{result.seconds['table1']:.1f} s; A wins {result.a_win_rate:.3f}, moving first "
        f"{result.a_win_rate_first:.3f}, second {result.a_win_rate_second:.3f}"
    )
    print(result.table1.to_string(float_format=three))
    print(f"\nADP weights ({'interaction' if result.interactions else 'main-effects'} model):")
    print(pd.DataFrame(result.adp).to_string(index=False, float_format=three))
    print(
        f"\nTable 2: strategy evaluation, N = {result.table2_games} (paper {ygo.PAPER_TABLE2_N}), "
        f"{result.seconds['table2']:.1f} s; the player moving first wins {result.first_player_win_rate:.3f} "
        f"(paper: about two-thirds; its FirstA = 2.691 implies about 0.8)"
    )
    print(result.table2.to_string(float_format=three))
    print("A's win rate by strategy: " + ", ".join(f"{s} {v:.3f}" for s, v in result.win_rate_by_strategy.items()))
    print(
        f"\nwrote yugioh_table1.csv, yugioh_table2.csv, yugioh_coefficients.png, yugioh_adp.png, "
        f"yugioh.json into {result.out}"
    )


if __name__ == "__main__":
    run_script(main, report)
