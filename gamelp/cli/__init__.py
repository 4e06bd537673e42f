"""The ``gamelp`` command: a thin layer over the library.

``gamelp solve | kdet | validate | export`` work on sequence-form game files
(or the built-in names ``rps``, ``kuhn``, ``leduc``); ``gamelp matrix`` on
payoff CSVs; ``gamelp mtg`` runs the mini Magic simulator, ``gamelp locm``
Legends of Code and Magic.  Bad input prints
one line naming the fault and exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys

import numpy as np

from gamelp.backends import DEFAULT_BACKEND
from gamelp.cli_args import (LOG_LEVELS, MAX_ITERATIONS, OneLineParser, finite_float, integer, log_level,
                             plot_path)
from gamelp.errors import GamelpError
from gamelp.io import atomic_path
from gamelp.regret import METHODS as REGRET_METHODS

BACKEND_HELP = (f"auto, highs, gurobi, pyomo:<solver> or cvxpy:<SOLVER> (default {DEFAULT_BACKEND}: HiGHS, "
                "or Clarabel for cone models; gamelp backends lists them)")
EXPORT_FORMATS = ("lp", "mps")


def _game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game JSON file, a built-in game (rps, kuhn, leduc), a Gambit .efg file "
                                     "or openspiel:GAME_STRING")
    parser.add_argument("--sum-duplicates", action="store_true",
                        help="add up duplicate utility entries instead of refusing the file")


def _load(args, schema: bool = False):
    from gamelp.game import load_game

    return load_game(args.game, sum_duplicates=args.sum_duplicates, schema=schema)


def _print_json(payload) -> None:
    print(json.dumps(payload, indent=2, default=float))


# ---------------------------------------------------------------------- solve
def _cmd_solve(args) -> int:
    game = _load(args)
    own = game.player(args.player)
    if args.method != "lp":
        if args.deterministic or args.unique:
            raise GamelpError("--deterministic and --unique need the LP (--method lp)")
        from gamelp.regret import solve_regret

        result = solve_regret(game, method=args.method, iterations=args.iterations, eta=args.eta,
                              target_gap=args.target_gap,
                              progress=None if args.json else _regret_progress(args.iterations))
        x = result.x if args.player == 1 else result.y
        value = result.value if args.player == 1 else -result.value
        status = "converged" if result.converged else "iteration_limit"
        payload = {"value": value, "status": status, "backend": args.method, "player": args.player,
                   "iterations": result.iterations, "gap": result.gap,
                   "strategy": dict(zip(own.labels, np.round(x, 12).tolist()))}
    else:
        from gamelp.models.determinism import solve_deterministic
        from gamelp.models.nash import solve_nash

        solver = solve_deterministic if args.deterministic else solve_nash
        result = solver(game, args.player, args.backend, verbose=args.verbose, time_limit=args.time_limit)
        x, payload = result.strategy, result.to_dict()
        if args.unique:
            from gamelp.models.uniqueness import check_uniqueness

            # The question is about the strategy x; the value variables v may have other optima.
            verdict = check_uniqueness(result.model, result.solution, blocks=("x",), backend=args.backend)
            payload.update(verdict.to_dict())
    if args.behavioural:
        payload["behavioural"] = own.to_behavioural(x)
    if args.json:
        _print_json(payload)
    else:
        print(f"{game.name}: player {args.player} value {payload['value']:.10g} "
              f"(gap {payload['gap']:.2e}, {payload['backend']})")
        if payload["status"] not in ("optimal", "converged", "iteration_limit"):
            print(f"status: {payload['status']} (not a proven optimum)")
        if payload["status"] == "iteration_limit":
            target = "" if args.target_gap is None else f" before reaching the target gap {args.target_gap:g}"
            print(f"stopped at the iteration limit ({payload['iterations']} iterations){target}: an approximate "
                  f"equilibrium, saddle-point gap {payload['gap']:.2e}")
        if "unique" in payload:
            print(f"unique: {payload['unique']}")
        if args.behavioural:
            _print_behavioural(payload["behavioural"])
            return 0
        for label, prob in payload["strategy"].items():
            if prob > 1e-9 and label != "∅":
                print(f"  {label:30s} {prob:.6f}")
    return 0


def _print_behavioural(behaviour: dict) -> None:
    """One line per decision point (information set): its actions' probabilities."""
    for point, probabilities in behaviour.items():
        shown = ", ".join(f"{action} {p:.6f}" for action, p in probabilities.items())
        print(f"  {point.replace(chr(10), ' ')}: {shown}")


