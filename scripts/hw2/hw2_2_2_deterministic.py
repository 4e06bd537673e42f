"""Homework 2, problem 2.2: the best deterministic strategy of each player (the deterministic ILP).

    python scripts/hw2/hw2_2_2_deterministic.py [--backend highs|gurobi|pyomo:appsi_highs] [--verbose]

Prints the ILP value beside the LP value (what determinism costs) and the
homework's Kuhn figure for player 1 (-0.1666...).
"""

from dataclasses import dataclass

from gamelp.cli.args import OneLineParser, run_script
from gamelp.game import load_game
from gamelp.models.determinism import solve_deterministic
from gamelp.models.nash import solve_nash

HOMEWORK = {("kuhn", 1): -1 / 6}


@dataclass
class DeterministicValue:
    """One player's best deterministic value (the ILP) beside the LP value and the homework's figure."""

    game: str
    player: int
    deterministic: float
    lp: float
    homework: float | None
    mip_gap: float
    log: str | None = None  # the ILP's solver log, with --verbose


@dataclass
class DeterministicValues:
    values: list[DeterministicValue]


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="highs", help="MIP backend (default %(default)s)")
    parser.add_argument("--games", default="rps,kuhn,leduc", help="comma-separated games (default %(default)s)")
    parser.add_argument("--verbose", action="store_true", help="print each solver log")
    return parser


def main(argv: list[str] | None = None) -> DeterministicValues:
    args = build_parser().parse_args(argv)
    values = []
    for name in args.games.split(","):
        game = load_game(name)
        for player in (1, 2):
            ilp = solve_deterministic(game, player, args.backend)
            lp = solve_nash(game, player, args.backend)
            values.append(
                DeterministicValue(
                    name,
                    player,
                    ilp.value,
                    lp.value,
                    HOMEWORK.get((name, player)),
                    ilp.solution.mip_gap,
                    ilp.solution.log if args.verbose else None,
                )
            )
    return DeterministicValues(values)


def report(result: DeterministicValues) -> None:
    print(f"{'game':6s} {'player':>6s} {'deterministic':>14s} {'LP':>12s} {'homework':>10s} {'MIP gap':>8s}")
    for r in result.values:
        shown = f"{r.homework:.4f}" if r.homework is not None else ""
        print(f"{r.game:6s} {r.player:6d} {r.deterministic:14.8f} {r.lp:12.8f} {shown:>10s} {r.mip_gap:8.1e}")
        if r.log is not None:
            print(r.log)


if __name__ == "__main__":
    run_script(main, report)
