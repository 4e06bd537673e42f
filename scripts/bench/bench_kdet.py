"""Benchmark: the full Leduc k-sweep (k = 0..144), both players, today's MIP sweep against the search.

    python scripts/bench/bench_kdet.py [--methods mip,search,envelope] [--gap 0.01] [--abs-gap 1e-4]
                                       [--mip-time-limit 30] [--mip-backend highs] [--search-time-limit 20]
                                       [--patience P] [--envelope-time-limit 15]
                                       [--variants 4x2,5x3] [--game leduc] [--out out]

Every sweep is :func:`gamelp.models.kdet_search.sweep_kdet`'s. ``mip`` is
:func:`gamelp.models.determinism.k_sweep` (MIPs on ``--mip-backend``, HiGHS by default, one thread each, each
stopped after ``--mip-time-limit`` seconds or at the gap, relative ``--gap`` or absolute ``--abs-gap``,
whichever comes first); ``search`` is :func:`gamelp.models.kdet_search.search_sweep` (branch-and-bound over
decision points on one persistent HiGHS LP, each k stopped after ``--search-time-limit`` CPU seconds, which
the load of a shared machine does not shrink; HiGHS's MIP limit is wall time); ``envelope`` is the search fed
the Lagrangian envelope of :mod:`gamelp.models.kdet_envelope` first (each of its MIPs stopped after
``--envelope-time-limit`` wall seconds). Both players of one method run side by side in two processes, one
method after the other, in the same run. Reports per player and method the wall time, the MIPs or searches,
LPs and nodes, and every k whose bound is not within the gap (relative ``--gap``, absolute ``--abs-gap`` near
0); then the ratio of the two methods' wall times and the load average. ``--variants RxS,...`` also sweeps
bigger Leduc variants (R ranks, S suits) with the search. ``--game`` sweeps another game than Leduc by both
methods (``kuhn``, a variant ``RxS``). Writes ``OUT/bench_kdet.json`` and the plot of the search's curves,
``OUT/bench_kdet_leduc.png`` (``bench_kdet_GAME.png``; the envelope method's
``bench_kdet_GAME_envelope.png``).
"""

import argparse
import json
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from gamelp.cli.args import OneLineParser, add_sweep_abs_gap, finite_float, integer, output_directory, run_script
from gamelp.errors import GamelpError, SolveError
from gamelp.game import SequenceFormGame, load_game
from gamelp.games.errors import PokerRulesError
from gamelp.games.poker import leduc, parse_leduc_variant
from gamelp.games.runner import process_pool
from gamelp.io import write_text
from gamelp.models.kdet_search import sweep_kdet
from gamelp.plots import plot_k_sweep


def build_game(name: str) -> SequenceFormGame:
    """``leduc``, ``kuhn`` or a Leduc variant ``RxS`` (R ranks, S suits)."""
    if "x" not in name:
        return load_game(name)
    ranks, suits = parse_leduc_variant(name)
    return SequenceFormGame.from_dict(leduc(ranks=ranks, suits=suits), f"leduc_{name}")


def sweep(method: str, game_name: str, player: int, args) -> dict:
    game = build_game(game_name)
    began, cpu_began = time.perf_counter(), time.process_time()
    # each method's own settings: the MIPs one thread each; the search on CPU time, the envelope method fed first
    search = {"time_limit": args.search_time_limit, "patience": args.patience, "clock": time.process_time}
    settings = {
        "mip": {"method": "mip", "backend": args.mip_backend, "time_limit": args.mip_time_limit, "threads": 1},
        "search": {"method": "search", **search},
        "envelope": {"method": "search", **search, "envelope": args.envelope_time_limit},
    }[method]
    try:
        result = sweep_kdet(game, player, rel_gap=args.gap, abs_gap=args.abs_gap, **settings)
    except SolveError as exc:  # e.g. a MIP stopped by its time limit before any incumbent
        return {
            "method": method,
            "game": game_name,
            "player": player,
            "failed": str(exc),
            "seconds": time.perf_counter() - began,
            "cpu": time.process_time() - cpu_began,
        }
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu_began
    over = [p for p in result.points if not p.within(args.gap, args.abs_gap)]
    return {
        "method": method,
        "game": game_name,
        "player": player,
        "backend": result.backend,
        "seconds": seconds,
        "cpu": cpu,
        "solves": result.mips_solved,
        "lps": result.lps_solved,
        "nodes": result.nodes,
        "over": [{"k": p.k, "value": p.value, "bound": p.bound, "gap": p.mip_gap} for p in over],
        "points": [{key: value for key, value in p.to_dict().items() if key != "strategy"} for p in result.points],
    }


def run_pair(method: str, game_name: str, args) -> dict:
    """Both players' sweeps by ``method``, in two processes side by side: the run's wall time and results."""
    began = time.perf_counter()
    # Fresh processes: a forked child of a process that had solved with HiGHS waits forever on its thread scheduler
    with process_pool(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(sweep, method, game_name, p, args) for p in (1, 2)]
        results = [f.result() for f in futures]
    wall = time.perf_counter() - began
    print(f"{game_name}, {method}: {wall:.1f} s", file=sys.stderr, flush=True)
    return {"game": game_name, "method": method, "wall": wall, "load_average": os.getloadavg(), "players": results}


