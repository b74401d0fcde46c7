"""Atomic file writes for every file the project saves (pictures, scenarios, survey tables):
the bytes go to a temporary file beside the target, which then replaces it in one step, so a
reader never sees half a file and a failed write leaves the old file as it was.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> write_bytes(os.path.join(d, "a.txt"), b"hello")
>>> open(os.path.join(d, "a.txt"), "rb").read()
b'hello'
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from geom.errors import TmgError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` atomically; a TmgError (one line) when it cannot be written."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        exists = directory.is_dir()
    except OSError as exc:  # a name too long for the file system, a loop of links
        raise TmgError(f"cannot write {target}: {exc.strerror or exc}") from None
    if not exists:
        raise TmgError(f"cannot write {target}: directory {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise TmgError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; saved files are for sharing
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise TmgError(f"cannot write {target}: {exc.strerror or exc}") from None


def write_text(path: str | Path, text: str) -> None:
    """Write `text` as UTF-8, atomically."""
    write_bytes(path, text.encode("utf-8"))
