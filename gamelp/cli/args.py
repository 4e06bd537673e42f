"""Arguments shared by gamelp's commands: a one-line-error parser, value types, the game argument.

Every type raises ``argparse.ArgumentTypeError`` with a short reason, which
:class:`OneLineParser` prints as ``gamelp <command>: error: argument --x: reason
(see --help)`` and exit status 2, so a bad command line never gives a
traceback or a screenful of usage.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gamelp.argtypes import MAX_WORKERS
from gamelp.argtypes import finite_float as finite_float  # re-exported: the commands and scripts take them here
from gamelp.argtypes import integer as integer
from gamelp.argtypes import workers as workers
from gamelp.backends import DEFAULT_BACKEND
from gamelp.backends.registry import usage
from gamelp.errors import OutputError
from gamelp.io import check_writable

MAX_ITERATIONS = 10**9
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
BACKEND_HELP = (
    f"{', '.join(usage()[:-1])} or {usage()[-1]} (default {DEFAULT_BACKEND}: HiGHS, "
    "or Clarabel for cone models; gamelp backends lists them)"
)


def run_script(main, report=None) -> None:
    """Run a script: ``main(argv) -> result``, then ``report(result)`` prints it; exit with a status.

    ``main`` returns the script's figures as data (a dataclass) and prints
    nothing; ``report`` is the only place that writes them to stdout.  A
    ``main`` without ``report`` returns an exit status (the older form).  A
    ``GamelpError`` (bad input, a refused resume) is one line on stderr and
    status 2, Ctrl-C is status 130, never a traceback.
    """
    from gamelp.errors import GamelpError

    name = Path(sys.argv[0]).name
    try:
        result = main(sys.argv[1:])
        status = 0 if report is not None else result
        if report is not None:
            report(result)
    except GamelpError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        status = 130
    sys.exit(status)


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr and exit status 2."""

    def error(self, message: str):
        """Print the error in one line with a pointer to ``--help``, and exit with status 2."""
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


def log_level(text: str) -> str:
    """A logging level name for ``--log-level``, upper-cased; an unknown one is an argparse error."""
    level = text.upper()
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"unknown level {text!r}; use one of {', '.join(LOG_LEVELS)}")
    return level


