"""Esche (2018), Sections 3.1-3.2 end to end at small scale: simulate a deck sweep, then solve it.

Plays every pair of decks on a small grid (by default creatures 0, 4, 8 and
bolts 24-40, which holds the three decks of the thesis's optimum), repeats
the sweep for standard deviations, removes dominated decks, and solves the
nominal Nash LP (thesis form x = p / V and the general form) and the robust
LPs for interval and ellipsoidal uncertainty with R = 2 and 3.  The
defaults finish in about a minute on two cores (perfect players with the
life-difference evaluation and a small cap); ``--evaluation forest
--eval-cap 500000 --games 200`` is the thesis's setting.  Runs resume from
``--out`` if interrupted.

    python scripts/esche/esche_small_sweep.py
    python scripts/esche/esche_small_sweep.py --bolts 16:56:4 --games 50 --repeats 4 --workers 2
"""

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.cli.args import (
    OneLineParser,
    add_execution_options,
    execution_from,
    int_list,
    integer,
    output_directory,
    run_script,
)
from gamelp.games.mtg import sweep
from gamelp.games.mtg.evaluation import EVALUATIONS
from gamelp.games.mtg.match import PLAYER_KINDS
from gamelp.io import write_text
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.robust import solve_robust

THESIS_MIX = {"0C40L": 0.20, "8C28L": 0.40, "8C32L": 0.40}  # Section 3.1, on the 33 decks of Appendix B


@dataclass
class Solve:
    """One LP on the reduced deck game: its value (a robust LP's guaranteed value) and mix."""

    name: str  # "nominal (thesis form)", "nominal (general form)", "robust interval R=2", ...
    value: float
    strategy: dict[str, float]  # deck -> share


@dataclass
class SmallSweep:
    """A small deck sweep and the nominal and robust LPs solved on it."""

    sweep: sweep.BatchResult  # the played grid: win-rate matrix with deviations, counts
    mean_std: float  # over the off-diagonal cells
    max_std: float
    dominated_rows: list[str]
    dominated_cols: list[str]
    reduced_shape: tuple[int, int]
    solves: list[Solve]  # nominal thesis form, general form, interval R = 2, 3, ellipsoidal R = 2, 3
    out: Path


def _mix(strategy: dict[str, float]) -> str:
    return ", ".join(f"{k} {100 * v:.0f}%" for k, v in sorted(strategy.items(), key=lambda kv: -kv[1]) if v > 5e-3)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--creatures", type=int_list, default=[0, 4, 8], help="default: 0,4,8")
    parser.add_argument("--bolts", type=int_list, default=[24, 28, 32, 36, 40], help="default: 24:40:4")
    parser.add_argument("--games", type=integer(1), default=12, help="games per pair and repeat (default: 12)")
    parser.add_argument("--repeats", type=integer(1), default=2, help="repeats for the deviations (default: 2)")
    parser.add_argument("--player", choices=PLAYER_KINDS, default="perfect", help="default: perfect")
    parser.add_argument("--evaluation", choices=EVALUATIONS, default="life", help="default: life")
    parser.add_argument("--eval-cap", type=integer(1), default=2_000, help="default: 2000")
    parser.add_argument("--seed", type=integer(0), default=0, help="seed of the batch (default %(default)s)")
    parser.add_argument("--backend", default="highs", help="LP backend (default: highs)")
    parser.add_argument("--cone-backend", default="cvxpy:CLARABEL", help="backend for the ellipsoidal LPs")
    parser.add_argument("--out", type=output_directory, default="out/esche_small_sweep", help="output directory")
    add_execution_options(parser)
    return parser


def main(argv: list[str] | None = None) -> SmallSweep:
    args = build_parser().parse_args(argv)

    out = Path(args.out)
    result = sweep.run_sweep(
        args.creatures,
        args.bolts,
        games=args.games,
        repeats=args.repeats,
        seed=args.seed,
        player=args.player,
        settings=sweep.GameSettings(evaluation=args.evaluation, eval_cap=args.eval_cap),
        out=out,
        execution=execution_from(args),
    )
    game = result.matrix
    off_diagonal = game.std[~np.eye(game.shape[0], dtype=bool)]
    reduced, rows, cols = game.reduce_dominated()

    thesis_form = solve_matrix_nash(reduced, "row", args.backend, form="thesis")
    general = solve_matrix_nash(reduced, "row", args.backend, form="general")
    solves = [
        Solve("nominal (thesis form)", thesis_form.value, thesis_form.strategy_dict()),
        Solve("nominal (general form)", general.value, general.strategy_dict()),
    ]
    for kind, backend in (("interval", args.backend), ("ellipsoidal", args.cone_backend)):
        for radius in (2.0, 3.0):
            robust = solve_robust(reduced, kind, radius, backend=backend)
            solves.append(Solve(f"robust {kind} R={radius:g}", robust.guaranteed_value, robust.strategy_dict()))
    payload = {
        "decks": list(game.row_labels),
        "dominated_rows": rows,
        "dominated_cols": cols,
        "solves": [{"name": s.name, "value": s.value, "strategy": s.strategy} for s in solves],
    }
    write_text(out / "solution.json", json.dumps(payload, indent=2))
    return SmallSweep(
        sweep=result,
        mean_std=float(off_diagonal.mean()),
        max_std=float(game.std.max()),
        dominated_rows=rows,
        dominated_cols=cols,
        reduced_shape=reduced.shape,
        solves=solves,
        out=out,
    )


def report(result: SmallSweep) -> None:
    print(result.sweep.summary())
    print(
        f"{result.sweep.matrix.shape[0]} decks; deviations: mean {100 * result.mean_std:.1f}%, "
        f"max {100 * result.max_std:.1f}% (thesis: mean 2.3%, max 7.8% at 200 games a pair)"
    )
    print(
        f"dominance removes rows {result.dominated_rows or '-'} and columns {result.dominated_cols or '-'}: "
        f"{result.reduced_shape[0]}x{result.reduced_shape[1]} left"
    )
    for solve in result.solves:
        print(f"{solve.name:<28} value {solve.value:.4f}   {_mix(solve.strategy)}")
    print(f"{'thesis optimum (33 decks)':<28} value -        {_mix(THESIS_MIX)}")
    print(f"wrote {result.out}/payoffs.csv, std.csv, pairs.csv, games.sqlite, solution.json")


if __name__ == "__main__":
    run_script(main, report)
