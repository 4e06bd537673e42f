"""Kuhn poker's family of optimal strategies for player 1, and where each answer of gamelp lies on it.

Player 1's optimal strategies in Kuhn poker form a one-parameter family (Kuhn 1950): bet the jack with
probability ``alpha`` in ``[0, 1/3]``, check the queen, bet the king with ``3 alpha``; after check-bet fold the
jack, call with the queen with ``alpha + 1/3``, call with the king.  The script builds the family's
sequence-form strategies ``x(alpha)``, checks each is optimal (its guaranteed value, by a best response, is
-1/18), and places on it: the plain Nash LP's answer of every installed backend (``--backends``), the strategy
``select="min-norm"`` picks (:mod:`gamelp.models.select`), the quasi-perfect one
(:mod:`gamelp.models.refine`) and the normal-form proper one (:mod:`gamelp.models.proper`).  It prints each
point's ``alpha``, its squared norm and its distance from the family, and with ``--plot`` draws
``||x(alpha)||^2`` with the points on it (the figure of the documentation's
"Which equilibrium" page):

    python scripts/figures/kuhn_family.py --plot docs/figures/kuhn_family.png
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gamelp import available_backends
from gamelp.cli.args import OneLineParser, plot_path, run_script
from gamelp.errors import GamelpError
from gamelp.game import SequenceFormGame, load_game
from gamelp.models.nash import solve_nash
from gamelp.models.refine import solve_refined

VALUE = -1 / 18  # player 1's value of Kuhn poker


@dataclass
class Point:
    name: str  # "min-norm", "quasi-perfect" or the backends whose plain LP returned it
    alpha: float  # the probability of betting the jack
    norm: float  # ||x||^2
    off: float  # largest distance of x from x(alpha): 0 on the family


@dataclass
class Family:
    alphas: np.ndarray
    norms: np.ndarray
    worst_value: float  # the least guaranteed value along the family: -1/18 when every member is optimal
    points: list[Point]
    failed: list[str]  # backends whose plain LP did not answer, with why


def family_strategy(game: SequenceFormGame, alpha: float) -> np.ndarray:
    """Player 1's optimal strategy with parameter ``alpha`` (sequence form)."""
    return game.pl1.from_behavioural(
        {
            "dJ_pl1": {"k": 1 - alpha, "b": alpha},
            "dJ/kb_pl1": {"f": 1.0, "c": 0.0},
            "dQ_pl1": {"k": 1.0, "b": 0.0},
            "dQ/kb_pl1": {"f": 2 / 3 - alpha, "c": alpha + 1 / 3},
            "dK_pl1": {"k": 1 - 3 * alpha, "b": 3 * alpha},
            "dK/kb_pl1": {"f": 0.0, "c": 1.0},
        }
    )


def place(game: SequenceFormGame, name: str, x: np.ndarray) -> Point:
    """``x`` on the family: its ``alpha`` (its jack bet), its squared norm and how far it is from ``x(alpha)``."""
    alpha = float(x[game.pl1.index[("dJ_pl1", "b")]])
    off = float(np.abs(x - family_strategy(game, alpha)).max())
    return Point(name, alpha, float(x @ x), off)


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--backends",
        default=None,
        help="comma-separated backends whose plain LP answers are placed (default: every installed one)",
    )
    parser.add_argument("--plot", type=plot_path, help="write the figure here (PNG)")
    return parser


def main(argv: list[str] | None = None) -> Family:
    args = build_parser().parse_args(argv)
    game = load_game("kuhn")
    names = args.backends.split(",") if args.backends else [b.name for b in available_backends()]
    alphas = np.linspace(0.0, 1 / 3, 201)
    members = [family_strategy(game, a) for a in alphas]
    norms = np.array([x @ x for x in members])
    worst = min(game.guaranteed_value(1, x) for x in members)
    by_alpha: dict[float, list[str]] = {}
    answers: dict[float, np.ndarray] = {}
    failed = []
    for name in names:
        try:
            x = solve_nash(game, 1, name).strategy
        except GamelpError as exc:
            failed.append(f"{name}: {str(exc).splitlines()[0]}")
            continue
        key = round(float(x[game.pl1.index[("dJ_pl1", "b")]]), 4)
        by_alpha.setdefault(key, []).append(name)
        answers.setdefault(key, x)
    points = [place(game, ", ".join(group), answers[key]) for key, group in sorted(by_alpha.items())]
    points.append(place(game, "min-norm", solve_nash(game, 1, select="min-norm").strategy))
    for refinement in ("quasi-perfect", "proper"):
        points.append(place(game, refinement, solve_refined(game, refinement).x))
    result = Family(alphas, norms, worst, points, failed)
    if args.plot:
        plot(result, args.plot)
    return result


def plot(result: Family, path) -> None:
    from matplotlib.figure import Figure

    from gamelp.plots import save_figure

    fig = Figure(figsize=(7.5, 4.4))
    ax = fig.subplots()
    ax.plot(result.alphas, result.norms, color="black", linewidth=1.2, label=r"$\|x(\alpha)\|^2$, every optimal $x$")
    styles = {
        "min-norm": ("o", "tab:red", (0, -26), "center"),
        "quasi-perfect": ("D", "tab:green", (-12, -30), "right"),
        "proper": ("^", "tab:purple", (0, 14), "center"),
    }
    plain = [p for p in result.points if p.name not in styles]
    for k, point in enumerate(plain):
        ax.plot(point.alpha, point.norm, "s", color="tab:blue", markersize=7, label="plain LP" if k == 0 else None)
        if point.alpha < 0.1:  # the steep left end: the label to the right
            offset, align = (10, 0), "left"
        elif point.alpha > 0.3:  # the right end, shared with the quasi-perfect point: above, to the left
            offset, align = (-8, 28), "right"
        else:  # near the minimum: alternately left and right, above
            offset, align = ((6, 16), "left") if k % 2 else ((-6, 16), "right")
        ax.annotate(
            point.name.replace(", ", "\n"),
            (point.alpha, point.norm),
            textcoords="offset points",
            xytext=offset,
            ha=align,
            va="center",
            fontsize=7,
            color="tab:blue",
        )
    for point in result.points:
        if point.name in styles:
            marker, colour, offset, align = styles[point.name]
            ax.plot(point.alpha, point.norm, marker, color=colour, markersize=8, label=point.name)
            ax.annotate(
                f"{point.name}\n" + rf"$\alpha$ = {point.alpha:.4f}",
                (point.alpha, point.norm),
                textcoords="offset points",
                xytext=offset,
                ha=align,
                fontsize=8,
                color=colour,
            )
    ax.set_xlabel(r"$\alpha$: probability that player 1 bets the jack")
    ax.set_ylabel(r"squared norm of the sequence-form strategy")
    ax.set_title("Kuhn poker: player 1's optimal strategies (value -1/18)")
    ax.set_xlim(-0.02, 1 / 3 + 0.03)
    ax.set_ylim(4.0, max(result.norms) + 0.4)
    ax.legend(fontsize="small", loc="lower left")
    save_figure(fig, path)


def report(result: Family) -> None:
    print(f"family: alpha in [0, 1/3], least guaranteed value {result.worst_value:.12f} (value -1/18 = {VALUE:.12f})")
    print(f"{'point':40s} {'alpha':>8s} {'||x||^2':>9s} {'off':>8s}")
    for point in result.points:
        print(f"{point.name:40s} {point.alpha:8.5f} {point.norm:9.5f} {point.off:8.1e}")
    for line in result.failed:
        print(f"no answer: {line}")


if __name__ == "__main__":
    run_script(main, report)
