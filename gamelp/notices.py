"""Notices on stderr: one line each, said at most once per process.

A notice says what a missing fast path costs (the C regret kernels, the C mini Magic search) when the slow one
first runs. It is a warning of the ``gamelp`` logger: one line on stderr whether or not logging is configured
(the command line's ``--log-level ERROR`` silences it), never on standard output, and never a Python warning,
whose report would add the source line that raised it.
"""

from __future__ import annotations

import logging

_said: set[str] = set()


def say_once(message: str) -> None:
    """Log ``message`` (one line) as a warning of the ``gamelp`` logger, unless this process has said it already."""
    if message not in _said:
        _said.add(message)
        logging.getLogger("gamelp").warning(message)


def forget() -> None:
    """Let every notice be said again (for tests)."""
    _said.clear()
