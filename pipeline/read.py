"""read: bytes on disk → a Document with its decoded, never-modified original.

Decoding: a BOM (UTF-8, UTF-16) decides; then UTF-8; then charset-normalizer, limited to
the encodings Chinese pages use (GB18030 and its subsets GBK/GB2312, Big5). A few undecodable
byte sequences (a last character cut by a scraper, a stray byte) become U+FFFD, each recorded
with its offset and bytes and reported as a warning; only files that are mostly undecodable are
refused. Binary files are refused with a message that says what they look like.

Structure: a Markdown file is parsed into structured text plus an outline of its blocks
(pipeline/outline.py); an HTML page is first reduced to its article as Markdown by trafilatura
(headings, lists, tables and code kept, page chrome dropped), then read the same way. Plain
text has no outline: the split stage finds its blocks. Either way the text then goes through
the same cleaning as any other input.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pipeline.document import Document, Source
from pipeline.outline import read_markdown

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
# At most this many undecodable sequences, and at most this share of the non-ASCII bytes, are
# replaced; more means the encoding is wrong (or the file is not text).
MAX_UNDECODABLE = 64
MAX_UNDECODABLE_SHARE = 0.01
Undecodable = tuple[tuple[int, str], ...]  # (character offset in the text, the bytes in hex)


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


_HIGH_BYTES = bytes(range(0x80, 0x100))


def decode_tolerant(data: bytes, encoding: str) -> tuple[str, Undecodable] | None:
    """`data` decoded, each undecodable sequence replaced by U+FFFD and recorded; None when
    there are too many of them for this to be the file's encoding."""
    high = len(data) - len(data.translate(None, _HIGH_BYTES))  # counted in C, not byte by byte
    limit = min(MAX_UNDECODABLE, max(1, int(high * MAX_UNDECODABLE_SHARE)))
    parts: list[str] = []
    length = 0
    bad: list[tuple[int, str]] = []
    pos = 0
    while True:
        try:
            parts.append(data[pos:].decode(encoding))
            return "".join(parts), tuple(bad)
        except UnicodeDecodeError as exc:
            if len(bad) >= limit:
                return None
            good = data[pos : pos + exc.start].decode(encoding)
            parts += [good, "\ufffd"]
            length += len(good)
            bad.append((length, data[pos + exc.start : pos + exc.end].hex()))
            length += 1
            pos += exc.end


def decode(data: bytes) -> tuple[str, str, Undecodable]:
    """Decode bytes; return (text, encoding name, undecodable sequences replaced)."""
    if data.startswith(b"\xef\xbb\xbf"):
        decoded = decode_tolerant(data[3:], "utf-8")
        if decoded is None:
            raise InputError("invalid UTF-8 despite its byte-order mark")
        return decoded[0], "utf-8-sig", decoded[1]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16", ()
        except UnicodeDecodeError as exc:
            raise InputError(f"invalid UTF-16 despite its byte-order mark: {exc}") from exc
    kind = _binary_kind(data)
    if kind:
        raise InputError(f"not a text file: looks like {kind}")
    decoded = decode_tolerant(data, "utf-8")
    if decoded is not None:
        return decoded[0], "utf-8", decoded[1]
    from charset_normalizer import from_bytes

    best = from_bytes(data, cp_isolation=_CHINESE_ENCODINGS).best()
    if best is None:
        raise InputError("cannot decode: not UTF-8, UTF-16, GB18030/GBK/GB2312 or Big5 text")
    encoding = "gb18030" if best.encoding in ("gb2312", "gbk", "gb18030") else best.encoding
    decoded = decode_tolerant(data, encoding)
    if decoded is None:
        raise InputError(f"cannot decode: too many invalid byte sequences for {encoding}")
    return decoded[0], encoding, decoded[1]


def extract_html(html: str) -> str:
    """The article of an HTML page as Markdown, its metadata (title, …) as front matter."""
    import trafilatura

    extracted = trafilatura.extract(
        html,
        output_format="markdown",
        include_comments=False,
        include_tables=True,
        include_formatting=True,
        include_links=True,
        favor_recall=True,
        with_metadata=True,
    )
    return extracted or ""


def read_document(path: Path, display_path: str | None = None) -> Document:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from exc
    text, encoding, undecodable = decode(data)
    fmt = "text"
    if path.suffix.lower() in HTML_SUFFIXES:
        text, fmt = extract_html(text), "html"
    elif path.suffix.lower() in MARKDOWN_SUFFIXES:
        fmt = "markdown"
    outline = None
    if fmt != "text":
        outline = read_markdown(text)
        text = outline.text
    if not text.strip():
        what = "no article text found in the HTML" if fmt == "html" else "empty file"
        raise EmptyInput(what)
    source = Source(
        path=display_path or str(path),
        sha256=hashlib.sha256(data).hexdigest(),
        encoding=encoding,
        chars=len(text),
        format=fmt,
        # offsets refer to the decoded file; HTML is extracted after decoding, so there they
        # only say how many sequences were replaced
        undecodable=undecodable,
    )
    if outline is None:
        return Document(original=text, source=source)
    metadata = {k: v for k, v in outline.metadata.items() if k not in _TRAFILATURA_INTERNAL}
    doc = Document(
        original=text,
        source=source,
        outline=tuple(outline.blocks),
        title=outline.title,
        metadata=_plain(metadata),
    )
    what = "HTML (article extracted with trafilatura)" if fmt == "html" else "Markdown"
    return doc.with_note(
        f"structure read from the {what}; offsets refer to its structured text, "
        "one line per block (pipeline/outline.py)"
    )


_TRAFILATURA_INTERNAL = {"fingerprint", "id"}


def _plain(value: object) -> object:
    """Front matter as JSON-ready values (YAML dates become ISO strings)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
