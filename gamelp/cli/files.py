"""The game-file commands: ``gamelp validate``, ``gamelp export`` (a model as LP/MPS) and ``gamelp export-game``."""

from __future__ import annotations

import argparse

from gamelp.cli.args import add_game_argument, integer, load_game_argument
from gamelp.cli.output import print_json
from gamelp.errors import GamelpError
from gamelp.io import check_writable
from gamelp.registry import writer

EXPORT_FORMATS = ("lp", "mps")


def add_subparser(commands) -> None:
    """Add ``validate``, ``export`` and ``export-game`` to the main parser's sub-commands."""
    validate = commands.add_parser("validate", help="check a game file against the schema and summarise it")
    add_game_argument(validate)
    validate.add_argument("--json", action="store_true", help="print JSON: the verdict, the sizes, the action names")
    validate.set_defaults(func=run_validate)

    export = commands.add_parser(
        "export", help="write a model as an LP or MPS file (payoffs far from 1 divided by their range, which it prints)"
    )
    add_game_argument(export)
    export.add_argument(
        "--model",
        choices=("nash", "deterministic", "kdet"),
        default="nash",
        help="which model (default nash, the sequence-form LP)",
    )
    export.add_argument("--player", type=int, choices=(1, 2), default=1, help="whose model (default 1)")
    export.add_argument("--k", type=integer(0), help="k of --model kdet")
    export.add_argument("--format", choices=EXPORT_FORMATS, help="file format (default: from -o's extension, else lp)")
    export.add_argument("-o", "--output", required=True, help="file to write; .lp or .mps chooses the format")
    export.set_defaults(func=run_export)

    export_game = commands.add_parser("export-game", help="write a game as JSON (.json) or Gambit (.efg)")
    add_game_argument(export_game)
    export_game.add_argument(
        "-o",
        "--output",
        required=True,
        help="FILE.json, or FILE.efg (OpenSpiel games and the poker generators kuhn, leduc)",
    )
    export_game.set_defaults(func=run_export_game)


def run_validate(args: argparse.Namespace) -> int:
    """``gamelp validate``: check a game file against the schema and the loader; print its sizes and action names.

    The action names are the file's optional ``action_names`` (what each action or signal means), printed
    as a legend line when the file has them.
    """
    game = load_game_argument(args, schema=True)
    sizes = {
        str(p): {"decision_points": game.player(p).num_decision_points, "sequences": game.player(p).num_sequences}
        for p in (1, 2)
    }
    if args.json:
        print_json(
            {
                "file": args.game,
                "valid": True,
                "players": sizes,
                "utility_entries": game.A.nnz,
                "action_names": dict(game.action_names),
            }
        )
        return 0
    parts = [
        f"player {p}: {s['decision_points']} decision points, {s['sequences']} sequences" for p, s in sizes.items()
    ]
    print(f"{args.game}: valid; " + "; ".join(parts) + f"; {game.A.nnz} utility entries")
    if game.action_names:
        print("actions: " + ", ".join(f"{name} = {meaning}" for name, meaning in game.action_names.items()))
    return 0


def run_export(args: argparse.Namespace) -> int:
    """``gamelp export``: write a game's Nash LP, deterministic ILP or k-determinism MIP as an LP or MPS file.

    A game whose payoff range lies outside [1e-3, 1e3] is written with its payoffs divided by the range
    (:func:`gamelp.units.normalised`), as the solvers see it; the message then gives the range, the
    factor from the file's objective to the game's value.
    """
    from gamelp.models.determinism import deterministic_ilp, kdet_mip
    from gamelp.models.nash import sequence_form_lp
    from gamelp.units import normalised

    path = check_writable(export_path(args.output, args.format))  # a bad -o is refused before the model is built
    # Payoffs far from 1 are divided by their range, as every solve does: HiGHS would otherwise drop
    # coefficients below 1e-9 (or write huge ones), and the file would not be the model solved.
    game, unit = normalised(load_game_argument(args), when_needed=True)
    if args.model == "kdet":
        if args.k is None:
            raise GamelpError("--model kdet needs --k K")
        model = kdet_mip(game, args.player, args.k)
    elif args.model == "deterministic":
        model = deterministic_ilp(game, args.player)
    else:
        model = sequence_form_lp(game, args.player)
    model.write(str(path))  # atomically: on any failure the file is left as it was, and no "wrote" line
    scaled = (
        ""
        if unit == 1.0
        else f"; payoffs divided by their range {unit:.17g} (multiply the objective by it for the game's value)"
    )
    print(f"wrote {path}: {model.num_variables} variables, {model.num_constraints} constraints{scaled}")
    return 0


def export_path(output: str, fmt: str | None) -> str:
    """The file to write: -o as given when its extension names the format, else with ``.fmt`` appended."""
    given = output.rsplit(".", 1)[-1].lower() if "." in output.rsplit("/", 1)[-1] else ""
    if given in EXPORT_FORMATS:
        if fmt is not None and fmt != given:
            raise GamelpError(f"-o {output} has the extension .{given}, but --format {fmt} was asked for")
        return output
    return f"{output}.{fmt or 'lp'}"


def run_export_game(args: argparse.Namespace) -> int:
    """``gamelp export-game``: write a game as a JSON game file, or in a format the game registry has a writer for.

    The games layer registers Gambit's ``.efg`` (:mod:`gamelp.registry`), which writes the game tree.
    """
    write = None if args.output.lower().endswith(".json") else writer(args.output)
    if write is not None:
        print(f"wrote {args.output}: {write(args.game, args.output)}")
        return 0
    game = load_game_argument(args)
    game.save(args.output)
    print(
        f"wrote {args.output}: player 1 {game.pl1.num_sequences} sequences, player 2 {game.pl2.num_sequences}, "
        f"{game.A.nnz} utility entries"
    )
    return 0
