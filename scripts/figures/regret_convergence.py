"""The regret methods on a sequence-form game: the saddle-point gap of the average strategies against iterations.

Runs every CFR-family method of ``gamelp.regret`` (CFR, CFR+, DCFR, PCFR+, DCFR+, PDCFR+; Brown and Sandholm
2019, Farina, Kroer and Sandholm 2021, Xu et al. 2024) for ``--iterations`` iterations in self-play on
``--game``, measuring the gap every ``--check-every`` iterations, prints each method's gap at the end and the
first measured iteration at which it reached ``--target``, and with ``--plot`` draws the gaps on log-log axes
beside the Nash LP's gap (the figure of the documentation's regret guide):

    python scripts/figures/regret_convergence.py --game leduc --iterations 2000 --plot docs/figures/regret-leduc.png
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gamelp.argtypes import finite_float, integer
from gamelp.cli.args import OneLineParser, plot_path, run_script
from gamelp.game import load_game
from gamelp.regret import solve_regret

METHODS = ("cfr", "cfr+", "dcfr", "pcfr+", "dcfr+", "pdcfr+")


@dataclass
class Curve:
    method: str
    checked: np.ndarray  # iterations at which the gap was measured
    gaps: np.ndarray  # the gap of the average strategies there
    reached: int | None  # the first measured iteration with a gap at most the target


@dataclass
class Convergence:
    game: str
    target: float
    curves: list[Curve]


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc", help="a game file or built-in name (default leduc)")
    parser.add_argument("--iterations", type=integer(1), default=2000, help="default 2000")
    parser.add_argument("--check-every", type=integer(1), default=10, help="default 10")
    parser.add_argument(
        "--target", type=finite_float(0, strict=True), default=1e-4, help="gap to report reaching (default 1e-4)"
    )
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated (default all six)")
    parser.add_argument("--plot", type=plot_path, help="write the figure here (PNG)")
    return parser


def main(argv: list[str] | None = None) -> Convergence:
    args = build_parser().parse_args(argv)
    game = load_game(args.game)
    curves = []
    for method in args.methods.split(","):
        run = solve_regret(game, method, args.iterations, check_every=args.check_every, track_last=False)
        reached = np.flatnonzero(run.gaps <= args.target)
        curves.append(Curve(method, run.checked, run.gaps, int(run.checked[reached[0]]) if reached.size else None))
    result = Convergence(args.game, args.target, curves)
    if args.plot:
        plot(result, args.plot)
    return result


def plot(result: Convergence, path) -> None:
    from matplotlib.figure import Figure

    from gamelp.plots import save_figure

    fig = Figure(figsize=(7, 4.2))
    ax = fig.subplots()
    for curve in result.curves:
        ax.loglog(curve.checked, curve.gaps, label=curve.method)
    ax.axhline(result.target, color="grey", linestyle=":", linewidth=1, label=f"gap {result.target:g}")
    ax.set_xlabel("iterations")
    ax.set_ylabel("saddle-point gap of the averages")
    ax.set_title(f"{result.game}: regret methods in self-play")
    ax.legend(ncols=2, fontsize="small")
    fig.tight_layout()
    save_figure(fig, path)


def report(result: Convergence) -> None:
    print(f"{'method':8s} {'iterations':>10s} {'final gap':>10s} {'reached ' + format(result.target, 'g'):>14s}")
    for curve in result.curves:
        reached = "-" if curve.reached is None else str(curve.reached)
        print(f"{curve.method:8s} {int(curve.checked[-1]):10d} {curve.gaps[-1]:10.2e} {reached:>14s}")


if __name__ == "__main__":
    run_script(main, report)
