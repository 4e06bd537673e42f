"""The ``gamelp matrix`` command: solve a matrix game read from a payoff CSV or shipped by name.

``gamelp matrix solve FILE.csv|NAME [--player row|col] [--backend B] [--form general|thesis]
[--robust interval|ellipsoidal --radius R --std STD.csv] [--unique] [--select min-norm] [--no-reduce] [--json]``

``NAME`` is a shipped matrix (:meth:`gamelp.matrix.MatrixGame.load`), with its
shipped deviations for ``--robust``.  Strictly dominated rows and columns are
removed first (unless ``--no-reduce``; with ``--robust``, only those dominated
in every matrix of the uncertainty set); the printed strategy still lists every
original label, removed ones at 0.
:func:`add_subparser` plugs the command into the main ``gamelp`` parser; each
leaf sets ``func(args) -> int`` and bad input raises a ``GamelpError``.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gamelp.backends import DEFAULT_BACKEND
from gamelp.backends.registry import usage
from gamelp.cli.args import MAX_ITERATIONS, finite_float, integer, plot_path
from gamelp.cli.output import (
    add_constant_sum,
    certificate_note,
    constant_sum_note,
    print_fractions,
    print_json,
    regret_progress,
)
from gamelp.cli.solve import add_select_argument, check_select
from gamelp.errors import GamelpError
from gamelp.matrix import MatrixGame, shipped_matrices
from gamelp.models.nash import PLAYERS, MatrixNashResult, opponent_of, player_labels
from gamelp.registry import reader
from gamelp.regret import METHODS as REGRET_METHODS

if TYPE_CHECKING:  # the robust model is imported where --robust needs it
    from gamelp.models.robust import RobustResult


def add_subparser(subparsers) -> argparse.ArgumentParser:
    """Add ``matrix solve`` to the main parser's ``subparsers``."""
    matrix = subparsers.add_parser("matrix", help="matrix games from payoff CSVs (Nash, robust, uniqueness)")
    commands = matrix.add_subparsers(dest="matrix_command", required=True)
    solve = commands.add_parser(
        "solve",
        help="optimal mixed strategy of a matrix game",
        description="Solve a zero-sum matrix game (row player maximises the CSV's payoffs). The CSV's first "
        "row and column are labels.",
    )
    solve.add_argument(
        "file",
        help=f"payoff CSV, a shipped matrix by name ({', '.join(shipped_matrices())}), "
        "or a Gambit .nfg file (two-player zero-sum)",
    )
    solve.add_argument("--player", choices=("row", "col"), default="row", help="whose strategy (default row)")
    solve.add_argument(
        "--backend",
        default=DEFAULT_BACKEND,
        help="auto (default: HiGHS, or Clarabel for the ellipsoidal cone model), " + ", ".join(usage()[1:]),
    )
    solve.add_argument(
        "--form",
        choices=("general", "thesis"),
        default="general",
        help="LP form: general (any payoffs) or the thesis's min e^T x, C^T x >= e (needs value > 0)",
    )
    solve.add_argument("--robust", choices=("interval", "ellipsoidal"), help="robust LP over an uncertainty set")
    solve.add_argument("--radius", type=finite_float(0.0), help="radius R of the uncertainty set (with --robust)")
    solve.add_argument(
        "--std", help="CSV of standard deviations, same labels (with --robust; a shipped matrix brings its own)"
    )
    solve.add_argument(
        "--unique",
        action="store_true",
        help="Mangasarian's uniqueness test of the printed LP optimum; objectives and the second optimum in the "
        "input's units, tolerances read on the LP as the solver balances it (unit-free)",
    )
    add_select_argument(solve)
    solve.add_argument("--no-reduce", action="store_true", help="keep strictly dominated rows and columns")
    solve.add_argument(
        "--method",
        default="lp",
        choices=("lp", *REGRET_METHODS),
        help="lp (default) or first-order self-play (pcfr+ suits large games)",
    )
    solve.add_argument(
        "--target-gap",
        type=finite_float(0.0, strict=True),
        default=1e-6,
        help="first-order methods stop at this saddle-point gap, relative to the payoff range "
        "(the largest payoff magnitude; default 1e-6)",
    )
    solve.add_argument(
        "--iterations", type=integer(1, MAX_ITERATIONS), default=100_000, help="first-order iteration limit"
    )
    solve.add_argument(
        "--exact",
        action="store_true",
        help="with the LP: certify the answer exactly, both strategies and the value as fractions checked in "
        "rational arithmetic on the whole game (a check that fails is named, exit 2); with a first-order method: "
        "polish to an exact vertex by an LP on the supports",
    )
    solve.add_argument(
        "--plot",
        type=plot_path,
        help="draw the payoffs as a heat map with the equilibrium's support outlined to this file (.png, .pdf, ...)",
    )
    solve.add_argument("--json", action="store_true", help="print JSON")
    solve.set_defaults(func=run_solve)
    return matrix


