"""Benchmark: the full Leduc k-sweep (k = 0..144), both players, today's MIP sweep against the search.

    python scripts/bench_kdet.py [--methods mip,search] [--gap 0.01] [--abs-gap 1e-4]
                                 [--mip-time-limit 30] [--search-time-limit 20] [--patience P]
                                 [--variants 4x2,5x3] [--out out]

``mip`` is :func:`gamelp.models.determinism.k_sweep` (HiGHS MIPs, each stopped
after ``--mip-time-limit`` seconds); ``search`` is
:func:`gamelp.models.kdet_search.search_sweep` (branch-and-bound over
decision points on one persistent HiGHS LP, each k stopped after
``--search-time-limit`` CPU seconds, which the load of a shared machine does
not shrink; HiGHS's MIP limit is wall time).  Both players of one method run side by
side in two processes, one method after the other, in the same run.  Reports
per player and method the wall time, the MIPs or searches, LPs and nodes, and
every k whose bound is not within the gap (relative ``--gap``, absolute
``--abs-gap`` near 0); then the ratio of the two methods' wall times and the
load average.  ``--variants RxS,...`` also sweeps bigger Leduc variants
(R ranks, S suits) with the search.  Writes ``OUT/bench_kdet.json`` and the
plot of the search's curves, ``OUT/bench_kdet_leduc.png``.
"""

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from gamelp.errors import SolveError
from gamelp.game import SequenceFormGame, load_game
from gamelp.games.poker import leduc
from gamelp.models.determinism import k_sweep
from gamelp.models.kdet_search import search_sweep
from gamelp.plots import plot_k_sweep


def build_game(name: str) -> SequenceFormGame:
    """``leduc`` or a variant ``RxS`` (R ranks, S suits)."""
    if name == "leduc":
        return load_game("leduc")
    ranks, suits = (int(part) for part in name.split("x"))
    return SequenceFormGame.from_dict(leduc(ranks=ranks, suits=suits), f"leduc_{name}")


def sweep(method: str, game_name: str, player: int, args) -> dict:
    game = build_game(game_name)
    began, cpu_began = time.perf_counter(), time.process_time()
    try:
        if method == "mip":
            result = k_sweep(game, player, mip_gap=args.gap, time_limit=args.mip_time_limit)
        else:
            result = search_sweep(game, player, rel_gap=args.gap, abs_gap=args.abs_gap,
                                  time_limit=args.search_time_limit, patience=args.patience, clock=time.process_time)
    except SolveError as exc:  # e.g. a MIP stopped by its time limit before any incumbent
        return {"method": method, "game": game_name, "player": player, "failed": str(exc),
                "seconds": time.perf_counter() - began, "cpu": time.process_time() - cpu_began}
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu_began
    over = [p for p in result.points if not p.within(args.gap, args.abs_gap)]
    return {"method": method, "game": game_name, "player": player, "seconds": seconds, "cpu": cpu,
            "solves": result.mips_solved, "lps": result.lps_solved, "nodes": result.nodes,
            "over": [{"k": p.k, "value": p.value, "bound": p.bound, "gap": p.mip_gap} for p in over],
            "points": [{key: value for key, value in p.to_dict().items() if key != "strategy"}
                       for p in result.points]}


def run_pair(method: str, game_name: str, args) -> tuple[float, list[dict]]:
    began = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(sweep, method, game_name, p, args) for p in (1, 2)]
        results = [f.result() for f in futures]
    wall = time.perf_counter() - began
    print(f"{game_name}, {method}: {wall:.1f} s wall for both players in parallel "
          f"(load average {', '.join(f'{v:.1f}' for v in os.getloadavg())})", flush=True)
    for r in results:
        if "failed" in r:
            print(f"  player {r['player']}: failed after {r['seconds']:.1f} s wall, {r['cpu']:.1f} s CPU: "
                  f"{r['failed']}", flush=True)
            continue
        points = r["points"]
        work = "MIPs" if method == "mip" else "searches"
        print(f"  player {r['player']}: {r['seconds']:.1f} s wall, {r['cpu']:.1f} s CPU, {r['solves']} {work}, {r['lps']} LPs, "
              f"{r['nodes']} nodes; V(0) = {points[0]['value']:.6f}, V({len(points) - 1}) = "
              f"{points[-1]['value']:.6f}; k over the gap: {len(r['over'])}", flush=True)
        for p in r["over"]:
            print(f"    k={p['k']:3d} value={p['value']: .6f} bound={p['bound']: .6f} gap={p['gap']:.2%}")
    return wall, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default="mip,search", help="leduc sweeps to run (empty: the variants only)")
    parser.add_argument("--gap", type=float, default=0.01, help="relative gap target (default 1%%)")
    parser.add_argument("--abs-gap", type=float, default=1e-4, help="absolute gap accepted near 0")
    parser.add_argument("--mip-time-limit", type=float, default=30.0, help="seconds per MIP of k_sweep")
    parser.add_argument("--search-time-limit", type=float, default=20.0, help="seconds per k of the search")
    parser.add_argument("--patience", type=int, default=None,
                        help="the search stops after this many fruitless k in a row (default: search every k)")
    parser.add_argument("--variants", default="", help="bigger Leduc variants RxS for the search, e.g. 4x2,5x3")
    parser.add_argument("--out", default="out")
    args = parser.parse_args()
    report = {"load_average_start": os.getloadavg(), "runs": []}
    walls = {}
    for method in filter(None, args.methods.split(",")):
        walls[method], results = run_pair(method, "leduc", args)
        report["runs"].append({"game": "leduc", "method": method, "wall": walls[method], "players": results})
        if method == "search":
            curves = {f"player {r['player']}": r["points"] for r in results}
            plot_k_sweep(curves, Path(args.out) / "bench_kdet_leduc.png", title="leduc: value against k (search)")
    if len(walls) == 2:
        print(f"wall time ratio mip / search: {walls['mip'] / walls['search']:.2f}")
    for variant in filter(None, args.variants.split(",")):
        wall, results = run_pair("search", variant, args)
        report["runs"].append({"game": variant, "method": "search", "wall": wall, "players": results})
    report["load_average_end"] = os.getloadavg()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    temporary = out / "bench_kdet.json.tmp"
    temporary.write_text(json.dumps(report, indent=1))
    temporary.replace(out / "bench_kdet.json")


if __name__ == "__main__":
    main()
