"""Benchmark: gamelp's exact refined equilibria beside OpenSpiel's numeric perturbed LP.

    python scripts/bench/bench_refine.py [--games kuhn_poker] [--openspiel-eps 1e-2,1e-4,1e-8]
        [--no-openspiel] [--refine quasi-perfect|proper]

For each OpenSpiel game it times, in this process, gamelp's plain Nash LP
(:func:`gamelp.models.nash.solve_equilibrium`, HiGHS) and its quasi-perfect
equilibrium (:func:`gamelp.models.refine.solve_refined`: the perturbed LP of
Miltersen and Sørensen 2010 on HiGHS, its basis made optimal for every small
eps by exact pivots, the limit in rational arithmetic), with the eps HiGHS
solved and the pivots taken.  In the same run it times OpenSpiel's
``sequence_form_lp.solve_perturbed_zero_sum_game`` (the same perturbed LP at
one numeric eps, through cvxpy's default solver) at each ``--openspiel-eps``,
and compares its behavioural strategies with gamelp's exact limit at every
information set of both players: the largest difference of an action's
probability, and how many information sets differ by more than 1e-3.  Times
are wall seconds on a machine that may be shared.

Measured (2 cores at load 15): on Kuhn, OpenSpiel's answer is 1e-2 off the
exact limit at eps = 1e-2 (11 of 12 information sets), 1.2e-4 off at 1e-4,
and 0.3 off at 1e-8, where the perturbation is below the solver's tolerances
and an arbitrary Nash point comes back (3 sets).

``--refine proper`` times the normal-form proper equilibrium instead
(:mod:`gamelp.models.proper`: Dresher's procedure, one exact-checked LP per
stage, ``lps`` of them); OpenSpiel's rows then say how far its perturbed LP
(a quasi-perfect one) lies from the proper strategies.  Measured (2 cores at
load 2.5): Kuhn 19 LPs in 0.12 s (OpenSpiel's answer 0.5 off the proper
strategies at 3 sets, at eps = 1e-4 and 1e-8: the two refinements differ
there); the built-in ``leduc`` 330 LPs in 35 s; OpenSpiel's ``leduc_poker``
559 LPs and 114 exact dual simplex steps in 11 minutes (its later stages are
degenerate, and HiGHS stops at bases feasible only within its tolerance).  OpenSpiel's
``leduc_poker`` is left out of the default: gamelp's refinement of it did not
finish in 15 minutes there (the built-in ``leduc``, the same game with
another order of sequences, takes HiGHS's basis at eps = 1/48 and 24 exact
pivots, about half a minute).
"""

import argparse
import time
from dataclasses import dataclass

from gamelp.cli.args import OneLineParser, name_list, run_script
from gamelp.deps import require
from gamelp.errors import GamelpError
from gamelp.games.openspiel import load_openspiel
from gamelp.models.nash import solve_equilibrium
from gamelp.models.refine import solve_refined

# A probability that differs from gamelp's exact one by more than this counts as a different play.
DIFFERENT = 1e-3


@dataclass
class RefineSpeed:
    """gamelp's plain and refined solves per game, and OpenSpiel's perturbed LP per game and eps."""

    games: list[dict]  # game, information_sets, nash, refined (seconds), epsilon, pivots, value
    openspiel: list[dict]  # game, eps, seconds, value, largest (difference), differing, status


def ours(name: str, refinement: str = "quasi-perfect"):
    """Load ``name`` from OpenSpiel; time the plain Nash LP and the refined equilibrium."""
    game = load_openspiel(name)
    began = time.perf_counter()
    solve_equilibrium(game)
    solved = time.perf_counter()
    refined = solve_refined(game, refinement)
    done = time.perf_counter()
    row = {
        "game": name,
        "information_sets": game.pl1.num_decision_points + game.pl2.num_decision_points,
        "nash": solved - began,
        "refined": done - solved,
        "refinement": refinement,
        "epsilon": refined.epsilon,
        "lps": refined.tries,
        "pivots": refined.pivots,
        "value": refined.exact_value,
    }
    return game, refined, row


