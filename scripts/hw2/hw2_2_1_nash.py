"""Homework 2, problem 2.1: the Nash LP of both players in rock-paper-superscissors, Kuhn and Leduc.

    python scripts/hw2/hw2_2_1_nash.py [--backend highs|gurobi|pyomo:appsi_highs|cvxpy:CLARABEL] [--verbose]

Prints each value beside the homework's figure for player 1 and checks that
the two players' values sum to zero; ``--verbose`` shows each solver log, as
the homework asks.
"""

from dataclasses import dataclass

from gamelp.cli.args import OneLineParser, run_script
from gamelp.game import load_game
from gamelp.models.nash import solve_nash

HOMEWORK = {"rps": 0.0, "kuhn": -0.0555, "leduc": -0.0856}


@dataclass
class NashValue:
    """One player's value of one game, the homework's figure (player 1 only) and the pair's saddle-point gap."""

    game: str
    player: int
    value: float
    homework: float | None
    saddle_gap: float
    log: str | None = None  # the solver log, with --verbose


@dataclass
class NashValues:
    values: list[NashValue]
    sums: dict[str, float]  # per game, player 1's value plus player 2's


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="highs", help="LP backend (default %(default)s)")
    parser.add_argument("--verbose", action="store_true", help="print each solver log")
    return parser


def main(argv: list[str] | None = None) -> NashValues:
    args = build_parser().parse_args(argv)
    values, sums = [], {}
    for name, published in HOMEWORK.items():
        game = load_game(name)
        results = [solve_nash(game, player, args.backend) for player in (1, 2)]
        gap = game.saddle_point_gap(results[0].strategy, results[1].strategy)
        for r in results:
            values.append(
                NashValue(
                    name,
                    r.player,
                    r.value,
                    published if r.player == 1 else None,
                    gap,
                    r.solution.log if args.verbose else None,
                )
            )
        sums[name] = results[0].value + results[1].value
    return NashValues(values, sums)


def report(result: NashValues) -> None:
    print(f"{'game':6s} {'player':>6s} {'value':>14s} {'homework (pl 1)':>16s} {'saddle gap':>11s}")
    for name, total in result.sums.items():
        for r in (v for v in result.values if v.game == name):
            shown = f"{r.homework:.4f}" if r.homework is not None else ""
            print(f"{name:6s} {r.player:6d} {r.value:14.8f} {shown:>16s} {r.saddle_gap:11.2e}")
            if r.log is not None:
                print(r.log)
        print(f"{name:6s} {'sum':>6s} {total:14.2e}")


if __name__ == "__main__":
    run_script(main, report)
