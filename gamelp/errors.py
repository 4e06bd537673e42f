"""The gamelp exception family: every error a user can cause is a GamelpError.

The core's error classes live here; the games layer's (a simulator's bad input, a match run, a
game file format the games read) live in :mod:`gamelp.games.errors`, so the core names no game.
Messages name the file, node, entry or model block at fault, so the CLI can
print the one line and exit non-zero; :func:`shown` keeps user-supplied
values in those messages short, :func:`did_you_mean` suggests the name a typo meant.
"""

import difflib
import reprlib
from collections.abc import Iterable


class GamelpError(Exception):
    """Base class of every error gamelp raises for bad input or a refused model."""


class GameFileError(GamelpError):
    """A sequence-form game file is not a valid game."""


class MatrixFileError(GamelpError):
    """A payoff or deviation CSV is malformed."""


class StrategyFileError(GamelpError):
    """A strategy (a file, or one given in code) is not a strategy of the game it is evaluated in."""


class ModelError(GamelpError):
    """A declarative model is inconsistent (bad shapes, unknown blocks, ...)."""


class BackendError(GamelpError):
    """A backend refuses a model or is not available."""


class OptionError(GamelpError):
    """A solve option is out of range or not a number (``time_limit``, ``mip_gap``, ``threads``, ``start``, ...)."""


class MissingDependency(GamelpError):
    """An optional package that a backend or command needs is not installed (the message names the extra)."""


class SolveError(GamelpError):
    """A solve did not produce the optimum the caller needed."""


class OutputError(GamelpError):
    """An output file cannot be written (missing directory, unwritable path, refused overwrite)."""


class SolveInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a solve; ``solution`` holds what the solver had (status ``interrupted``).

    A ``KeyboardInterrupt``, so it stops the program unless caught, and the CLI exits 130.
    """

    def __init__(self, solution):
        super().__init__(f"solve interrupted ({solution.backend})")
        self.solution = solution


class MatrixGameError(GamelpError):
    """A matrix game built in code is inconsistent (shapes, labels, NaN, negative deviations)."""


class RegretError(GamelpError):
    """Bad options for a regret-minimisation run (unknown method, step size, iteration count, matrix)."""


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict = 3, 60, 60, 6, 6


def shown(value) -> str:
    """A short repr of a user-supplied value for a one-line message (deep or huge values elided)."""
    return _SHORT.repr(value)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'kuhn'?"`` when ``name`` is one of ``known`` up to letter case or a typo, else ``""``."""
    close = difflib.get_close_matches(name.lower(), list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
