"""Benchmark: the deterministic ILP of both Leducs (the homework's and OpenSpiel's), both players, on each backend.

    python scripts/bench/bench_det_ilp.py [--games leduc,openspiel:leduc_poker] [--players 1,2]
                                          [--backends highs,gurobi] [--formulations grains,plain]
                                          [--time-limit 300] [--json]

``grains`` is :func:`gamelp.models.determinism.deterministic_ilp` (the value counted in whole grains of the
payoffs, an integer objective), ``plain`` the Nash model with binary ``x`` and the value ``f_o^T v`` as its
objective (:func:`gamelp.models.nash.sequence_form_lp` with ``deterministic=True``): the formulation before the
grain.  Every case is one solve on the backend's defaults (HiGHS and Gurobi use both cores), relative gap 1e-6,
stopped after ``--time-limit`` wall seconds.  Per case: the solver's version, the status, the value (the best
pure strategy's, checked without the solver by :meth:`SequenceFormGame.guaranteed_value`), the bound, the
nodes, the wall and CPU seconds; a case stopped by the time limit prints ``stopped at`` with its bound.
The load average is printed before and after (stderr), and kept in the JSON (``--json``: the one document on
stdout).  A game that the backend's licence cannot hold (Gurobi's pip licence: 2000 variables and rows) is a
row saying so, not a failure.
"""

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass

from gamelp.backends import get
from gamelp.backends.base import Options
from gamelp.cli.args import OneLineParser, finite_float, int_list, run_script
from gamelp.errors import BackendError
from gamelp.game import SequenceFormGame, load_game
from gamelp.models.determinism import deterministic_ilp, value_grain
from gamelp.models.nash import sequence_form_lp
from gamelp.solution import OPTIMAL, TIME_LIMIT

FORMULATIONS = {
    "grains": deterministic_ilp,
    "plain": lambda game, player: sequence_form_lp(game, player, deterministic=True),
}


@dataclass
class Case:
    """One game, player, formulation and backend: what the solve reported."""

    game: str
    player: int
    formulation: str
    backend: str
    solver_version: str = ""
    status: str = ""
    value: float | None = None  # the strategy's value against a best response, computed without the solver
    bound: float | None = None
    nodes: int | None = None
    seconds: float = 0.0
    cpu: float = 0.0
    refused: str = ""  # why the backend did not solve it (a licence's size limit)


@dataclass
class Bench:
    """Every case, the time limit and the load average around the run."""

    time_limit: float
    grains: dict  # game -> player -> its value grain (None: the plain objective in both formulations)
    load_before: tuple
    load_after: tuple
    cases: list[Case]


def solve_case(game: SequenceFormGame, name: str, player: int, formulation: str, backend: str, limit: float) -> Case:
    """Build the formulation's model of ``player`` and solve it on ``backend`` within ``limit`` seconds."""
    case = Case(name, player, formulation, backend)
    form = FORMULATIONS[formulation](game, player).matrix_form()
    solver = get(backend)
    case.solver_version = solver.version()
    began, cpu = time.perf_counter(), time.process_time()
    try:  # the backend itself, not Model.solve: its raw result counts the nodes
        raw = solver.solve(form, Options(time_limit=limit, mip_gap=1e-6))
    except BackendError as exc:  # Gurobi's restricted licence refuses a model beyond its size
        case.refused = str(exc)
        return case
    case.seconds, case.cpu = time.perf_counter() - began, time.process_time() - cpu
    case.status, case.bound, case.nodes = raw.status.value, raw.bound, raw.nodes
    if raw.x is not None:
        case.value = game.guaranteed_value(player, form.split_values(raw.x)["x"])
    return case


def note(case: Case, limit: float) -> str:
    """The last column: a refusal, a stop at the time limit with its bound, or nothing."""
    if case.refused:
        return f"refused: {case.refused}"
    if case.status == TIME_LIMIT.value:
        return (
            f"stopped at {limit:g} s, bound {case.bound:.6g}" if case.bound is not None else f"stopped at {limit:g} s"
        )
    if case.status != OPTIMAL.value:
        return case.status
    return ""


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", default="leduc,openspiel:leduc_poker", help="comma-separated games (default %(default)s)"
    )
    parser.add_argument("--players", type=int_list, default="1,2", help="comma-separated players (default 1,2)")
    parser.add_argument("--backends", default="highs,gurobi", help="comma-separated backends (default %(default)s)")
    parser.add_argument(
        "--formulations", default="grains,plain", help=f"comma-separated, of {', '.join(FORMULATIONS)} (default both)"
    )
    parser.add_argument(
        "--time-limit", type=finite_float(0.0, strict=True), default=300.0, help="wall seconds per case (default 300)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    return parser


def listed(parser: argparse.ArgumentParser, option: str, text: str, allowed=None) -> list[str]:
    """The comma-separated names of ``option``, each in ``allowed`` when given."""
    chosen = [name.strip() for name in text.split(",") if name.strip()]
    wrong = [name for name in chosen if allowed is not None and name not in allowed]
    if not chosen or wrong:
        parser.error(f"argument {option}: {text!r} names nothing or an unknown entry {', '.join(wrong)}")
    return chosen


def main(argv: list[str] | None = None) -> tuple[Bench, bool]:
    parser = build_parser()
    args = parser.parse_args(argv)
    games = listed(parser, "--games", args.games)
    backends = listed(parser, "--backends", args.backends)
    formulations = listed(parser, "--formulations", args.formulations, FORMULATIONS)
    if any(player not in (1, 2) for player in args.players):
        parser.error(f"argument --players: players are 1 and 2, got {args.players}")
    for backend in backends:
        if not get(backend).available():
            parser.error(f"argument --backends: {backend} is not installed here")
    load_before = os.getloadavg()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}", file=sys.stderr)
    cases, grains = [], {}
    for name in games:
        game = load_game(name)
        grains[name] = {player: value_grain(game, player) for player in args.players}
        for player in args.players:
            for formulation in formulations:
                for backend in backends:
                    print(f"{name} player {player} {formulation} on {backend} ...", file=sys.stderr)
                    cases.append(solve_case(game, name, player, formulation, backend, args.time_limit))
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}", file=sys.stderr)
    return Bench(args.time_limit, grains, load_before, load_after, cases), args.json


def report(result: tuple[Bench, bool]) -> int:
    bench, as_json = result
    if as_json:
        print(json.dumps({**asdict(bench), "cases": [asdict(case) for case in bench.cases]}, indent=1))
        return 0
    header = f"{'game':<22} {'pl':>2} {'formulation':<11} {'backend':<8} {'version':<16} {'value':>10} {'bound':>10}"
    print(f"{header} {'nodes':>8} {'wall s':>7} {'CPU s':>7}  note")
    for case in bench.cases:
        value = "" if case.value is None else f"{case.value:.6g}"
        bound = "" if case.bound is None else f"{case.bound:.6g}"
        nodes = "" if case.nodes is None else str(case.nodes)
        print(
            f"{case.game:<22} {case.player:>2} {case.formulation:<11} {case.backend:<8} {case.solver_version:<16}"
            f" {value:>10} {bound:>10} {nodes:>8} {case.seconds:>7.1f} {case.cpu:>7.1f}  {note(case, bench.time_limit)}"
        )
    return 0


if __name__ == "__main__":
    run_script(main, report)