def openspiel(game, refined, eps: float) -> dict:
    """OpenSpiel's perturbed LP at ``eps``: its time, value and distance from gamelp's exact limit."""
    from cvxpy.error import SolverError
    from open_spiel.python.algorithms import sequence_form_lp

    row: dict = {"game": game.name, "eps": eps}
    began = time.perf_counter()
    try:
        value, _, first, second = sequence_form_lp.solve_perturbed_zero_sum_game(game.spiel_game, eps=eps)
    except SolverError as error:  # the solver's failure at this eps is a result of the comparison
        return {**row, "status": f"error: {str(error)[:70]}"}
    seconds = time.perf_counter() - began
    largest, differing = 0.0, 0
    for seat, policy in enumerate((first, second)):
        for point, probabilities in refined.behavioural_of(seat + 1).items():
            ids = game.action_ids[(seat, point)]
            theirs = policy.action_probability_array[policy.state_lookup[point]]
            gap = max(abs(p - float(theirs[ids[a]])) for a, p in probabilities.items())
            largest, differing = max(largest, gap), differing + (gap > DIFFERENT)
    return {
        **row,
        "status": "ok",
        "seconds": seconds,
        "value": float(value),
        "largest": largest,
        "differing": differing,
    }


def eps_list(text: str) -> list[float]:
    """``1e-2,1e-4``: perturbations in (0, 0.1]."""
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        values = []
    if not values or not all(0 < v <= 0.1 for v in values):
        raise argparse.ArgumentTypeError(f"expected perturbations in (0, 0.1] like 1e-2,1e-4, got {text!r}")
    return values


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games",
        type=name_list(example="kuhn_poker,leduc_poker"),
        default="kuhn_poker",
        help="OpenSpiel games, comma-separated (default: %(default)s)",
    )
    parser.add_argument(
        "--openspiel-eps",
        type=eps_list,
        default="1e-2,1e-4,1e-8",
        help="perturbations OpenSpiel's LP is solved at, comma-separated (default: %(default)s; its docs say 1e-8)",
    )
    parser.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel's perturbed LP")
    parser.add_argument(
        "--refine",
        choices=("quasi-perfect", "proper"),
        default="quasi-perfect",
        help="gamelp's refinement to time (default: %(default)s)",
    )
    return parser


def main(argv: list[str] | None = None) -> RefineSpeed:
    args = build_parser().parse_args(argv)
    require("pyspiel", "bench_refine's games", extra="bench")
    if not args.no_openspiel:
        from open_spiel.python.algorithms import sequence_form_lp

        if not hasattr(sequence_form_lp, "solve_perturbed_zero_sum_game"):
            raise GamelpError(
                "this OpenSpiel release has no sequence_form_lp.solve_perturbed_zero_sum_game (the peer): "
                "upgrade open_spiel, or pass --no-openspiel"
            )
    games, rows = [], []
    for name in args.games:
        game, refined, row = ours(name, args.refine)
        games.append(row)
        if not args.no_openspiel:
            rows += [openspiel(game, refined, eps) for eps in args.openspiel_eps]
    return RefineSpeed(games=games, openspiel=rows)


def report(result: RefineSpeed) -> None:
    refinement = result.games[0]["refinement"] if result.games else "quasi-perfect"
    print(f"gamelp: the plain Nash LP, then the {refinement} equilibrium (LPs on HiGHS, exact pivots, exact answer)")
    print(
        f"{'game':14s} {'info sets':>9s} {'nash s':>7s} {'refined s':>9s} {'eps':>6s} {'LPs':>4s} {'pivots':>6s}  value"
    )
    for row in result.games:
        print(
            f"{row['game']:14s} {row['information_sets']:9d} {row['nash']:7.2f} {row['refined']:9.2f} "
            f"{row['epsilon']!s:>6s} {row['lps']:4d} {row['pivots']:6d}  {float(row['value']):.12g}"
        )
    if result.openspiel:
        print(
            f"\nOpenSpiel: solve_perturbed_zero_sum_game(game, eps) beside gamelp's exact {refinement} strategies "
            f"({DIFFERENT:g}: differ)"
        )
        print(f"{'game':14s} {'eps':>7s} {'seconds':>8s} {'value':>14s} {'largest diff':>12s} {'sets differing':>14s}")
    for row in result.openspiel:
        if row["status"] != "ok":
            print(f"{row['game']:14s} {row['eps']:7.0e} {row['status']}")
            continue
        print(
            f"{row['game']:14s} {row['eps']:7.0e} {row['seconds']:8.2f} {row['value']:14.10f} "
            f"{row['largest']:12.2e} {row['differing']:14d}"
        )


if __name__ == "__main__":
    run_script(main, report)
