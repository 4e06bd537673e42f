"""Safe file access: inputs must be regular files, outputs are written atomically or not at all.

:func:`open_regular` refuses a named pipe, device or directory before
opening it (reading a pipe would wait forever), raising the caller's error
class naming the path.

:func:`atomic_write` writes to a temporary file in the target's directory,
flushes and fsyncs it, checks that the file on disk is as long as what was
written, then ``os.replace``-s it over the target (atomic on POSIX within one
file system).  :func:`atomic_path` does the same for a library that writes the
temporary file by name (matplotlib, HiGHS): the file must exist and not be
empty, and must end with the writer's last line when the caller names it
(HiGHS reports success even when the disk filled up mid-file).  A missing
directory or an unwritable target is refused with an
:class:`~gamelp.errors.OutputError` naming the path, before anything is
written.  Any failure afterwards (the disk or a quota full, a file-size
limit, a short write, an I/O error) leaves the target as it was and removes
the temporary file; a failed write of the disk itself is raised as one
:class:`~gamelp.errors.OutputError` naming the target and the OS error.  If
the process is killed mid-write the target is untouched too (a dot-file
``.NAME.tmp-*`` stays behind).  A symbolic link at the target is replaced by
the new file, never written through.
"""

from __future__ import annotations

import contextlib
import errno
import io
import math
import os
import stat
import tempfile
import zipfile
from pathlib import Path

import numpy as np

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


# The largest text file gamelp reads (game files, Gambit files, card lists): parsing keeps about ten times the
# text's size in Python objects, so 256 MiB of text is already a few GiB of memory.
MAX_TEXT_BYTES = 256 * 2**20