# ---------------------------------------------------------------------- kdet
def _cmd_kdet(args) -> int:
    from gamelp.models.determinism import k_sweep, solve_kdet
    from gamelp.models.kdet_search import search_sweep

    game = _load(args)
    if args.sweep == (args.k is not None):
        raise GamelpError("give exactly one of --k K or --sweep")
    if args.k is not None:
        total = game.player(args.player).num_decision_points
        if not 0 <= args.k <= total:
            raise GamelpError(f"--k must be between 0 and {total} (player {args.player}'s decision points)")
        if not (args.json or args.quiet):
            print(f"{game.name}: solving player {args.player}'s k-determinism MIP at k={args.k}...",
                  file=sys.stderr, flush=True)
        result = solve_kdet(game, args.player, args.k, args.backend, mip_gap=args.mip_gap, verbose=args.verbose,
                            time_limit=args.time_limit)
        rows = [{"k": args.k, "value": result.value, "mip_gap": result.solution.mip_gap}]
    else:
        on_highs = args.backend in ("auto", "highs")
        method = args.method or ("search" if on_highs else "mip")
        if method == "search" and not on_highs:
            raise GamelpError(f"--method search runs on HiGHS only, not on backend {args.backend!r}; "
                              "use --method mip")
        progress = None if args.json or args.quiet else _progress_printer()
        if method == "search":
            sweep = search_sweep(game, args.player, rel_gap=args.mip_gap, abs_gap=args.abs_gap,
                                 time_limit=args.time_limit, progress=progress)
        else:
            sweep = k_sweep(game, args.player, args.backend, mip_gap=args.mip_gap, verbose=args.verbose,
                            time_limit=args.time_limit, progress=progress)
        rows = [p.to_dict() for p in sweep.points]
    if args.plot:
        from gamelp.plots import plot_k_sweep

        plot_k_sweep({f"player {args.player}": rows}, args.plot, title=f"{game.name}: value against k")
    if args.json:
        _print_json(rows)
    else:
        for row in rows:
            extra = f"  bound={row['bound']: .8f}  determinism={row['determinism']:4d}" if "bound" in row else ""
            print(f"k={row['k']:4d}  value={row['value']: .8f}  mip_gap={row['mip_gap']:.2e}{extra}")
    return 0


