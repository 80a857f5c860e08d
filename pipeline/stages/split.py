"""split: the kept text → paragraphs (one per non-blank line) → sentences.

A sentence ends after 。！？!?；… (a run of them), together with closing quotes or brackets that
follow. ASCII `?`/`!` inside URLs never end a sentence; an ASCII `.` ends one only when white
space and a capital letter or Han character follow and the word before it is neither a number
(list marker `1.`, decimal `2.0`) nor a known abbreviation.
"""

from __future__ import annotations

import re

from pipeline.context import Context
from pipeline.document import Document, Paragraph, Sentence
from pipeline.registry import stage
from pipeline.text import Spans, strip_span, url_spans

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


@stage("split", order=100)
def split(doc: Document, ctx: Context) -> Document:
    """Paragraphs and sentences, each with offsets into the original."""
    view = doc.view
    text = view.text
    urls = url_spans(text)  # no URL spans a line: one scan serves every paragraph
    found: list[tuple[int, int, list[tuple[int, int]]]] = []
    for line in re.finditer(r"[^\n]+", text):
        a, b = strip_span(text, line.start(), line.end())
        if a < b:
            found.append((a, b, sentence_bounds(text, a, b, urls)))
    # Every span of the document mapped to the original in one vectorised call.
    view_spans = [span for a, b, sentences in found for span in [(a, b), *sentences]]
    starts, ends = view.to_original_many([a for a, _ in view_spans], [b for _, b in view_spans])
    original = iter(zip(starts, ends, strict=True))
    paragraphs = []
    for a, b, bounds in found:
        pid = f"p{len(paragraphs) + 1}"
        start, end = next(original)
        sentences = tuple(
            Sentence(f"{pid}-s{k}", *next(original), text[sa:sb])
            for k, (sa, sb) in enumerate(bounds, 1)
        )
        paragraphs.append(Paragraph(pid, start, end, text[a:b], sentences))
    return doc.replace(paragraphs=tuple(paragraphs))


def sentence_bounds(
    text: str, start: int, end: int, urls: Spans | None = None
) -> list[tuple[int, int]]:
    """Sentence spans [a, b) of text[start:end], stripped of surrounding white space.

    `urls`: where the URLs of `text` are, if already known.
    """
    segment = text[start:end]
    if urls is None:
        urls, start_in_urls = url_spans(segment), 0
    else:
        start_in_urls = start

    cuts = []
    for m in _END.finditer(segment):
        if start_in_urls + m.start() not in urls:
            cuts.append(m.end())
    for m in _PERIOD.finditer(segment):
        if start_in_urls + m.start() not in urls and not _is_abbreviation(segment, m.start()):
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
