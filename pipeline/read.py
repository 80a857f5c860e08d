"""read: bytes on disk → a Document with its decoded, never-modified original.

Decoding: a BOM (UTF-8, UTF-16) decides; then strict UTF-8; then charset-normalizer, limited to
the encodings Chinese pages use (GB18030 and its subsets GBK/GB2312, Big5). Binary files are
refused with a message that says what they look like. HTML pages are reduced to their article
text with trafilatura (title kept, boilerplate dropped); the text then goes through the same
cleaning as any other input.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pipeline.document import Document, Source

HTML_SUFFIXES = (".html", ".htm")
MARKDOWN_SUFFIXES = (".md", ".markdown")
_MAGIC = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"PK\x03\x04", "a zip archive"),
    (b"%PDF", "a PDF file"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"RIFF", "a RIFF (WebP/WAV) file"),
    (b"\x7fELF", "an executable"),
)
_CHINESE_ENCODINGS = ["gb18030", "big5"]


class InputError(Exception):
    """A file that cannot become a document; the message names the problem."""


class EmptyInput(InputError):
    """An empty or whitespace-only file: a warning, not a failure."""


def _binary_kind(data: bytes) -> str | None:
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if b"\x00" in data[:8192]:
        return "binary data (NUL bytes)"
    return None


def decode(data: bytes) -> tuple[str, str]:
    """Decode bytes; return (text, encoding name)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict"), "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError as exc:
            raise InputError(f"invalid UTF-16 despite its byte-order mark: {exc}") from exc
    kind = _binary_kind(data)
    if kind:
        raise InputError(f"not a text file: looks like {kind}")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data, cp_isolation=_CHINESE_ENCODINGS).best()
    if best is None:
        raise InputError("cannot decode: not UTF-8, UTF-16, GB18030/GBK/GB2312 or Big5 text")
    encoding = "gb18030" if best.encoding in ("gb2312", "gbk", "gb18030") else best.encoding
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot decode as {encoding}: {exc}") from exc


def extract_html(html: str) -> str:
    """The article text of an HTML page: its title, a blank line, then the main text."""
    import trafilatura

    extracted = trafilatura.bare_extraction(
        html, include_comments=False, include_tables=True, favor_recall=True, with_metadata=True
    )
    if extracted is None:
        return ""
    title = (getattr(extracted, "title", None) or "").strip()
    body = (getattr(extracted, "text", None) or "").strip()
    if title and not body.startswith(title):
        return f"{title}\n\n{body}"
    return body


def read_document(path: Path, display_path: str | None = None) -> Document:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from exc
    text, encoding = decode(data)
    fmt = "text"
    if path.suffix.lower() in HTML_SUFFIXES:
        text, fmt = extract_html(text), "html"
    elif path.suffix.lower() in MARKDOWN_SUFFIXES:
        fmt = "markdown"
    if not text.strip():
        what = "no article text found in the HTML" if fmt == "html" else "empty file"
        raise EmptyInput(what)
    source = Source(
        path=display_path or str(path),
        sha256=hashlib.sha256(data).hexdigest(),
        encoding=encoding,
        chars=len(text),
        format=fmt,
    )
    doc = Document(original=text, source=source)
    if fmt == "html":
        doc = doc.with_note(
            "article text extracted from HTML with trafilatura; offsets refer to the extracted text"
        )
    return doc