def plot_path(text: str) -> str:
    """A plot file matplotlib can write: a known extension, in an existing writable directory.

    Checked before any solving starts; like every output file, a missing directory is refused, never created.
    """
    from gamelp.deps import install_hint, installed

    if not installed("matplotlib"):
        raise argparse.ArgumentTypeError(
            f"writing a plot needs matplotlib, which is not installed here; {install_hint('matplotlib')}"
        )
    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    suffix = Path(text).suffix.lstrip(".").lower()
    if suffix not in formats:
        raise argparse.ArgumentTypeError(
            f"cannot write a plot as {text!r}: use one of the extensions {', '.join('.' + f for f in sorted(formats))}"
        )
    try:
        check_writable(text)  # a missing directory, a directory or a special file: refused before the work
    except OutputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def output_directory(text: str) -> str:
    """A directory to write into: existing and writable, or creatable under a writable ancestor."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} exists and is not a directory")
    ancestor = path
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise argparse.ArgumentTypeError(f"cannot create {text}: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write into {text}: {ancestor} is not writable")
    return text


MAX_LIST = 10_000  # values in one list option: far beyond any grid of decks or thresholds, refused before it is built


def int_list(text: str) -> list[int]:
    """Parse ``0,4,8`` or an inclusive range ``start:stop[:step]`` (``0:60:4``), or a mix of both."""
    values: list[int] = []
    try:
        for part in filter(None, (p.strip() for p in text.split(","))):
            if ":" in part:
                start, stop, *step = (int(x) for x in part.split(":"))
                if len(step) > 1 or (step and step[0] < 1):
                    raise ValueError(part)
                span = range(start, stop + 1, step[0] if step else 1)
                if len(values) + len(span) > MAX_LIST:
                    raise argparse.ArgumentTypeError(f"at most {MAX_LIST:,} values, got {text!r}")
                values += span
            else:
                values.append(int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers like 0,4,8 or 0:60:4, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("expected at least one integer")
    if len(values) > MAX_LIST:
        raise argparse.ArgumentTypeError(f"at most {MAX_LIST:,} values, got {len(values):,}")
    return values


def name_list(allowed=None, example: str = ""):
    """The type of a non-empty comma-separated list of names, each one of ``allowed`` when given.

    ``example`` (``"kuhn,leduc"``) shows the form in the error when ``allowed`` does not list the choices.
    """
    choices = None if allowed is None else tuple(allowed)

    def parse(text: str) -> list[str]:
        names = [part.strip() for part in text.split(",") if part.strip()]
        if names and len(names) <= MAX_LIST and (choices is None or all(name in choices for name in names)):
            return names
        wanted = f"some of {', '.join(choices)}" if choices is not None else f"comma-separated names like {example}"
        raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")

    return parse


def worker_counts(text: str) -> list[int]:
    """Parse a list of local worker-process counts (as :func:`int_list`), each from 1 to ``MAX_WORKERS``."""
    counts = int_list(text)
    if not all(1 <= count <= MAX_WORKERS for count in counts):
        raise argparse.ArgumentTypeError(f"worker counts must be between 1 and {MAX_WORKERS}, got {text!r}")
    return counts


def add_execution_options(parser: argparse.ArgumentParser) -> None:
    """How a simulator run plays its matches, the same for every command and script that runs many.

    ``--workers N`` local processes (default: every core; 1 plays in this
    process) or ``--scheduler ADDRESS`` of a Dask cluster; ``--batch-size``
    matches per task (default: about four tasks a worker, at most 50);
    ``--resume`` to continue the run stored in the output directory (without
    it an output directory that holds a run is refused, so runs never mix);
    ``--quiet`` for no progress bar.  :func:`execution_from` makes the
    ``Execution``.  The results do not depend on any of these.
    """
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=workers,
        default=os.cpu_count() or 1,
        help="local worker processes, at most 4 per core (default: all cores; 1 plays in this process)",
    )
    where.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://10.0.0.1:8786")
    parser.add_argument(
        "--batch-size",
        type=integer(1),
        default=None,
        help="matches sent to a worker at once (default: about 4 tasks a worker, at most 50)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run stored in the output directory (refused without this flag)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def execution_from(args: argparse.Namespace):
    """The ``gamelp.games.runner.Execution`` of :func:`add_execution_options`' arguments."""
    from gamelp.deps import require
    from gamelp.games.runner import Execution

    if args.scheduler is not None:
        for module in ("dask", "distributed"):
            require(module, "--scheduler (a Dask cluster)")
    return Execution(
        workers=args.workers,
        scheduler=args.scheduler,
        batch_size=args.batch_size,
        progress=not args.quiet,
        resume=args.resume,
    )


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    """The positional game of the sequence-form commands (solve, kdet, validate, export, export-game)."""
    parser.add_argument(
        "game",
        help=(
            "a game JSON file, a built-in game (rps, kuhn, leduc), a poker variant kuhn:N (N cards) or leduc:RxS "
            "(R ranks, S suits; leduc:RxSxN plays N betting rounds), openspiel:GAME_STRING or a Gambit .efg file"
        ),
    )
    parser.add_argument(
        "--sum-duplicates", action="store_true", help="add up duplicate utility entries instead of refusing the file"
    )


SWEEP_ABS_GAP = 1e-4
"""The absolute gap the scripts' k-sweeps accept near value 0, relative to the payoff range."""


def add_sweep_abs_gap(parser: argparse.ArgumentParser) -> None:
    """``--abs-gap`` of the scripts' k-sweeps (bench_kdet.py, hw2_2_3_kdeterminism.py): :data:`SWEEP_ABS_GAP`."""
    parser.add_argument(
        "--abs-gap",
        type=finite_float(0.0),
        default=SWEEP_ABS_GAP,
        help="absolute gap accepted near 0, relative to the payoff range (1%% of Leduc's |V(0)| is 9.9e-4)",
    )


def load_game_argument(args: argparse.Namespace, schema: bool = False):
    """The game named by :func:`add_game_argument`'s arguments, loaded."""
    from gamelp.game import load_game

    return load_game(args.game, sum_duplicates=args.sum_duplicates, schema=schema)
