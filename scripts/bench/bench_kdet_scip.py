"""Benchmark: SCIP (PySCIPOpt) against HiGHS on the k-determinism MIP P(k) at the k where the Leduc sweep resists.

    python scripts/bench/bench_kdet_scip.py [--game leduc] [--k1 116,120,125,130,135,140] [--k2 107,115,125,135]
                                            [--formulations bigm,forcing] [--solvers highs,scip]
                                            [--time-limit 60] [--gap 0.01] [--out out]

For each player and ``k`` the model is :func:`gamelp.models.determinism.kdet_mip`,
flattened and scaled by the model layer exactly as gamelp's backends receive it
(:func:`gamelp.backends.scaling.scale`), and solved by gamelp's ``highs`` and
``scip`` backends (the same columns, rows and bounds).  Both start from the same
incumbent: the best strategy with ``k`` or more pure points that
:class:`gamelp.models.kdet_search.KdetSearch` finds by its greedy dive and the
deterministic ILP, completed to a point of P(k) by solving P(k) with its ``z``
fixed.  Both get the same wall-clock time limit and relative gap target, one
thread, and run one after the other on each model (so the load of a shared
machine hits both alike).

``--formulations forcing`` also measures P(k) with one more row per decision
point, ``value + sum_a (LP - phi[ja]) z[ja] <= LP``
(:func:`gamelp.models.kdet_forcing.add_forcing_rows`): the single-point forcing
bounds written as valid inequalities linking the value to the determinism binaries.

Per model it prints the start's value; the single-point forcing bound of P(k)
(``forced``, :func:`gamelp.models.kdet_forcing.single_forcing_bound`); and per
solver the root bound (the bound of the same solve stopped after its root node:
HiGHS's ``mip_max_nodes`` and SCIP's ``limits/nodes`` at 1), final bound,
incumbent, relative gap, nodes (the backends' node counts: HiGHS's
``getInfo().mip_node_count``, SCIP's ``getNNodes``) and seconds.  Then the
geometric mean of the ratio of the two solvers' final gaps.

A sweep of P(k) over every ``k`` on SCIP alone is ``bench_kdet.py --methods mip --mip-backend scip``.
Writes ``OUT/bench_kdet_scip.json``.
"""

import argparse
import itertools
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelp.backends import get
from gamelp.backends.base import Options, violation
from gamelp.backends.scaling import scale
from gamelp.cli.args import OneLineParser, finite_float, name_list, output_directory, run_script
from gamelp.deps import require
from gamelp.game import SequenceFormGame, load_game
from gamelp.games.poker import leduc, parse_leduc_variant
from gamelp.io import write_text
from gamelp.model import MatrixForm
from gamelp.models.determinism import deterministic_choices, kdet_mip
from gamelp.models.kdet_forcing import add_forcing_rows, forcing_values, single_forcing_bound
from gamelp.models.kdet_search import KdetSearch

SOLVERS = ("highs", "scip")
# Each backend's own option that stops a MIP after its root node (the root bound is that solve's bound).
ROOT_ONLY = {"highs": {"mip_max_nodes": 1}, "scip": {"limits/nodes": 1}}


def build_game(name: str) -> SequenceFormGame:
    """``leduc``, ``kuhn`` or a Leduc variant ``RxS`` (R ranks, S suits)."""
    if "x" not in name:
        return load_game(name)
    ranks, suits = parse_leduc_variant(name)
    return SequenceFormGame.from_dict(leduc(ranks=ranks, suits=suits), f"leduc_{name}")


def solve_on(backend: str, form: MatrixForm, start: np.ndarray, time_limit: float, gap: float) -> dict:
    """Solve ``form`` on ``backend`` from ``start``: once stopped after the root node, then in full."""
    options = {"time_limit": time_limit, "mip_gap": gap, "threads": 1, "start": start}
    root = get(backend).solve(form, Options(**options, extra=ROOT_ONLY[backend]))
    began = time.perf_counter()
    raw = get(backend).solve(form, Options(**options))
    return {
        "status": raw.status.value,
        "root_bound": raw.bound if root.bound is None else root.bound,  # none after the root: solved in it
        "bound": raw.bound,
        "incumbent": raw.objective,
        "nodes": raw.nodes,
        "seconds": time.perf_counter() - began,
    }


def starting_point(model, search: KdetSearch, k: int) -> tuple[float, np.ndarray]:
    """The search's best strategy with ``k`` pure points, completed to a point of P(k) (its choices fixed)."""
    z = deterministic_choices(search.own, search.strategy[k])
    model.set_bounds("z", lb=z, ub=z)
    solution = model.solve("highs")
    model.set_bounds("z", lb=0.0, ub=1.0)
    return solution.objective, model.full_vector(solution.values)


def in_original_units(result: dict, objective_scale: float) -> dict:
    for key in ("root_bound", "bound", "incumbent"):
        if result[key] is not None:
            result[key] /= objective_scale
    value, bound = result["incumbent"], result["bound"]
    result["gap"] = abs(bound - value) / max(abs(value), 1e-10) if None not in (value, bound) else None
    return result


