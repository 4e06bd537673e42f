"""Reading game files with one-line errors, and atomic writes (a temporary file, then a rename)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def read_text(path, error: type[Exception]) -> str:
    """The UTF-8 text of ``path``; an unreadable or non-text file raises ``error`` naming it."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not a text file (not valid UTF-8)") from None


def write_text_atomic(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` so that readers see the old file or the whole new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