def run_solve(args) -> int:
    """Solve, print, return 0; every user error surfaces as a GamelpError."""
    if args.robust and args.radius is None:
        raise GamelpError("--robust needs --radius R")
    if not args.robust and (args.radius is not None or args.std is not None):
        raise GamelpError("--radius and --std only make sense with --robust interval|ellipsoidal")
    check_select(
        args,
        (
            (args.method != "lp", f"--method {args.method}"),
            (bool(args.robust), "--robust"),
            (args.unique, "--unique (it tests the LP's own optimum)"),
        ),
    )
    if args.std and reader(args.file, "matrix") is not None:
        raise GamelpError(f"--std needs a payoff CSV (a {Path(args.file).suffix} file has no deviations)")
    game = MatrixGame.load(args.file, std_path=args.std)
    if args.robust and game.std is None:
        raise GamelpError(f"--robust needs --std STD.csv: {args.file} has no standard deviations")
    if args.robust and args.exact and args.method == "lp":
        raise GamelpError("--exact certifies the Nash equilibrium of the game: not with --robust")
    removed_rows: list[str] = []
    removed_cols: list[str] = []
    solved = game
    if not args.no_reduce:
        # A robust solve may only drop what is dominated in every matrix of the uncertainty set.
        solved, removed_rows, removed_cols = game.reduce_dominated(radius=args.radius if args.robust else 0.0)
    payload = {
        "file": str(args.file),
        "form": args.form,
        "shape": list(game.shape),
        "solved_shape": list(solved.shape),
        "removed": {"rows": removed_rows, "columns": removed_cols},
    }
    if args.method != "lp":
        return _run_first_order(args, game, solved, payload)

    def solve(matrix: MatrixGame) -> RobustResult | MatrixNashResult:
        if args.robust:
            from gamelp.models.robust import solve_robust

            return solve_robust(
                matrix, args.robust, args.radius, player=args.player, form=args.form, backend=args.backend
            )
        from gamelp.models.nash import solve_matrix_nash

        # With --exact HiGHS keeps the basis the certificate may solve.
        return solve_matrix_nash(
            matrix, args.player, args.backend, form=args.form, select=args.select, persistent=args.exact
        )

    result = solve(solved)
    payload.update(_with_removed_labels(result.to_dict(), game))
    if args.exact:
        payload["exact"] = _certificate(args, game, payload, result.model if solved is game else None)
    if args.unique:
        from gamelp.models.uniqueness import check_uniqueness

        # The printed optimum itself, in the CSV's units (the test balances a badly scaled LP for its tolerances).
        verdict = check_uniqueness(result.model, result.solution, backend=args.backend)
        payload.update(verdict.to_dict())
        payload["uniqueness_summary"] = verdict.summary()
    add_constant_sum(payload, game)  # a constant-sum .nfg: values with the constant
    _plot(args, game, payload)
    if args.json:
        print_json(payload)
    else:
        _print_text(payload)
    return 0


