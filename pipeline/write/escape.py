"""Make arbitrary input text inert in Markdown: it may never create structure, HTML or links.

Only characters that both CommonMark (markdown-it) and Python-Markdown (MkDocs) accept as
backslash escapes are escaped with a backslash; `&`, `<`, `>` become entities. Braces are
escaped too (MDX reads `{…}` as an expression, Hugo `{{…}}` as a shortcode), and a line never
starts with `import` or `export` (MDX reads that as a module line): its first letter becomes a
character reference.
"""

from __future__ import annotations

import re

_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_INLINE = re.compile(r"[\\`*_\[\]|&<>{}]")
_MODULE_LINE = re.compile(r"^(import|export)\b")
_LIST_NUMBER = re.compile(r"^(\d{1,9})([.)])")
_LINE_START = re.compile(r"^([#+\-=])")


# Anything the substitutions below could change (most Chinese lines have none of it).
_ANY = re.compile(r"[\\`*_\[\]|&<>{}]|^(?:\d|[#+\-=]|import|export)")


def escape_inline(text: str) -> str:
    """Escape text for use inside a line (paragraph text, table cell, blockquote)."""
    text = text.replace("\n", " ")
    if _ANY.search(text) is None:
        return text
    text = _INLINE.sub(lambda m: _ENTITIES.get(m.group(), "\\" + m.group()), text)
    text = _LIST_NUMBER.sub(r"\1\\\2", text)
    text = _LINE_START.sub(r"\\\1", text)
    return _MODULE_LINE.sub(lambda m: f"&#{ord(m.group()[0])};{m.group()[1:]}", text)
