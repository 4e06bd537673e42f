"""Keep solvers' console output off standard output: file descriptor 1 points elsewhere for a while.

Solver libraries write to the process's file descriptor 1 from C, where
``sys.stdout`` redirection cannot reach: highspy 1.16 prints a two-line
banner at its first ``Highs()``, before any option can silence it, and
gurobipy prints its licence line.  Inside :func:`stdout_to_stderr`, file
descriptor 1 is a duplicate of file descriptor 2, so such writes land on
stderr, and a command's own output still reaches the real standard output
through the stream the context yields.  Nesting and threads are safe: the
outermost entry redirects, the last exit restores.  :func:`discard_stdout`
drops such writes instead (a start-up banner nobody asked for), and
:func:`captured` keeps them, Python's and C's, as a solver's log (the cvxpy
and Pyomo backends run their solvers with logging on and keep the log in
:attr:`~gamelp.solution.Solution.log`).
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import sys
import tempfile
import threading

_lock = threading.Lock()
_depth = 0
_saved_fd: int | None = None  # a duplicate of the original file descriptor 1, while redirected
_libc = ctypes.CDLL(None)


def _flush_all() -> None:
    """Flush Python's and C's buffered standard streams, so nothing crosses the switch."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    _libc.fflush(None)


def _enter() -> None:
    global _depth, _saved_fd
    with _lock:
        _depth += 1
        if _depth > 1:
            return
        _flush_all()
        try:
            _saved_fd = os.dup(1)
            os.dup2(2, 1)
        except OSError:  # no descriptor 1 or 2 (a daemon): nothing to redirect
            _saved_fd = None


def _exit() -> None:
    global _depth, _saved_fd
    with _lock:
        _depth -= 1
        if _depth > 0 or _saved_fd is None:
            return
        _flush_all()
        os.dup2(_saved_fd, 1)
        os.close(_saved_fd)
        _saved_fd = None


def _writes_to_descriptor_1(stream) -> bool:
    try:
        return stream.fileno() == 1
    except (AttributeError, OSError, ValueError):  # an in-memory stream
        return False


@contextlib.contextmanager
def stdout_to_stderr():
    """File descriptor 1 goes to stderr inside; yields a text stream on the original standard output.

    The stream is ``sys.stdout`` itself where ``sys.stdout`` is not file
    descriptor 1 (already redirected in Python, as by pytest's ``capsys``)
    or no descriptor could be duplicated.
    """
    _enter()
    stream = sys.stdout
    try:
        if _saved_fd is not None and _writes_to_descriptor_1(sys.stdout):
            stream = os.fdopen(
                os.dup(_saved_fd),
                "w",
                encoding=sys.stdout.encoding or "utf-8",
                errors=getattr(sys.stdout, "errors", None) or "strict",
                closefd=True,
            )
        yield stream
    finally:
        if stream is not sys.stdout:
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        _exit()


@contextlib.contextmanager
def solver_output_to_stderr():
    """Only the redirection of :func:`stdout_to_stderr`, for wrapping a solver call (no stream made)."""
    _enter()
    try:
        yield
    finally:
        _exit()


@contextlib.contextmanager
def discard_stdout():
    """File descriptor 1 goes to the null device inside (under the same lock as the redirection)."""
    with _lock:
        _flush_all()
        try:
            current = os.dup(1)
        except OSError:
            current = None
        if current is not None:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)
        try:
            yield
        finally:
            if current is not None:
                _flush_all()
                os.dup2(current, 1)
                os.close(current)


class Captured:
    """The text a :func:`captured` block wrote (``text`` is set when the block ends)."""

    text: str = ""


@contextlib.contextmanager
def captured(echo: bool = False):
    """Capture the Python- and C-level standard output of a ``with`` block; read it as ``log.text`` afterwards.

    File descriptor 1 points at a temporary file and ``sys.stdout`` at a buffer
    for the duration; nothing reaches the process's standard output.  With
    ``echo`` the log is copied to stderr afterwards.
    """
    log = Captured()
    python_buffer = io.StringIO()
    with tempfile.TemporaryFile() as sink:
        with _lock:
            _flush_all()
            saved = os.dup(1)
            os.dup2(sink.fileno(), 1)
        try:
            with contextlib.redirect_stdout(python_buffer):
                yield log
        finally:
            with _lock:
                _flush_all()
                os.dup2(saved, 1)
                os.close(saved)
            sink.seek(0)
            log.text = python_buffer.getvalue() + sink.read().decode("utf-8", errors="replace")
    if echo and log.text:
        sys.stderr.write(log.text)
        sys.stderr.flush()
