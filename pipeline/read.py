"""read: bytes on disk → a Document with its decoded, never-modified original."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pipeline.document import Document, Source


class InputError(Exception):
    """A file that cannot become a document; the message names the problem."""


def decode(data: bytes) -> tuple[str, str]:
    """Decode bytes; return (text, encoding name)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8"), "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16"), "utf-16"
    if b"\x00" in data:
        raise InputError("binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data, cp_isolation=["gb18030", "big5", "utf_8"]).best()
    if best is None:
        raise InputError("cannot decode: not UTF-8, GB18030 or Big5 text")
    return str(best), best.encoding


def read_document(path: Path, display_path: str | None = None) -> Document:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from exc
    text, encoding = decode(data)
    source = Source(
        path=display_path or str(path),
        sha256=hashlib.sha256(data).hexdigest(),
        encoding=encoding,
        chars=len(text),
    )
    return Document(original=text, source=source)
