"""Homework 2, problem 2.3: value against k (k decision points forced deterministic), all games, both players.

    python scripts/hw2_2_3_kdeterminism.py [--method search|mip] [--games rps,kuhn,leduc] [--out out]

Writes one plot per game (both players' step curves) to ``OUT/kdet_<game>.png``
and the points (with their strategies) to ``OUT/kdet_<game>.json``; prints the
curve's ends, the work and the time.  ``search`` (default) is the
branch-and-bound of :mod:`gamelp.models.kdet_search`, ``mip`` the MIP sweep
on ``--backend``.  Leduc uses ``--leduc-mip-gap`` (1% by default, as the
bench; absolute ``--abs-gap`` near 0); each MIP, or each k of the search,
stops after ``--time-limit`` seconds, and a point that did not reach its gap
says so (its bound) in the JSON and as a band in the plot.
"""

import argparse
import json
from pathlib import Path

from tqdm import tqdm

from gamelp.game import load_game
from gamelp.models.determinism import k_sweep
from gamelp.models.kdet_search import search_sweep
from gamelp.plots import plot_k_sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", choices=("search", "mip"), default="search")
    parser.add_argument("--backend", default="highs", help="backend of --method mip")
    parser.add_argument("--games", default="rps,kuhn,leduc")
    parser.add_argument("--mip-gap", type=float, default=1e-6, help="relative MIP gap for rps and kuhn")
    parser.add_argument("--leduc-mip-gap", type=float, default=0.01)
    parser.add_argument("--abs-gap", type=float, default=1e-4, help="absolute gap accepted near 0 (search)")
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds per MIP or per k of the search (default 60; a point stopped early "
                             "reports its own gap)")
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
                progress = lambda done, _total: bar.update(done - bar.n)  # noqa: E731
                if args.method == "search":
                    sweep = search_sweep(game, player, rel_gap=gap, abs_gap=args.abs_gap,
                                         time_limit=args.time_limit, progress=progress)
                else:
                    sweep = k_sweep(game, player, args.backend, mip_gap=gap, time_limit=args.time_limit,
                                    progress=progress)
            rows = [p.to_dict() for p in sweep.points]
            curves[f"player {player}"] = rows
            work = f"{sweep.mips_solved} searches, {sweep.nodes} nodes" if args.method == "search" \
                else f"{sweep.mips_solved} MIPs"
            over = [p.k for p in sweep.points if not p.within(gap, args.abs_gap)]
            print(f"{name} player {player}: {work} for {total} values of k, + {sweep.lps_solved} LPs, "
                  f"{sweep.wall_time:.1f} s; V(0) = {rows[0]['value']:.6f}, V({total - 1}) = {rows[-1]['value']:.6f}, "
                  f"k over the gap: {over or 'none'}")
        plot = plot_k_sweep(curves, out / f"kdet_{name}.png", title=f"{name}: value against k")
        temporary = out / f"kdet_{name}.json.tmp"
        temporary.write_text(json.dumps(curves, indent=1))
        temporary.replace(out / f"kdet_{name}.json")
        print(f"  plot: {plot}")


if __name__ == "__main__":
    main()
