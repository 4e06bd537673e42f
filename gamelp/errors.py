"""The gamelp exception family: every error a user can cause is a GamelpError.

Messages name the file, node, entry or model block at fault, so the CLI can
print the one line and exit non-zero; :func:`shown` keeps user-supplied
values in those messages short.
"""

import reprlib


class GamelpError(Exception):
    """Base class of every error gamelp raises for bad input or a refused model."""


class GameFileError(GamelpError):
    """A sequence-form game file is not a valid game."""


class MatrixFileError(GamelpError):
    """A payoff or deviation CSV is malformed."""


class ModelError(GamelpError):
    """A declarative model is inconsistent (bad shapes, unknown blocks, ...)."""


class BackendError(GamelpError):
    """A backend refuses a model or is not available."""


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


class RunError(GamelpError):
    """A batch of simulated matches was asked for with bad arguments, or its store is unusable or does not match."""


class LocmError(GamelpError):
    """Legends of Code and Magic: a malformed card list or consistency file, or an unknown agent."""


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict = 3, 60, 60, 6, 6


def shown(value) -> str:
    """A short repr of a user-supplied value for a one-line message (deep or huge values elided)."""
    return _SHORT.repr(value)