def read_text(path, error: type[GamelpError], max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of the regular file ``path``, at most ``max_bytes`` long; anything else raises ``error``."""
    try:
        with open_regular(path, error, mode="rb") as handle:
            data = handle.read(max_bytes + 1)  # the file may grow after a size check: read no more than allowed
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise error(f"{path}: larger than the {max_bytes / 2**20:g} MiB gamelp reads from a text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{path}: not a text file (not valid UTF-8)") from None


NPZ_MAX_MEMBERS = 4096
"""Most arrays an .npz file may hold: gamelp's policies and forests have a few dozen; the zip directory of a
hostile file could otherwise list millions of empty members, each costing a header read."""


def read_npz(path, error: type[GamelpError], max_bytes: int, what: str = "an .npz file") -> dict[str, np.ndarray]:
    """The arrays of the regular ``.npz`` file ``path``, by name.

    Anything suspect raises ``error`` naming it (``path: not WHAT (...)``, ``what`` saying what the file should have
    been).

    Every member's header is checked before its data is read: a plain (not object, not structured) dtype,
    a size equal to the data the member holds, and at most ``max_bytes`` for all the arrays together.
    """
    with open_regular(path, error, "rb") as stream:
        try:
            with zipfile.ZipFile(stream) as archive:
                members = archive.infolist()
                if len(members) > NPZ_MAX_MEMBERS:
                    raise _NotNpz(f"{len(members)} arrays, more than the {NPZ_MAX_MEMBERS} allowed")
                total = 0
                for info in members:
                    total += _checked_npy_size(archive, info, max_bytes - total)
                return {info.filename.removesuffix(".npy"): _read_npy(archive, info) for info in members}
        except (
            _NotNpz,
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            OSError,
            EOFError,
            ValueError,
            NotImplementedError,
            RuntimeError,
        ) as exc:  # RuntimeError: an encrypted member
            raise error(f"{path}: not {what} ({exc})") from None


class _NotNpz(Exception):
    """A member of an .npz file is refused (the message says which and why)."""


def _checked_npy_size(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int) -> int:
    """The data size ``info``'s header declares, once checked against ``budget`` and the member's size."""
    where = f"array {info.filename.removesuffix('.npy')!r}"
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version not in ((1, 0), (2, 0)):
            raise _NotNpz(f"{where}: unsupported .npy format version {version}")
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read_header(member)
        header = member.tell()
    if dtype.hasobject:
        raise _NotNpz(f"{where}: it holds pickled objects, refused unread")
    if dtype.fields is not None or dtype.subdtype is not None or dtype.kind not in "biufcU":
        raise _NotNpz(f"{where}: unsupported dtype {dtype}")
    if any(n < 0 for n in shape):
        raise _NotNpz(f"{where}: its header declares the shape {shape}")
    size = math.prod(shape) * dtype.itemsize
    if size > budget:
        raise _NotNpz(
            f"{where}: its header declares {shape} {dtype}, {size:,} bytes, more than the "
            f"{budget:,} bytes left of the limit"
        )
    if size != info.file_size - header:
        raise _NotNpz(
            f"{where}: its header declares {size:,} bytes of data, the file holds {info.file_size - header:,}"
        )
    return size


def _read_npy(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    with archive.open(info) as member:
        return np.lib.format.read_array(member, allow_pickle=False)


def write_text(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write`)."""
    with atomic_write(path) as handle:
        handle.write(text)
    return Path(path)


def check_writable(path) -> Path:
    """Refuse an output path whose directory is missing or unwritable, or that is a directory or a special file."""
    path = Path(path)
    directory = path.parent
    if not directory.is_dir():
        raise OutputError(f"{path}: cannot write, the directory {str(directory)!r} does not exist")
    if path.is_dir():
        raise OutputError(f"{path}: cannot write, it is a directory")
    if path.exists() and not path.is_file():  # a device or a pipe: an atomic rename would replace the node itself
        raise OutputError(f"{path}: cannot write, it is not a regular file (a device, pipe or socket); name a file")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"{path}: cannot write, the directory {str(directory)!r} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputError(f"{path}: cannot write, the file is read-only")
    return path


# The errors of a write the disk refused (full, over quota, past the file-size limit, failing, read-only), whatever
# the writer; the block's own OSErrors with another errno (a missing input file, say) pass through unchanged.
_DISK_ERRORS = frozenset(
    getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO", "EROFS") if hasattr(errno, name)
)


class _IncompleteWrite(OSError):
    """The file on disk is not what the writer wrote (shorter, empty, or without its last line)."""


class _Extent(io.FileIO):
    """A raw file that records how far its writes reached: the size the file must have on disk once closed."""

    extent = 0

    def write(self, data, /):
        written = super().write(data)
        if written:
            self.extent = max(self.extent, self.tell())
        return written


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None):
    """Context manager yielding a file object whose contents replace ``path`` only on success.

    ``mode`` is ``"w"`` (text, ``encoding`` and ``newline`` apply) or ``"wb"``.  Every byte is counted on its way
    to the file; after the flush the file's size on disk must reach the furthest byte written (a writer that seeks
    back, as ``zipfile`` does, is allowed, and so is one that writes by the file descriptor, as numpy's
    ``tofile``).  Use :func:`atomic_path` instead when a library writes the file by name.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path) as temporary:
        raw = _Extent(temporary, "w")
        buffered = io.BufferedWriter(raw)
        handle = io.TextIOWrapper(buffered, encoding=encoding, newline=newline) if mode == "w" else buffered
        try:
            yield handle
            handle.close()  # flushes: a full disk fails here at the latest
        except BaseException:
            with contextlib.suppress(OSError):  # the block's own error is the one to report
                handle.close()
            raise
        on_disk = os.stat(temporary).st_size
        if on_disk < raw.extent:  # more is fine: numpy's tofile writes by the descriptor, past the count
            raise _IncompleteWrite(
                errno.EIO, f"{on_disk:,} of the {raw.extent:,} bytes written reached the disk", temporary
            )


@contextlib.contextmanager
def atomic_path(path, ends_with: bytes | None = None):
    """Yield a temporary path next to ``path`` to write by name; on success it replaces ``path``.

    The temporary name keeps ``path``'s extension, for writers that choose
    the format by extension (matplotlib, HiGHS).  After the block the file
    must be non-empty and, if ``ends_with`` is given, end with those bytes (a
    writer that ignores its own write errors leaves a truncated file, so a
    caller that knows the format's last line names it); otherwise the target
    is left as it was and :class:`~gamelp.errors.OutputError` says why.
    """
    path = check_writable(path)
    existed = os.path.lexists(path)
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.stem}.tmp-", suffix=path.suffix, dir=path.parent)
    except OSError as exc:
        raise OutputError(_not_written(path, exc, existed)) from None
    os.close(descriptor)
    try:
        yield Path(temporary)
        _check_complete(temporary, ends_with)
        _fsync_file(temporary)
        _keep_mode(path, temporary)
        os.replace(temporary, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        if isinstance(exc, OSError) and (exc.errno in _DISK_ERRORS or exc.filename == temporary):
            raise OutputError(_not_written(path, exc, existed)) from exc
        raise
    _fsync_directory(path.parent)


def _not_written(path: Path, exc: OSError, existed: bool) -> str:
    """The one line of a refused write: the target, the OS error, and what became of the target."""
    reason = exc.strerror or str(exc)
    kept = "the old file is unchanged" if existed else "nothing was written"
    return f"{path}: cannot write ({reason}); {kept}"


def _check_complete(temporary: str, ends_with: bytes | None) -> None:
    """Refuse a file a by-name writer left empty, or without the last bytes its format ends with."""
    with open(temporary, "rb") as written:
        size = written.seek(0, os.SEEK_END)
        if size == 0:
            raise _IncompleteWrite(errno.EIO, "the writer left the file empty; is the disk full?", temporary)
        if ends_with:
            written.seek(max(0, size - len(ends_with)))
            if written.read() != ends_with:
                raise _IncompleteWrite(
                    errno.EIO,
                    f"the writer stopped after {size:,} bytes, before the file's last line; is the disk full?",
                    temporary,
                )


def _keep_mode(path: Path, temporary: str) -> None:
    """Mkstemp creates 0600 files; give the new file the old one's mode, or the umask default."""
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
