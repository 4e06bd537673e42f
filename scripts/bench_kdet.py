"""Benchmark: the full Leduc k-sweep (k = 0..144) for both players, every point within a relative MIP gap.

    python scripts/bench_kdet.py [--backend highs] [--mip-gap 0.01] [--time-limit 120] [--out out]

The two players' sweeps run side by side in two processes.  Reports the wall
time, the MIPs and LPs actually solved (against the 145 independent MIPs per
player the homework solves, for which it quotes one to five hours with
Gurobi), the curve, and every point whose gap is above the target (a MIP
stopped by ``--time-limit``).  Writes ``OUT/bench_kdet_<game>.png`` / ``.json``.
"""

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from gamelp.game import load_game
from gamelp.models.determinism import k_sweep
from gamelp.plots import plot_k_sweep


def sweep(game_name: str, player: int, backend: str, mip_gap: float, time_limit: float | None) -> dict:
    began = time.perf_counter()
    options = {} if time_limit is None else {"time_limit": time_limit}
    result = k_sweep(load_game(game_name), player, backend, mip_gap=mip_gap, **options)
    return {"player": player, "seconds": time.perf_counter() - began, "mips": result.mips_solved,
            "lps": result.lps_solved, "points": [p.as_dict() for p in result.points]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc")
    parser.add_argument("--backend", default="highs")
    parser.add_argument("--mip-gap", type=float, default=0.01)
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per MIP (default: none)")
    parser.add_argument("--out", default="out")
    args = parser.parse_args()
    began = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(sweep, args.game, p, args.backend, args.mip_gap, args.time_limit) for p in (1, 2)]
        results = [f.result() for f in futures]
    wall = time.perf_counter() - began
    print(f"{args.game} k-sweep on {args.backend}, target relative MIP gap {args.mip_gap:g}: {wall:.1f} s wall for both "
          "players in parallel")
    for r in results:
        points = r["points"]
        over = [p["k"] for p in points if p["mip_gap"] > args.mip_gap]
        levels = sorted({round(p["value"], 6) for p in points}, reverse=True)
        print(f"  player {r['player']}: {r['seconds']:.1f} s, {r['mips']} MIPs + {r['lps']} LPs for "
              f"{len(points)} values of k (homework: {len(points)} MIPs); {len(levels)} distinct values; "
              f"V(0) = {points[0]['value']:.6f}, V({len(points) - 1}) = {points[-1]['value']:.6f}; "
              f"points above the gap target: {over or 'none'}")
        for p in points:
            if p["solved"] or p["mip_gap"] > args.mip_gap:
                print(f"    k={p['k']:3d} value={p['value']: .6f} bound={p['bound']: .6f} gap={p['mip_gap']:.2%}")
    out = Path(args.out)
    curves = {f"player {r['player']}": r["points"] for r in results}
    plot_k_sweep(curves, out / f"bench_kdet_{args.game}.png", title=f"{args.game}: value against k")
    (out / f"bench_kdet_{args.game}.json").write_text(json.dumps(curves, indent=1))


if __name__ == "__main__":
    main()