@dataclass
class KdetRace:
    """Each run (game, method, wall seconds, the load average after it, both players' sweeps), in order."""

    sweeps: list[dict]  # the game's runs, one per method; players: per player its seconds, cpu, solves, lps, nodes,
    #                     over (the k over the gap), points (k, value, bound, ...), or failed (why), seconds and cpu
    variants: list[dict]  # the Leduc variants' runs, by the search
    mip_over_search: float | None  # the two methods' wall times on the game: mip / search (None: not both run)
    load_average_start: tuple
    load_average_end: tuple
    path: str  # the JSON written
    plot: str | None  # the search's curves


def name_list(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def method_list(text: str) -> list[str]:
    methods = name_list(text)
    if any(method not in ("mip", "search", "envelope") for method in methods):
        raise argparse.ArgumentTypeError(f"expected mip, search and / or envelope, got {text!r}")
    return methods


def variant_list(text: str) -> list[str]:
    variants = name_list(text)
    try:
        for variant in variants:
            parse_leduc_variant(variant)
    except PokerRulesError:
        raise argparse.ArgumentTypeError(
            f"expected Leduc variants like 4x2,5x3 (ranks x suits), got {text!r}"
        ) from None
    return variants


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--methods", type=method_list, default="mip,search", help="sweeps of the game to run (empty: the variants only)"
    )
    parser.add_argument("--gap", type=finite_float(0.0), default=0.01, help="relative gap target (default 1%%)")
    add_sweep_abs_gap(parser)
    parser.add_argument(
        "--mip-time-limit", type=finite_float(0.0, strict=True), default=30.0, help="seconds per MIP of k_sweep"
    )
    parser.add_argument("--mip-backend", default="highs", help="the backend of the MIP sweep (default highs)")
    parser.add_argument(
        "--search-time-limit", type=finite_float(0.0, strict=True), default=20.0, help="seconds per k of the search"
    )
    parser.add_argument(
        "--envelope-time-limit",
        type=finite_float(0.0, strict=True),
        default=15.0,
        help="seconds per Lagrangian MIP of the envelope method",
    )
    parser.add_argument(
        "--patience",
        type=integer(1),
        default=None,
        help="the search stops after this many fruitless k in a row (default: search every k)",
    )
    parser.add_argument(
        "--variants", type=variant_list, default="", help="bigger Leduc variants RxS for the search, e.g. 4x2,5x3"
    )
    parser.add_argument("--game", default="leduc", help="the game both methods sweep: leduc (default), kuhn or RxS")
    parser.add_argument(
        "--out",
        type=output_directory,
        default="out",
        help="directory for the plots and bench_kdet.json (default %(default)s)",
    )
    return parser


def main(argv: list[str] | None = None) -> KdetRace:
    parser = build_parser()
    args = parser.parse_args(argv)
    for option, name in [("--game", args.game)] + [("--variants", variant) for variant in args.variants]:
        try:
            build_game(name)
        except (GamelpError, ValueError) as exc:
            parser.error(f"argument {option}: {exc}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    load_start, sweeps, walls, plot = os.getloadavg(), [], {}, None
    for method in args.methods:
        run = run_pair(method, args.game, args)
        sweeps.append(run)
        walls[method] = run["wall"]
        if method in ("search", "envelope"):
            curves = {f"player {r['player']}": r["points"] for r in run["players"] if "failed" not in r}
            plot = str(
                plot_k_sweep(
                    curves,
                    out / f"bench_kdet_{args.game}{'' if method == 'search' else '_envelope'}.png",
                    title=f"{args.game}: value against k ({method})",
                )
            )
    variants = [run_pair("search", variant, args) for variant in args.variants]
    ratio = walls["mip"] / walls["search"] if {"mip", "search"} <= walls.keys() else None
    result = KdetRace(
        sweeps=sweeps,
        variants=variants,
        mip_over_search=ratio,
        load_average_start=load_start,
        load_average_end=os.getloadavg(),
        path=str(out / "bench_kdet.json"),
        plot=plot,
    )
    write_text(
        result.path,
        json.dumps(
            {
                "load_average_start": result.load_average_start,
                "runs": [{key: run[key] for key in ("game", "method", "wall", "players")} for run in sweeps + variants],
                "load_average_end": result.load_average_end,
            },
            indent=1,
        ),
    )
    return result


def report_run(run: dict) -> None:
    print(
        f"{run['game']}, {run['method']}: {run['wall']:.1f} s wall for both players in parallel "
        f"(load average {', '.join(f'{v:.1f}' for v in run['load_average'])})"
    )
    for r in run["players"]:
        if "failed" in r:
            print(
                f"  player {r['player']}: failed after {r['seconds']:.1f} s wall, {r['cpu']:.1f} s CPU: {r['failed']}"
            )
            continue
        points = r["points"]
        work = "MIPs" if run["method"] == "mip" else "searches"
        print(
            f"  player {r['player']}: {r['seconds']:.1f} s wall, {r['cpu']:.1f} s CPU, {r['solves']} {work}, "
            f"{r['lps']} LPs, {r['nodes']} nodes; V(0) = {points[0]['value']:.6f}, V({len(points) - 1}) = "
            f"{points[-1]['value']:.6f}; k over the gap: {len(r['over'])}"
        )
        for p in r["over"]:
            print(f"    k={p['k']:3d} value={p['value']: .6f} bound={p['bound']: .6f} gap={p['gap']:.2%}")


def report(result: KdetRace) -> None:
    for run in result.sweeps:
        report_run(run)
    if result.mip_over_search is not None:
        print(f"wall time ratio mip / search: {result.mip_over_search:.2f}")
    for run in result.variants:
        report_run(run)


if __name__ == "__main__":
    run_script(main, report)