def k_list(text: str) -> list[int]:
    try:
        return [int(k) for k in text.split(",") if k.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


@dataclass
class ScipRace:
    """One run per player, k and formulation: the start, the forcing bound and each solver's figures."""

    game: str
    time_limit: float
    gap: float
    solvers: list[str]
    load_average_start: tuple
    runs: list[dict]  # player, k, formulation, start_value, start_violation, single_forcing_bound, and per solver
    #                   (highs, scip) its status, root_bound, bound, incumbent, gap, nodes, seconds
    path: str  # the JSON written

    @property
    def gap_ratios(self) -> list[float]:
        """SCIP's final gap over HiGHS's, per model where both are positive."""
        return [
            run["scip"]["gap"] / run["highs"]["gap"]
            for run in self.runs
            if len(self.solvers) == 2 and run["highs"]["gap"] > 0 and run["scip"]["gap"] > 0
        ]

    @property
    def scip_better(self) -> int:
        """Models where SCIP's final bound is lower (better) than HiGHS's."""
        return sum(r["scip"]["bound"] < r["highs"]["bound"] - 1e-9 for r in self.runs)


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc", help="leduc, kuhn or a Leduc variant RxS")
    parser.add_argument("--k1", type=k_list, default="116,120,125,130,135,140", help="player 1's k to solve")
    parser.add_argument("--k2", type=k_list, default="107,115,125,135", help="player 2's k to solve")
    parser.add_argument(
        "--time-limit",
        type=finite_float(0.0, strict=True),
        default=60.0,
        help="wall-clock seconds per solver and model",
    )
    parser.add_argument(
        "--formulations",
        type=name_list(("bigm", "forcing")),
        default="bigm",
        help="bigm (kdet_mip as it is) and / or forcing (plus the forcing rows, add_forcing_rows)",
    )
    parser.add_argument("--solvers", type=name_list(SOLVERS), default="highs,scip", help="highs and / or scip")
    parser.add_argument("--gap", type=finite_float(0.0), default=0.01, help="relative gap at which both solvers stop")
    parser.add_argument(
        "--out", type=output_directory, default="out", help="directory for bench_kdet_scip.json (default %(default)s)"
    )
    return parser


def main(argv: list[str] | None = None) -> ScipRace:
    parser = build_parser()
    args = parser.parse_args(argv)
    game = build_game(args.game)
    for player, ks in ((1, args.k1), (2, args.k2)):
        total = game.player(player).num_decision_points
        if any(not 0 <= k <= total for k in ks):
            parser.error(
                f"argument --k{player}: player {player} of {args.game} has {total} decision points, "
                f"so k runs from 0 to {total}"
            )
    if "scip" in args.solvers:
        require("pyscipopt", "bench_kdet_scip.py --solvers scip")
    load_start = os.getloadavg()
    runs = []
    for player, ks in ((1, args.k1), (2, args.k2)):
        search = KdetSearch(game, player, rel_gap=args.gap)
        nash_value = search.solve_root()
        search.solve_top()
        phi = forcing_values(search)
        for k, formulation in itertools.product(ks, args.formulations):
            model = kdet_mip(game, player, k)
            start_value, start = starting_point(model, search, k)
            if formulation == "forcing":
                add_forcing_rows(model, search.own, phi, nash_value)
            scaled, factors = scale(model.matrix_form())
            start = factors.scaled_start(start)
            results = {
                name: in_original_units(solve_on(name, scaled, start, args.time_limit, args.gap), factors.objective)
                for name in args.solvers
            }
            forced = single_forcing_bound(search.own, phi, k, nash_value)
            runs.append(
                {
                    "player": player,
                    "k": k,
                    "formulation": formulation,
                    "start_value": start_value,
                    "start_violation": violation(scaled, start),
                    "single_forcing_bound": forced,
                    **results,
                }
            )
            print(f"player {player}, k = {k}, {formulation}: done", file=sys.stderr, flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "bench_kdet_scip.json"
    write_text(
        path,
        json.dumps(
            {
                "game": args.game,
                "time_limit": args.time_limit,
                "gap": args.gap,
                "load_average_end": os.getloadavg(),
                "runs": runs,
            },
            indent=1,
        ),
    )
    return ScipRace(
        game=args.game,
        time_limit=args.time_limit,
        gap=args.gap,
        solvers=list(args.solvers),
        load_average_start=load_start,
        runs=runs,
        path=str(path),
    )


def report(result: ScipRace) -> None:
    print(
        f"{result.game}: P(k) with a {result.time_limit:g} s wall limit and a {result.gap:.0%} gap target per "
        f"solver (load average {', '.join(f'{v:.1f}' for v in result.load_average_start)})"
    )
    print(
        f"{'pl':>2} {'k':>4} {'form':>7} {'start':>10} {'forced':>10} | "
        + " | ".join(
            f"{name:5} {'root':>10} {'bound':>10} {'value':>10} {'gap':>8} {'nodes':>6} {'s':>5}"
            for name in result.solvers
        )
    )
    for run in result.runs:
        print(
            f"{run['player']:>2} {run['k']:>4} {run['formulation']:>7} {run['start_value']:>10.6f} "
            f"{run['single_forcing_bound']:>10.6f} | "
            + " | ".join(
                f"{'':5} {r['root_bound']:>10.6f} {r['bound']:>10.6f} {r['incumbent']:>10.6f} {r['gap']:>8.2%} "
                f"{r['nodes']:>6} {r['seconds']:>5.1f}"
                for r in (run[name] for name in result.solvers)
            )
        )
    ratios = result.gap_ratios
    if ratios:
        print(
            f"final gap SCIP / HiGHS: geometric mean {np.exp(np.mean(np.log(ratios))):.2f} over {len(ratios)} "
            f"models; SCIP's bound lower (better) on {result.scip_better} of {len(result.runs)}"
        )


if __name__ == "__main__":
    run_script(main, report)