def _certificate(args, game: MatrixGame, payload: dict, model) -> dict:
    """``--exact``: the certificate of the printed pair on the whole game (removed rows and columns at 0)."""
    from gamelp.models.exact import certify_matrix_equilibrium

    strategies = {args.player: payload["strategy"], opponent_of(args.player): payload["opponent_strategy"]}
    row, col = ([strategies[p][label] for label in player_labels(game, p)] for p in PLAYERS)
    general = model if args.form == "general" else None  # the thesis form's basis is another LP's
    certificate = certify_matrix_equilibrium(game, np.array(row), np.array(col), model=general, player=args.player)
    return certificate.to_dict(PLAYERS.index(args.player), own_value=False)


def _plot(args, game: MatrixGame, payload: dict) -> None:
    """``--plot``: the whole game's heat map, the strategies' supports (removed rows and columns at 0) outlined."""
    if not args.plot:
        return
    from gamelp.plots import plot_matrix_game

    player = payload["player"]
    strategies = {player: payload["strategy"], opponent_of(player): payload.get("opponent_strategy")}
    row, col = (
        None if strategies[p] is None else [strategies[p].get(label, 0.0) for label in player_labels(game, p)]
        for p in ("row", "col")
    )
    plot_matrix_game(game, args.plot, row, col, title=f"{args.file}: payoffs, equilibrium support outlined")


def _run_first_order(args, game: MatrixGame, solved: MatrixGame, payload: dict) -> int:
    """``--method`` other than lp: self-play to ``--target-gap``, optionally polished by the support LP."""
    from gamelp.models.matrix_first_order import solve_matrix_first_order

    if args.robust or args.unique or args.form != "general":
        raise GamelpError("--robust, --unique and --form thesis need the LP (--method lp)")
    result = solve_matrix_first_order(
        solved,
        args.method,
        target_gap=args.target_gap,
        iterations=args.iterations,
        exact=args.exact,
        backend=args.backend,
        progress=None if args.json else regret_progress(args.iterations),
    )
    payload.update(_with_removed_labels(result.to_dict(args.player), game))
    add_constant_sum(payload, game)
    _plot(args, game, payload)
    if args.json:
        print_json(payload)
        return 0
    _print_text(payload)
    shape = result.lp_shape
    exact = (
        f"; exact by {result.lp_rounds} support LP(s) of {shape[0]}x{shape[1]}"
        if result.lp_rounds and shape is not None
        else ""
    )
    print(f"{args.method}: {result.iterations} iterations, saddle-point gap {result.gap:.2e}{exact}")
    if not result.converged:
        print(
            f"the first-order run stopped at the iteration limit ({result.iterations} iterations) before "
            f"reaching the target gap {args.target_gap:g}"
        )
    return 0


def _with_removed_labels(summary: dict, game: MatrixGame) -> dict:
    """The solved (reduced) game's summary with its strategies over all of ``game``'s labels, removed at 0."""
    player = summary["player"]
    for key, whose in (("strategy", player), ("opponent_strategy", opponent_of(player))):
        if key in summary:
            summary[key] = {label: summary[key].get(label, 0.0) for label in player_labels(game, whose)}
    return summary


def _print_text(payload: dict) -> None:
    what = f"robust {payload['robust']} R={payload['radius']:g}" if "robust" in payload else "Nash"
    exact = payload.get("exact")
    value = Fraction(exact["value"]) if exact else None
    shown = (
        f"{value} (= {float(value):.10g}; exact)"
        if value is not None
        else f"{payload['value']:.6f} (guaranteed {payload['guaranteed_value']:.6f})"
    )
    print(
        f"{payload['file']}: {what}, {payload['player']} player, {payload['form']} form on {payload['backend']}: "
        f"value {shown}"
    )
    if note := constant_sum_note(payload):
        print(f"{note}; the column player's value is {payload['constant_sum'] - payload['value']:.10g}")
    removed = payload["removed"]
    print(
        f"removed as strictly dominated: {len(removed['rows'])} rows, {len(removed['columns'])} columns; "
        f"solved {payload['solved_shape'][0]}x{payload['solved_shape'][1]}"
    )
    if exact:
        print_fractions(exact["strategy"], 12)
        print(certificate_note(exact))
    else:
        for label, probability in payload["strategy"].items():
            if probability > 1e-9:
                print(f"  {label:>12}  {100 * probability:6.2f}%")
    if "unique" in payload:
        print(payload["uniqueness_summary"])
