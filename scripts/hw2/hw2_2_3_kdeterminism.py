"""Homework 2, problem 2.3: value against k (k decision points forced deterministic), all games, both players.

    python scripts/hw2/hw2_2_3_kdeterminism.py [--method search|mip] [--games rps,kuhn,leduc] [--envelope S] [--out out]

Writes one plot per game (both players' step curves) to ``OUT/kdet_<game>.png`` and the points (with their
strategies) to ``OUT/kdet_<game>.json``; prints the curve's ends, the work and the time. ``search`` (default)
is the branch-and-bound of :mod:`gamelp.models.kdet_search`, ``mip`` the MIP sweep on ``--backend`` (both by
:func:`gamelp.models.kdet_search.sweep_kdet`). Leduc uses ``--leduc-mip-gap`` (1% by default, as the bench);
every game the absolute ``--abs-gap`` near 0; each MIP, or each k of the search, stops after ``--time-limit``
seconds, and a point that did not reach its gap says so (its bound) in the JSON and as a band in the plot.
``--envelope S`` feeds the search the Lagrangian envelope (:mod:`gamelp.models.kdet_envelope`, ``S`` seconds
per MIP) first.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from gamelp.cli.args import OneLineParser, add_sweep_abs_gap, finite_float, output_directory, run_script
from gamelp.cli.output import SWEEP_BAR
from gamelp.game import load_game
from gamelp.io import write_text
from gamelp.models.kdet_search import sweep_kdet
from gamelp.plots import plot_k_sweep


@dataclass
class PlayerSweep:
    """One player's sweep over k = 0 .. decision points: its points, the work and the time."""

    game: str
    player: int
    method: str
    k_values: int  # decision points + 1
    points: list[dict]  # one per k: k, value, determinism, bound, ... (as in the JSON)
    mips_solved: int  # searches with --method search
    nodes: int | None  # search nodes (--method search only)
    lps_solved: int
    wall_time: float
    over_gap: list[int]  # the k whose point did not reach its gap

    @property
    def values(self) -> list[float]:
        return [p["value"] for p in self.points]


@dataclass
class KDeterminism:
    method: str
    sweeps: list[PlayerSweep]
    plots: dict[str, Path]  # per game
    files: dict[str, Path]  # per game, the JSON of both players' points


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--method",
        choices=("search", "mip"),
        default="search",
        help="the branch-and-bound search or one MIP per k (default %(default)s)",
    )
    parser.add_argument("--backend", default="highs", help="backend of --method mip")
    parser.add_argument("--games", default="rps,kuhn,leduc", help="comma-separated games (default %(default)s)")
    parser.add_argument("--mip-gap", type=finite_float(0.0), default=1e-6, help="relative MIP gap for rps and kuhn")
    parser.add_argument(
        "--leduc-mip-gap",
        type=finite_float(0.0),
        default=0.01,
        help="relative gap for leduc (default 0.01, as the bench)",
    )
    add_sweep_abs_gap(parser)
    parser.add_argument(
        "--time-limit",
        type=finite_float(0.0, strict=True),
        default=60.0,
        help="seconds per MIP or per k of the search (default 60; a point stopped early reports its own gap)",
    )
    parser.add_argument(
        "--envelope",
        type=finite_float(0.0, strict=True),
        metavar="SECONDS",
        help="search: start from the Lagrangian envelope's bounds and strategies (SECONDS per MIP)",
    )
    parser.add_argument(
        "--out",
        type=output_directory,
        default="out",
        help="directory for kdet_GAME.png and kdet_GAME.json (default %(default)s)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv: list[str] | None = None) -> KDeterminism:
    args = build_parser().parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = KDeterminism(args.method, [], {}, {})
    for name in args.games.split(","):
        game = load_game(name)
        gap = args.leduc_mip_gap if name == "leduc" else args.mip_gap
        curves = {}
        for player in (1, 2):
            total = game.player(player).num_decision_points + 1
            with tqdm(total=total, desc=f"{name} player {player}", bar_format=SWEEP_BAR, disable=args.quiet) as bar:
                sweep = sweep_kdet(
                    game,
                    player,
                    args.method,
                    backend=args.backend,
                    rel_gap=gap,
                    abs_gap=args.abs_gap,
                    time_limit=args.time_limit,
                    envelope=args.envelope,
                    progress=lambda done, _total: bar.update(done - bar.n),
                )
            rows = [p.to_dict() for p in sweep.points]
            curves[f"player {player}"] = rows
            result.sweeps.append(
                PlayerSweep(
                    name,
                    player,
                    args.method,
                    total,
                    rows,
                    sweep.mips_solved,
                    sweep.nodes if args.method == "search" else None,
                    sweep.lps_solved,
                    sweep.wall_time,
                    [p.k for p in sweep.points if not p.within(gap, args.abs_gap)],
                )
            )
        result.plots[name] = plot_k_sweep(curves, out / f"kdet_{name}.png", title=f"{name}: value against k")
        result.files[name] = write_text(out / f"kdet_{name}.json", json.dumps(curves, indent=1))
    return result


def report(result: KDeterminism) -> None:
    for name, plot in result.plots.items():
        for s in (s for s in result.sweeps if s.game == name):
            work = f"{s.mips_solved} searches, {s.nodes} nodes" if s.method == "search" else f"{s.mips_solved} MIPs"
            print(
                f"{name} player {s.player}: {work} for {s.k_values} values of k, + {s.lps_solved} LPs, "
                f"{s.wall_time:.1f} s; V(0) = {s.values[0]:.6f}, V({s.k_values - 1}) = {s.values[-1]:.6f}, "
                f"k over the gap: {s.over_gap or 'none'}"
            )
        print(f"  plot: {plot}")


if __name__ == "__main__":
    run_script(main, report)
