"""Homework 2, problem 2.3: value against k (k decision points forced deterministic), all games, both players.

    python scripts/hw2_2_3_kdeterminism.py [--backend highs] [--games rps,kuhn,leduc] [--mip-gap 0.01] [--out out]

Writes one plot per game (both players' step curves) to ``OUT/kdet_<game>.png``
and the points to ``OUT/kdet_<game>.json``; prints the curve, the MIPs solved
and the time.  Leduc uses ``--leduc-mip-gap`` (1% by default, as the bench);
each MIP stops after ``--time-limit`` seconds, and a point that did not reach
its gap says so in the JSON.
"""

import argparse
import json
from pathlib import Path

from tqdm import tqdm

from gamelp.game import load_game
from gamelp.models.determinism import k_sweep
from gamelp.plots import plot_k_sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="highs")
    parser.add_argument("--games", default="rps,kuhn,leduc")
    parser.add_argument("--mip-gap", type=float, default=1e-6, help="relative MIP gap for rps and kuhn")
    parser.add_argument("--leduc-mip-gap", type=float, default=0.01)
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds per MIP (default 60; a point stopped early reports its own gap)")
    parser.add_argument("--out", default="out")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.games.split(","):
        game = load_game(name)
        gap = args.leduc_mip_gap if name == "leduc" else args.mip_gap
        curves = {}
        for player in (1, 2):
            total = game.player(player).num_decision_points + 1
            with tqdm(total=total, desc=f"{name} player {player}", unit="k", disable=args.quiet) as bar:
                sweep = k_sweep(game, player, args.backend, mip_gap=gap, time_limit=args.time_limit,
                                progress=lambda done, _total: bar.update(done - bar.n))
            rows = [p.as_dict() for p in sweep.points]
            curves[f"player {player}"] = rows
            print(f"{name} player {player}: {sweep.mips_solved} MIPs for {total} values of k, "
                  f"+ {sweep.lps_solved} LPs, {sweep.wall_time:.1f} s in the solver; V(0) = {rows[0]['value']:.6f}, "
                  f"V({total - 1}) = {rows[-1]['value']:.6f}, worst MIP gap {max(r['mip_gap'] for r in rows):.2e}")
        plot = plot_k_sweep(curves, out / f"kdet_{name}.png", title=f"{name}: value against k")
        (out / f"kdet_{name}.json").write_text(json.dumps(curves, indent=1))
        print(f"  plot: {plot}")


if __name__ == "__main__":
    main()
