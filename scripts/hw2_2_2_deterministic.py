"""Homework 2, problem 2.2: the best deterministic strategy of each player (the deterministic ILP).

    python scripts/hw2_2_2_deterministic.py [--backend highs|gurobi|pyomo:appsi_highs] [--verbose]

Prints the ILP value beside the LP value (what determinism costs) and the
homework's Kuhn figure for player 1 (-0.1666...).
"""

import argparse

from gamelp.game import load_game
from gamelp.models.determinism import solve_deterministic
from gamelp.models.nash import solve_nash

HOMEWORK = {("kuhn", 1): -1 / 6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="highs")
    parser.add_argument("--games", default="rps,kuhn,leduc")
    parser.add_argument("--verbose", action="store_true", help="print each solver log")
    args = parser.parse_args()
    print(f"{'game':6s} {'player':>6s} {'deterministic':>14s} {'LP':>12s} {'homework':>10s} {'MIP gap':>8s}")
    for name in args.games.split(","):
        game = load_game(name)
        for player in (1, 2):
            ilp = solve_deterministic(game, player, args.backend)
            lp = solve_nash(game, player, args.backend)
            published = HOMEWORK.get((name, player))
            shown = f"{published:.4f}" if published is not None else ""
            print(f"{name:6s} {player:6d} {ilp.value:14.8f} {lp.value:12.8f} {shown:>10s} "
                  f"{ilp.solution.mip_gap:8.1e}")
            if args.verbose:
                print(ilp.solution.log)


if __name__ == "__main__":
    main()