def _progress_printer():
    from tqdm import tqdm

    bar = tqdm(unit="k", file=sys.stderr, leave=False)

    def update(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update


def _regret_progress(total: int):
    """A progress bar on stderr for a regret run, showing the gap; called as ``update(t, gap)``."""
    from tqdm import tqdm

    bar = tqdm(total=total, unit="it", file=sys.stderr, leave=False, mininterval=0.5, disable=None)

    def update(done, gap):
        bar.n = done
        bar.set_postfix(gap=f"{gap:.2e}", refresh=True)
        if done >= total:
            bar.close()

    return update


# ---------------------------------------------------------------------- validate / export
def _cmd_validate(args) -> int:
    game = _load(args, schema=True)
    parts = [f"player {p}: {game.player(p).num_decision_points} decision points, "
             f"{game.player(p).num_sequences} sequences" for p in (1, 2)]
    print(f"{args.game}: valid; " + "; ".join(parts) + f"; {game.A.nnz} utility entries")
    return 0


def _cmd_export(args) -> int:
    from gamelp.models.determinism import deterministic_ilp, kdet_mip
    from gamelp.models.nash import sequence_form_lp

    game = _load(args)
    if args.model == "kdet":
        if args.k is None:
            raise GamelpError("--model kdet needs --k K")
        model = kdet_mip(game, args.player, args.k)
    elif args.model == "deterministic":
        model = deterministic_ilp(game, args.player)
    else:
        model = sequence_form_lp(game, args.player)
    path = _export_path(args.output, args.format)
    with atomic_path(path) as temporary:
        model.write(str(temporary))
    print(f"wrote {path}: {model.num_variables} variables, {model.num_constraints} constraints")
    return 0


def _export_path(output: str, fmt: str | None) -> str:
    """The file to write: -o as given when its extension names the format, else with ``.fmt`` appended."""
    given = output.rsplit(".", 1)[-1].lower() if "." in output.rsplit("/", 1)[-1] else ""
    if given in EXPORT_FORMATS:
        if fmt is not None and fmt != given:
            raise GamelpError(f"-o {output} has the extension .{given}, but --format {fmt} was asked for")
        return output
    return f"{output}.{fmt or 'lp'}"


# ---------------------------------------------------------------------- backends
def _cmd_backends(args) -> int:
    from gamelp.backends import registered_backends

    rows = [{"name": b.name, "installed": b.available(), "capabilities": b.capabilities.names()}
            for b in registered_backends()]
    if args.json:
        _print_json(rows)
    else:
        for row in rows:
            print(f"{row['name']:26s} {'installed' if row['installed'] else 'missing  '}  "
                  f"{', '.join(row['capabilities'])}")
    return 0


def _cmd_export_game(args) -> int:
    if args.output.lower().endswith(".efg"):
        from gamelp.games.gambit import write_efg

        tree = write_efg(args.game, args.output)
        print(f"wrote {args.output}: {tree}")
        return 0
    game = _load(args)
    game.save(args.output)
    print(f"wrote {args.output}: player 1 {game.pl1.num_sequences} sequences, player 2 {game.pl2.num_sequences}, "
          f"{game.A.nnz} utility entries")
    return 0


# ---------------------------------------------------------------------- parser
# Command groups whose modules load a simulator, registered only when their command runs (or for help).
SIMULATOR_GROUPS = {
    "mtg": ("gamelp.games.mtg.cli", "the mini Magic: The Gathering simulator"),
    "locm": ("gamelp.games.locm.cli", "Legends of Code and Magic 1.2: replay referee matches, play matches"),
}


def _command_in(argv) -> str | None:
    """The sub-command named on a command line (``None`` when there is none yet)."""
    words = iter(argv)
    for word in words:
        if word == "--log-level":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The ``gamelp`` parser; for a command line ``argv`` the simulator groups it does not run stay unloaded."""
    parser = OneLineParser(prog="gamelp", description="Solve two-player zero-sum games with mathematical "
                           "programming: sequence-form game files (solve, kdet, validate, export), payoff "
                           "matrices (matrix) and the mini Magic simulator (mtg).")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("--log-level", type=log_level, default="WARNING",
                        help=f"logging level: {', '.join(LOG_LEVELS)} (default WARNING)")
    commands = parser.add_subparsers(dest="command", required=True)

    solve = commands.add_parser("solve", help="solve a sequence-form game for one player")
    _game_arguments(solve)
    solve.add_argument("--player", type=int, choices=(1, 2), default=1, help="whose strategy (default 1)")
    solve.add_argument("--backend", default=DEFAULT_BACKEND, help=BACKEND_HELP)
    solve.add_argument("--time-limit", type=finite_float(0.0),
                       help="seconds the solver may take (LP and MIP methods)")
    solve.add_argument("--deterministic", action="store_true", help="best deterministic strategy (ILP)")
    solve.add_argument("--unique", action="store_true", help="Mangasarian's uniqueness test of the LP optimum")
    solve.add_argument("--method", default="lp", choices=("lp", *REGRET_METHODS),
                       help="lp (default) or a regret-minimisation self-play method")
    solve.add_argument("--iterations", type=integer(1, MAX_ITERATIONS), default=1000,
                       help="iterations for regret methods (default 1000)")
    solve.add_argument("--eta", type=finite_float(0.0, strict=True), default=0.1,
                       help="step size of mwu / omwu (default 0.1)")
    solve.add_argument("--target-gap", type=finite_float(0.0),
                       help="regret methods stop once the saddle-point gap is this small")
    solve.add_argument("--behavioural", action="store_true",
                       help="print the strategy as action probabilities per decision point (information set)")
    solve.add_argument("--json", action="store_true", help="print JSON")
    solve.add_argument("--verbose", action="store_true", help="show the solver log")
    solve.set_defaults(func=_cmd_solve)

    kdet = commands.add_parser("kdet", help="k-determinism MIP at one k, or the whole sweep")
    _game_arguments(kdet)
    kdet.add_argument("--player", type=int, choices=(1, 2), required=True, help="whose strategy")
    kdet.add_argument("--k", type=integer(0), help="number of decision points forced to play one action")
    kdet.add_argument("--sweep", action="store_true", help="k = 0 .. number of decision points")
    kdet.add_argument("--mip-gap", type=finite_float(0.0), default=1e-6, help="relative MIP gap (default 1e-6)")
    kdet.add_argument("--abs-gap", type=finite_float(0.0), default=1e-9,
                      help="--sweep --method search: absolute gap accepted near value 0 (default 1e-9)")
    kdet.add_argument("--method", choices=("search", "mip"),
                      help="--sweep by the branch-and-bound search on HiGHS (default with --backend auto or "
                           "highs) or by MIPs")
    kdet.add_argument("--plot", type=plot_path, help="write a plot of value against k to this file (.png, .pdf, ...)")
    kdet.add_argument("--backend", default=DEFAULT_BACKEND, help=BACKEND_HELP)
    kdet.add_argument("--time-limit", type=finite_float(0.0),
                      help="seconds each MIP, or each k of the search, may take; a point stopped early "
                           "reports its incumbent and gap")
    kdet.add_argument("--json", action="store_true", help="print JSON")
    kdet.add_argument("--quiet", action="store_true", help="no progress messages")
    kdet.add_argument("--verbose", action="store_true", help="show the solver log")
    kdet.set_defaults(func=_cmd_kdet)

    backends = commands.add_parser("backends", help="list the solver backends, installed or not, and what each takes")
    backends.add_argument("--json", action="store_true", help="print JSON")
    backends.set_defaults(func=_cmd_backends)

    validate = commands.add_parser("validate", help="check a game file against the schema and summarise it")
    _game_arguments(validate)
    validate.set_defaults(func=_cmd_validate)

    export = commands.add_parser("export", help="write a model as an LP or MPS file")
    _game_arguments(export)
    export.add_argument("--model", choices=("nash", "deterministic", "kdet"), default="nash",
                        help="which model (default nash, the sequence-form LP)")
    export.add_argument("--player", type=int, choices=(1, 2), default=1, help="whose model (default 1)")
    export.add_argument("--k", type=integer(0), help="k of --model kdet")
    export.add_argument("--format", choices=EXPORT_FORMATS,
                        help="file format (default: from -o's extension, else lp)")
    export.add_argument("-o", "--output", required=True, help="file to write; .lp or .mps chooses the format")
    export.set_defaults(func=_cmd_export)

    export_game = commands.add_parser("export-game", help="write a game as JSON (.json) or Gambit (.efg)")
    _game_arguments(export_game)
    export_game.add_argument("-o", "--output", required=True, help="FILE.json, or FILE.efg (OpenSpiel games and "
                                                                   "the poker generators kuhn, leduc)")
    export_game.set_defaults(func=_cmd_export_game)

    from gamelp.cli_matrix import add_subparser as add_matrix

    add_matrix(commands)
    wanted = _command_in(sys.argv[1:] if argv is None else argv)
    for name, (module, summary) in SIMULATOR_GROUPS.items():
        if wanted in commands.choices:  # another command runs: list the group in --help, import nothing
            commands.add_parser(name, help=summary)
        else:
            importlib.import_module(module).add_subparser(commands)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gamelp")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def main(argv=None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args)
    except GamelpError as exc:
        print(f"gamelp: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gamelp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head and the like
        sys.stderr.close()
        return 0
    except OSError as exc:  # the file system refused something the checks could not foresee
        print(f"gamelp: error: {exc.filename or ''}{': ' if exc.filename else ''}{exc.strerror or exc}",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
