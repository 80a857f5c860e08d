"""split: the kept text → paragraphs (one per non-blank line) → sentences.

A sentence ends after 。！？!?；… (a run of them), together with closing quotes or brackets that
follow. ASCII `?`/`!` inside URLs never end a sentence; an ASCII `.` ends one only when white
space and a capital letter or Han character follow and the word before it is neither a number
(list marker `1.`, decimal `2.0`) nor a known abbreviation.
"""

from __future__ import annotations

import re

from pipeline.document import Document, Paragraph, Sentence
from pipeline.text import strip_span, url_spans

_TERMINATORS = "。！？!?；…"
_CLOSERS = "」』”’\"'）)】》"
_END = re.compile(rf"[{_TERMINATORS}]+[{re.escape(_CLOSERS)}]*")
_PERIOD = re.compile(r"(?<=[A-Za-z\)\]])\.(?=\s+[A-Z\u4e00-\u9fff])")
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "etc",
        "vs",
        "al",
        "fig",
        "figs",
        "eq",
        "eqs",
        "no",
        "nos",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "inc",
        "ltd",
        "co",
        "corp",
        "jr",
        "sr",
        "st",
        "mt",
        "approx",
        "dept",
        "est",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "u.s",
    ]
)


def split(doc: Document) -> Document:
    """Fill `doc.paragraphs` with paragraphs and sentences carrying original offsets."""
    view = doc.view
    text = view.text
    paragraphs = []
    for line in re.finditer(r"[^\n]+", text):
        a, b = strip_span(text, line.start(), line.end())
        if a >= b:
            continue
        pid = f"p{len(paragraphs) + 1}"
        sentences = []
        for sa, sb in sentence_bounds(text, a, b):
            start, end = view.to_original(sa, sb)
            sentences.append(Sentence(f"{pid}-s{len(sentences) + 1}", start, end, text[sa:sb]))
        start, end = view.to_original(a, b)
        paragraphs.append(Paragraph(pid, start, end, text[a:b], tuple(sentences)))
    return doc.replace(paragraphs=tuple(paragraphs))


def sentence_bounds(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans [a, b) of text[start:end], stripped of surrounding white space."""
    segment = text[start:end]
    urls = url_spans(segment)

    cuts = []
    for m in _END.finditer(segment):
        if m.start() not in urls:
            cuts.append(m.end())
    for m in _PERIOD.finditer(segment):
        if m.start() not in urls and not _is_abbreviation(segment, m.start()):
            cuts.append(m.end())
    bounds = []
    prev = 0
    for cut in sorted(set(cuts)) + [len(segment)]:
        a, b = strip_span(segment, prev, cut)
        if a < b:
            bounds.append((start + a, start + b))
        prev = cut
    return bounds


def _is_abbreviation(segment: str, dot: int) -> bool:
    word = re.search(r"[A-Za-z.]+$", segment[:dot])
    return bool(word) and (word.group().lower() in _ABBREVIATIONS or len(word.group()) == 1)
