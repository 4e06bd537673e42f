"""Range-checked value types for command-line options, shared by the command line, the scripts and the games.

Each type raises ``argparse.ArgumentTypeError`` with a short reason, which the
project's parser (:class:`gamelp.cli.args.OneLineParser`) prints as one line
with exit status 2.  They live in the core, not in :mod:`gamelp.cli`, so that a
game that declares its own options (``gamelp.games.locm.train``) can use them
without importing the command line.  Every numeric option takes one of these
(or a fixed set of ``choices``): ``tests/core/test_numeric_options.py`` checks
it on every parser.
"""

from __future__ import annotations

import argparse
import math
import os

# The largest count any option takes: far beyond a real run, small enough that a typo is refused, not allocated.
MAX_COUNT = 10**9
# Local worker processes: each is a Python process of 100 MB or more that starts (and, on Ctrl-C, stops) in turn,
# and more than a few per core only queue for the cores: at most 4 per core (256 on 2 cores took minutes to start).
MAX_WORKERS = 4 * (os.cpu_count() or 1)
# Seeds: non-negative and within a 32-bit generator's range (numpy's and torch's legacy seeding).
MAX_SEED = 2**31 - 1


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def integer(low: int, high: int | None = None):
    """Type of an integer in ``[low, high]``; ``1e6`` is accepted when it is a whole number."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            number = _number(text)
            if not (math.isfinite(number) and number.is_integer()):
                raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
            value = int(number)
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {text}")
        return value

    parse.__name__ = "integer"
    parse.low, parse.high = low, high  # type: ignore[attr-defined]  # read by the end-to-end option harness
    return parse


def finite_float(low: float = -math.inf, *, strict: bool = False, high: float = math.inf):
    """Type of a finite float ``>= low`` (``> low`` when ``strict``) and ``<= high``."""

    def parse(text: str) -> float:
        value = _number(text)
        if not math.isfinite(value) or value < low or (strict and value == low) or value > high:
            bound = "" if low == -math.inf else f" {'>' if strict else '>='} {low:g}"
            bound += "" if high == math.inf else f"{' and' if bound else ''} <= {high:g}"
            raise argparse.ArgumentTypeError(f"must be a finite number{bound}, got {text}")
        return value

    parse.__name__ = "number"
    parse.low, parse.strict, parse.high = low, strict, high  # type: ignore[attr-defined]
    return parse


# Type of a local worker-process count (--workers, --jobs).
workers = integer(1, MAX_WORKERS)
