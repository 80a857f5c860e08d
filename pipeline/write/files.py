"""Atomic file writes: a reader (or a kill) sees the old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str | bytes | Iterable[str | bytes]) -> None:
    """Write `text` (a string, UTF-8 bytes, or an iterable of pieces of either) to `path` via a
    temp file + rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; outputs are ordinary files
        # Binary: the JSON writer hands over encoded bytes; text is encoded here, as is
        # (newlines are never translated).
        with os.fdopen(fd, "wb") as fh:
            for piece in (text,) if isinstance(text, str | bytes) else text:
                fh.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_stale_temp_files(directory: Path) -> int:
    """Temp files a killed run left behind (never a finished output); returns how many."""
    if not directory.is_dir():
        return 0
    stale = list(directory.rglob(".*.tmp"))
    for path in stale:
        path.unlink(missing_ok=True)
    return len(stale)
