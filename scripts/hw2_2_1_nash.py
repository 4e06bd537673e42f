"""Homework 2, problem 2.1: the Nash LP of both players in rock-paper-superscissors, Kuhn and Leduc.

    python scripts/hw2_2_1_nash.py [--backend highs|gurobi|pyomo:appsi_highs|cvxpy:CLARABEL] [--verbose]

Prints each value beside the homework's figure for player 1 and checks that
the two players' values sum to zero; ``--verbose`` shows each solver log, as
the homework asks.
"""

import argparse

from gamelp.game import load_game
from gamelp.models.nash import solve_nash

HOMEWORK = {"rps": 0.0, "kuhn": -0.0555, "leduc": -0.0856}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="highs")
    parser.add_argument("--verbose", action="store_true", help="print each solver log")
    args = parser.parse_args()
    print(f"{'game':6s} {'player':>6s} {'value':>14s} {'homework (pl 1)':>16s} {'saddle gap':>11s}")
    for name, published in HOMEWORK.items():
        game = load_game(name)
        results = [solve_nash(game, player, args.backend) for player in (1, 2)]
        gap = game.saddle_point_gap(results[0].strategy, results[1].strategy)
        for r in results:
            shown = f"{published:.4f}" if r.player == 1 else ""
            print(f"{name:6s} {r.player:6d} {r.value:14.8f} {shown:>16s} {gap:11.2e}")
            if args.verbose:
                print(r.solution.log)
        print(f"{name:6s} {'sum':>6s} {results[0].value + results[1].value:14.2e}")


if __name__ == "__main__":
    main()
