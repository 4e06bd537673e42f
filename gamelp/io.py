"""Safe file access: inputs must be regular files, outputs are written atomically.

:func:`open_regular` refuses a named pipe, device or directory before
opening it (reading a pipe would wait forever), raising the caller's error
class naming the path.

:func:`atomic_write` writes to a temporary file in the target's directory,
flushes and fsyncs it, then ``os.replace``-s it over the target (atomic on
POSIX within one file system).  If the block raises, or the process is killed
mid-write, the target is untouched; the temporary file is removed on an
exception.  A missing directory or an unwritable target is refused with a
:class:`~gamelp.errors.OutputError` naming the path, before anything is written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from gamelp.errors import GamelpError, OutputError


def open_regular(path, error: type[GamelpError], mode: str = "r", **kwargs):
    """Open ``path`` for reading if it is a regular file; otherwise raise ``error`` naming it."""
    path = Path(path)
    try:
        kind = path.stat().st_mode
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(kind):
        what = "a directory" if stat.S_ISDIR(kind) else "a named pipe" if stat.S_ISFIFO(kind) else "a special file"
        raise error(f"{path}: cannot read, it is {what}, not a regular file")
    try:
        return path.open(mode, **kwargs)
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_text(path, error: type[GamelpError]) -> str:
    """The UTF-8 text of the regular file ``path``; anything else raises ``error`` naming it."""
    try:
        with open_regular(path, error, encoding="utf-8") as handle:
            return handle.read()
    except UnicodeDecodeError:
        raise error(f"{path}: not a text file (not valid UTF-8)") from None


def write_text(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write`)."""
    with atomic_write(path) as handle:
        handle.write(text)
    return Path(path)


def check_writable(path) -> Path:
    """Refuse an output path whose directory is missing or unwritable, or that is itself a directory."""
    path = Path(path)
    directory = path.parent
    if not directory.is_dir():
        raise OutputError(f"{path}: cannot write, the directory {str(directory)!r} does not exist")
    if path.is_dir():
        raise OutputError(f"{path}: cannot write, it is a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"{path}: cannot write, the directory {str(directory)!r} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputError(f"{path}: cannot write, the file is read-only")
    return path


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None):
    """Context manager yielding a file object whose contents replace ``path`` only on success.

    ``mode`` is ``"w"`` (text, ``encoding`` and ``newline`` apply) or ``"wb"``.
    Use :func:`atomic_path` instead when a library writes the file by name.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path) as temporary:
        handle = open(temporary, "w", encoding=encoding, newline=newline) if mode == "w" else open(temporary, "wb")
        with handle:
            yield handle


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path next to ``path`` to write by name; on success it replaces ``path``.

    The temporary name keeps ``path``'s extension, for writers that choose
    the format by extension (matplotlib, HiGHS).
    """
    path = check_writable(path)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.stem}.tmp-", suffix=path.suffix, dir=path.parent)
    os.close(descriptor)
    try:
        yield Path(temporary)
        _fsync_file(temporary)
        _keep_mode(path, temporary)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _fsync_directory(path.parent)


def _keep_mode(path: Path, temporary: str) -> None:
    """mkstemp creates 0600 files; give the new file the old one's mode, or the umask default."""
    if path.exists():
        mode = path.stat().st_mode & 0o777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(temporary, mode)


def _fsync_file(name) -> None:
    descriptor = os.open(name, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (best effort: some file systems refuse directory fsync)."""
    with contextlib.suppress(OSError):
        _fsync_file(directory)
