"""Capture a solver's log: everything written to standard output, by Python or by compiled code.

The cvxpy and Pyomo backends run their solvers with logging on and keep the
log in :attr:`~gamelp.solution.Solution.log`.  Compiled solvers (SCS, Clarabel,
HiGHS, Gurobi) write to file descriptor 1 directly, which
``contextlib.redirect_stdout`` does not see, so :func:`captured` points file
descriptor 1 at a temporary file for the duration (and ``sys.stdout`` at a
buffer).  Nothing the solver prints reaches the process's standard output;
with ``echo`` the log is copied to standard error afterwards.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import sys
import tempfile


class Captured:
    """The text a :func:`captured` block wrote (``text`` is set when the block ends)."""

    text: str = ""


def _flush_c_stdio() -> None:
    """Flush the C library's ``stdout`` buffer, so buffered C output lands in the captured file."""
    try:
        ctypes.CDLL(None).fflush(None)
    except Exception:  # no C library handle here (not POSIX): compiled solvers flush per line anyway
        pass


@contextlib.contextmanager
def captured(echo: bool = False):
    """``with captured() as log: ...`` then ``log.text``: Python- and C-level standard output of the block."""
    log = Captured()
    python_buffer = io.StringIO()
    sys.stdout.flush()
    _flush_c_stdio()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(1)
        os.dup2(sink.fileno(), 1)
        try:
            with contextlib.redirect_stdout(python_buffer):
                yield log
        finally:
            _flush_c_stdio()
            os.dup2(saved, 1)
            os.close(saved)
            sink.seek(0)
            log.text = python_buffer.getvalue() + sink.read().decode("utf-8", errors="replace")
    if echo and log.text:
        sys.stderr.write(log.text)
        sys.stderr.flush()
