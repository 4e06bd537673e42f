"""The ``gamelp kdet`` command: k-determinism, the best strategy deterministic at k decision points.

``--k K`` solves one k-determinism MIP; ``--sweep`` runs k = 0 .. the number of
decision points, by the branch-and-bound search of :mod:`gamelp.models.kdet_search`
on HiGHS or by one MIP per k (:func:`gamelp.models.determinism.k_sweep`): the
method, its default and what each takes are :func:`gamelp.models.kdet_search.sweep_kdet`'s.
"""

from __future__ import annotations

import argparse
import sys

from gamelp.backends import DEFAULT_BACKEND
from gamelp.cli.args import BACKEND_HELP, add_game_argument, finite_float, integer, load_game_argument, plot_path
from gamelp.cli.output import add_constant_sum, constant_sum_note, print_json, sweep_progress
from gamelp.errors import GamelpError


def add_subparser(commands) -> argparse.ArgumentParser:
    """Add ``kdet`` to the main parser's sub-commands."""
    kdet = commands.add_parser("kdet", help="k-determinism MIP at one k, or the whole sweep")
    add_game_argument(kdet)
    kdet.add_argument("--player", type=int, choices=(1, 2), default=1, help="whose strategy: 1 (default) or 2")
    kdet.add_argument("--k", type=integer(0), help="number of decision points forced to play one action")
    kdet.add_argument("--sweep", action="store_true", help="k = 0 .. number of decision points")
    kdet.add_argument("--mip-gap", type=finite_float(0.0), default=1e-6, help="relative MIP gap (default 1e-6)")
    kdet.add_argument(
        "--abs-gap",
        type=finite_float(0.0),
        help="--sweep: gap accepted near value 0, relative to the payoff range (the largest payoff magnitude; "
        "default 1e-9 for the search, the solver's own for MIPs)",
    )
    kdet.add_argument(
        "--method",
        choices=("search", "mip"),
        help="--sweep by the branch-and-bound search on HiGHS (default with --backend auto or highs) or by MIPs",
    )
    kdet.add_argument("--plot", type=plot_path, help="write a plot of value against k to this file (.png, .pdf, ...)")
    kdet.add_argument("--backend", default=DEFAULT_BACKEND, help=BACKEND_HELP)
    kdet.add_argument(
        "--time-limit",
        type=finite_float(0.0),
        help="seconds each MIP, or each k of the search, may take; a point stopped early reports its incumbent and gap",
    )
    kdet.add_argument(
        "--patience",
        type=integer(1),
        help="--sweep --method search: stop searching after this many k in a row end at --time-limit "
        "without lowering the bound (the rest keep the bound carried from below)",
    )
    kdet.add_argument(
        "--envelope",
        type=finite_float(0.0, strict=True),
        metavar="SECONDS",
        help="--sweep --method search: first bound every k by the Lagrangian envelope (SECONDS per MIP) "
        "and start from its strategies",
    )
    kdet.add_argument("--json", action="store_true", help="print JSON")
    kdet.add_argument("--quiet", action="store_true", help="no progress messages")
    kdet.add_argument("--verbose", action="store_true", help="show the solver log")
    kdet.set_defaults(func=run_kdet)
    return kdet


def run_kdet(args) -> int:
    """``gamelp kdet``: solve the k-determinism MIP for one ``k``, or sweep ``k``, and print the values."""
    from gamelp.models.determinism import check_k, solve_kdet
    from gamelp.models.kdet_search import sweep_kdet

    game = load_game_argument(args)
    if args.sweep == (args.k is not None):
        raise GamelpError("give exactly one of --k K or --sweep")
    if args.k is not None:
        check_k(game, args.player, args.k)
        if not (args.json or args.quiet):
            print(
                f"{game.name}: solving player {args.player}'s k-determinism MIP at k={args.k}...",
                file=sys.stderr,
                flush=True,
            )
        result = solve_kdet(
            game,
            args.player,
            args.k,
            args.backend,
            mip_gap=args.mip_gap,
            verbose=args.verbose,
            time_limit=args.time_limit,
        )
        rows = [result.to_dict()]
    else:
        sweep = sweep_kdet(
            game,
            args.player,
            args.method,
            backend=args.backend,
            rel_gap=args.mip_gap,
            abs_gap=args.abs_gap,
            time_limit=args.time_limit,
            patience=args.patience,
            envelope=args.envelope,
            verbose=args.verbose,
            progress=None if args.json or args.quiet else sweep_progress(),
        )
        # Every row says which solver produced it, as a single solve's row does.
        rows = [
            {**row, "backend": sweep.backend, "solver_version": sweep.solver_version}
            for row in sweep.to_dict()["points"]
        ]
    for row in rows:  # a constant-sum game: values and bounds with the constant
        add_constant_sum(row, game)
    if args.plot:
        from gamelp.plots import plot_k_sweep

        plot_k_sweep({f"player {args.player}": rows}, args.plot, title=f"{game.name}: value against k")
    if args.json:
        print_json(rows)
    else:
        if note := constant_sum_note(rows[0]):
            print(note)
        for row in rows:
            extra = (
                f"  bound={row['bound']: .8f}  determinism={row['determinism']:4d}  {row['status']}"
                if "bound" in row
                else ""
            )
            print(f"k={row['k']:4d}  value={row['value']: .8f}  mip_gap={row['mip_gap']:.2e}{extra}")
    return 0
