"""The ``gamelp evaluate`` command: what any strategy guarantees, its exploitability, the best response to it.

``gamelp evaluate GAME STRATEGY [--player 1|2|row|col|both] [--exact] [--backend B] [--json]``

``GAME`` is a sequence-form game as ``gamelp solve`` takes it, or a matrix game as ``gamelp matrix solve``
takes it (a payoff ``.csv``, a Gambit ``.nfg`` or a shipped matrix's name).  ``STRATEGY`` is a file
:func:`gamelp.models.evaluate.evaluate` reads: the JSON of ``gamelp solve --json`` or ``gamelp matrix solve
--json``, a behavioural or sequence-form JSON object, an OpenSpiel tabular policy as JSON, or a matrix game's
``label,probability`` CSV.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from gamelp.backends import DEFAULT_BACKEND
from gamelp.cli.args import BACKEND_HELP
from gamelp.cli.output import print_json
from gamelp.matrix import MatrixGame, shipped_matrices
from gamelp.models.evaluate import PROBABILITY_TOLERANCE, Evaluation, PlayerEvaluation, evaluate
from gamelp.registry import reader


def add_subparser(commands) -> argparse.ArgumentParser:
    """Add ``evaluate`` to the main parser's sub-commands."""
    parser = commands.add_parser(
        "evaluate",
        help="evaluate any strategy: the value it guarantees, its exploitability, the best response to it",
        description="Evaluate a strategy (or a profile of both players') against a best-responding opponent: the "
        "value it guarantees, its exploitability (the game value minus the guarantee; NashConv for a profile) and "
        "the opponent's best response at every information set. Probabilities at an information set must sum to 1 "
        f"within {PROBABILITY_TOLERANCE:g}; they are then divided by their sum.",
    )
    parser.add_argument(
        "game",
        help="a sequence-form game as gamelp solve takes it (a game JSON file, kuhn, leduc, leduc:RxS, "
        "openspiel:GAME_STRING, a .efg file), or a matrix game (a payoff .csv, a .nfg file, a shipped matrix)",
    )
    parser.add_argument(
        "strategy",
        help="the strategy: the JSON of gamelp solve --json or gamelp matrix solve --json, a JSON object "
        "information set -> {action: probability} or decision point:action -> weight, an OpenSpiel tabular policy "
        "as JSON (information state -> [[action id, probability], ...]), or a matrix game's label,probability CSV",
    )
    parser.add_argument(
        "--player",
        type=_player,
        help="whose strategy: 1, 2, row, col, or both for a profile (default: whose the file holds; a solve "
        "output's player)",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="rational arithmetic: probabilities and payoffs read as fractions, values and the game value "
        '(an exact certificate) printed as fractions, strings "p/q" with --json',
    )
    parser.add_argument(
        "--backend",
        default=DEFAULT_BACKEND,
        help="where the game value is solved for (one player's strategy); " + BACKEND_HELP,
    )
    parser.add_argument(
        "--sum-duplicates", action="store_true", help="add up duplicate utility entries instead of refusing the file"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run_evaluate)
    return parser


def _player(text: str) -> int | str:
    if text in ("1", "2"):
        return int(text)
    if text in ("row", "col", "both"):
        return text
    raise argparse.ArgumentTypeError(f"expected 1, 2, row, col or both, got {text!r}")


def _load(args):
    """The game: a matrix game for a payoff CSV, a file of a matrix format or a shipped matrix; else sequence form."""
    name = args.game
    if Path(name).suffix.lower() == ".csv" or reader(name, "matrix") is not None or name in shipped_matrices():
        return MatrixGame.load(name)
    from gamelp.game import load_game

    return load_game(name, sum_duplicates=args.sum_duplicates)


def run_evaluate(args) -> int:
    """``gamelp evaluate``: read the game and the strategy, evaluate, print."""
    game = _load(args)
    result = evaluate(game, args.strategy, args.player, exact=args.exact, backend=args.backend)
    if isinstance(game, MatrixGame):  # a matrix game has no name but its file's
        result = replace(result, game=args.game)
    if args.json:
        print_json({"strategy_file": args.strategy, **result.to_dict()})
    else:
        _print_text(result, args.strategy)
    return 0


# A fraction longer than this is shown as its float and the size of its denominator (--json writes it whole).
LONGEST_FRACTION = 40


def _shown(value) -> str:
    """A value of the JSON payload as text: a fraction as written (and its float), a float to 10 digits."""
    if not isinstance(value, str):
        return f"{value:.10g}"
    if "/" not in value:
        return value
    fraction = Fraction(value)
    if len(value) > LONGEST_FRACTION:
        digits = len(str(fraction.denominator))
        return f"{float(fraction):.10g} (exactly a fraction whose denominator has {digits} digits; --json writes it)"
    return f"{value} (= {float(fraction):.10g})"


def _print_text(result: Evaluation, source: str) -> None:
    payload = result.to_dict()
    exact = result.exact
    matrix = result.players[0].best_response_behavioural is None
    if result.game_value is None:
        print(
            f"{result.game}: the profile in {source}: NashConv {_shown(payload['nash_conv'])}"
            + " (OpenSpiel's exploitability is half of it)"
        )
    else:
        only = result.players[0]
        whose = f"the {only.player} player's" if matrix else f"player {only.player}'s"
        unit = " (the row player's payoff)" if matrix else ""
        print(
            f"{result.game}: {whose} strategy in {source} guarantees {_shown(payload['guaranteed_value'])}{unit}; the "
            f"game's value is {_shown(payload['game_value'])}: exploitability {_shown(payload['exploitability'])}"
        )
    for evaluated in result.players:
        _print_player(evaluated, payload["players"][str(evaluated.player)], len(result.players) > 1, matrix)
    if exact:
        print(
            f"exact: probabilities read as fractions ({payload['binary_probabilities']} taken as binary values), "
            f"payoffs read as fractions ({payload['binary_payoffs']} taken as binary values); "
            f"{payload['renormalised']} information sets renormalised"
        )


def _print_player(evaluated: PlayerEvaluation, payload: dict, profile: bool, matrix: bool) -> None:
    """One evaluated player's guarantee (in a profile) and the opponent's best response, one line a choice."""
    opponent = f"the {evaluated.opponent} player's" if matrix else f"player {evaluated.opponent}'s"
    whose = f"the {evaluated.player} player's" if matrix else f"player {evaluated.player}'s"
    lead = f"{whose} strategy guarantees {_shown(payload['guaranteed_value'])}; " if profile else ""
    response = payload["best_response"]
    if matrix:
        pure = next(label for label, weight in response["strategy"].items() if float(Fraction(weight)) == 1)
        print(f"{lead}{opponent} best response: {pure}")
        return
    print(f"{lead}{opponent} best response, at every information set:")
    for point, local in response["behavioural"].items():
        action = next(a for a, weight in local.items() if float(Fraction(weight)) == 1)
        print(f"  {point.replace(chr(10), ' ')}: {action}")
