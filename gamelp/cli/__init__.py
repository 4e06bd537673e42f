"""The ``gamelp`` command: the application layer over the core, the models and the games.

One module per command family, each with ``add_subparser(commands)`` whose
leaves set ``func(args) -> exit status``: :mod:`~gamelp.cli.solve`,
:mod:`~gamelp.cli.evaluate`, :mod:`~gamelp.cli.kdet`, :mod:`~gamelp.cli.backends`, :mod:`~gamelp.cli.files`
(``validate``, ``export``, ``export-game``), :mod:`~gamelp.cli.matrix`, and the
simulator groups :mod:`~gamelp.cli.mtg` and :mod:`~gamelp.cli.locm`, which are
imported only when their command runs (or for help), so ``gamelp solve`` loads
no simulator.  Shared argument types live in :mod:`~gamelp.cli.args`, JSON and
progress output in :mod:`~gamelp.cli.output`.  Bad input prints one line naming
the fault and exits with status 2.  Standard output carries only the command's
own output: what libraries write to file descriptor 1 from C goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import sys

from gamelp.backends.quiet import stdout_to_stderr
from gamelp.cli import backends, evaluate, files, kdet, matrix, solve
from gamelp.cli.args import LOG_LEVELS, OneLineParser, log_level
from gamelp.errors import GamelpError

# The command families loaded with the parser, in the order --help lists them.
CORE_FAMILIES = (solve, evaluate, kdet, backends, files, matrix)
# Command groups whose modules load a simulator, registered only when their command runs (or for help).
SIMULATOR_GROUPS = {
    "mtg": ("gamelp.cli.mtg", "the mini Magic: The Gathering simulator"),
    "locm": ("gamelp.cli.locm", "Legends of Code and Magic 1.2: replay referee matches, play matches"),
}


def _command_in(argv) -> str | None:
    """The sub-command named on a command line (``None`` when there is none yet).

    Found by argparse itself: a parser with only the top-level options and one positional word, which ignores the rest.
    """
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--log-level")
    first.add_argument("command", nargs="?")
    known, _ = first.parse_known_args(argv)
    return known.command


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The ``gamelp`` parser; for a command line ``argv`` the simulator groups it does not run stay unloaded."""
    parser = OneLineParser(
        prog="gamelp",
        description="Solve two-player zero-sum games with mathematical programming: sequence-form game files "
        "(solve, evaluate, kdet, validate, export, export-game), the solver backends (backends), payoff matrices "
        "(matrix) and the game simulators (mtg, locm).",
    )
    parser.add_argument(
        "--version",
        action=_PrintVersions,
        nargs=0,
        help="show gamelp's version and the solver packages installed here, and exit",
    )
    parser.add_argument(
        "--log-level",
        type=log_level,
        default="WARNING",
        help=f"logging level: {', '.join(LOG_LEVELS)} (default WARNING)",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    for family in CORE_FAMILIES:
        family.add_subparser(commands)
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


class _PrintVersions(argparse.Action):
    """``--version``: print :func:`_versions` line by line (argparse's own version action re-wraps lines)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(_versions())
        parser.exit()


def _versions() -> str:
    """``gamelp 0.1.0`` and, one per line, the installed solver packages' versions (nothing imported)."""
    from gamelp.deps import solver_versions

    solvers = [f"  {name} {found}" for name, found in solver_versions().items()]
    return "\n".join([f"gamelp {_version()}", "solvers:" if solvers else "solvers: none found", *solvers])


def main(argv=None) -> int:
    """Run the ``gamelp`` command line on ``argv`` (default: ``sys.argv[1:]``) and return the exit status.

    A :class:`~gamelp.errors.GamelpError` or a ``MemoryError`` is printed as one line and returns 2; an interrupt
    returns 130.
    """
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    try:
        # Libraries' C-level writes to file descriptor 1 go to stderr; the command's own prints still reach stdout.
        with stdout_to_stderr() as stdout, contextlib.redirect_stdout(stdout):
            return args.func(args)
    except GamelpError as exc:
        print(f"gamelp: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gamelp: interrupted", file=sys.stderr)
        return 130
    except MemoryError:  # past every estimate: one line, never a traceback
        print(
            "gamelp: error: out of memory: the work did not fit in the memory this process may use "
            "(the machine's, ulimit -v or the container's limit); try a smaller game or fewer iterations",
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:  # output piped into head and the like
        sys.stderr.close()
        return 0
    except OSError as exc:  # the file system refused something the checks could not foresee
        print(
            f"gamelp: error: {exc.filename or ''}{': ' if exc.filename else ''}{exc.strerror or exc}", file=sys.stderr
        )
        return 2
