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

    python scripts/esche_small_sweep.py
    python scripts/esche_small_sweep.py --bolts 16:56:4 --games 50 --repeats 4 --workers 2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from gamelp.cli.args import int_list
from gamelp.games.mtg import sweep
from gamelp.games.mtg.evaluation import EVALUATIONS
from gamelp.games.mtg.match import PLAYER_KINDS
from gamelp.games.runner import Execution
from gamelp.models.nash import solve_matrix_nash
from gamelp.models.robust import solve_robust

THESIS_MIX = {"0C40L": 0.20, "8C28L": 0.40, "8C32L": 0.40}  # Section 3.1, on the 33 decks of Appendix B


def _mix(strategy: dict[str, float]) -> str:
    return ", ".join(f"{k} {100 * v:.0f}%" for k, v in sorted(strategy.items(), key=lambda kv: -kv[1]) if v > 5e-3)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--creatures", type=int_list, default=[0, 4, 8], help="default: 0,4,8")
    parser.add_argument("--bolts", type=int_list, default=[24, 28, 32, 36, 40], help="default: 24:40:4")
    parser.add_argument("--games", type=int, default=12, help="games per pair and repeat (default: 12)")
    parser.add_argument("--repeats", type=int, default=2, help="repeats for the deviations (default: 2)")
    parser.add_argument("--player", choices=PLAYER_KINDS, default="perfect", help="default: perfect")
    parser.add_argument("--evaluation", choices=EVALUATIONS, default="life", help="default: life")
    parser.add_argument("--eval-cap", type=int, default=2_000, help="default: 2000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="local worker processes (default: 2)")
    parser.add_argument("--scheduler", help="Dask scheduler address instead of local workers")
    parser.add_argument("--backend", default="highs", help="LP backend (default: highs)")
    parser.add_argument("--cone-backend", default="cvxpy:CLARABEL", help="backend for the ellipsoidal LPs")
    parser.add_argument("--out", default="out/esche_small_sweep", help="output directory")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    out = Path(args.out)
    result = sweep.run_sweep(args.creatures, args.bolts, games=args.games, repeats=args.repeats, seed=args.seed,
                             player=args.player,
                             settings=sweep.GameSettings(evaluation=args.evaluation, eval_cap=args.eval_cap), out=out,
                             execution=Execution(workers=args.workers, scheduler=args.scheduler,
                                                 progress=not args.quiet))
    game = result.matrix
    print(result.summary())
    off_diagonal = game.std[~np.eye(game.shape[0], dtype=bool)]
    print(f"{game.shape[0]} decks; deviations: mean {100 * off_diagonal.mean():.1f}%, max {100 * game.std.max():.1f}% "
          "(thesis: mean 2.3%, max 7.8% at 200 games a pair)")

    reduced, rows, cols = game.reduce_dominated()
    print(f"dominance removes rows {rows or '-'} and columns {cols or '-'}: {reduced.shape[0]}x{reduced.shape[1]} left")
    report = {"decks": list(game.row_labels), "dominated_rows": rows, "dominated_cols": cols, "solves": []}

    def show(name: str, value: float, strategy: dict[str, float]) -> None:
        print(f"{name:<28} value {value:.4f}   {_mix(strategy)}")
        report["solves"].append({"name": name, "value": value, "strategy": strategy})

    thesis_form = solve_matrix_nash(reduced, "row", args.backend, form="thesis")
    general = solve_matrix_nash(reduced, "row", args.backend, form="general")
    show("nominal (thesis form)", thesis_form.value, thesis_form.strategy_dict())
    show("nominal (general form)", general.value, general.strategy_dict())
    for kind, backend in (("interval", args.backend), ("ellipsoidal", args.cone_backend)):
        for radius in (2.0, 3.0):
            robust = solve_robust(reduced, kind, radius, backend=backend)
            show(f"robust {kind} R={radius:g}", robust.guaranteed_value, robust.strategy_dict())
    print(f"{'thesis optimum (33 decks)':<28} value -        {_mix(THESIS_MIX)}")
    (out / "solution.json").write_text(json.dumps(report, indent=2))
    print(f"wrote {out}/payoffs.csv, std.csv, pairs.csv, games.sqlite, solution.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
