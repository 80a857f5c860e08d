"""split: the kept text → blocks → sentences.

Blocks come from the reader's outline (Markdown, HTML: heading, list item, quote, table cell,
code) or, for plain text, one per non-blank line, with heading-like lines recognised. A block
the cleaner emptied is gone.

A sentence ends after 。！？!?；… (a run of them), together with closing quotes or brackets that
follow. ASCII `?`/`!` inside URLs never end a sentence; an ASCII `.` ends one only when white
space and a capital letter or Han character follow and the word before it is neither a number
(list marker `1.`, decimal `2.0`) nor a known abbreviation.
"""

from __future__ import annotations

import hashlib
import re

from pipeline.context import Context
from pipeline.document import Block, Document, Sentence, evolve
from pipeline.registry import stage
from pipeline.text import Spans, has_han, strip_span, url_spans

_TERMINATORS = "。！？!?；…"
_CLOSERS = "」』”’\"'）)】》"
_END = re.compile(rf"[{_TERMINATORS}]+[{re.escape(_CLOSERS)}]*")
# The dot leads (the look-behind checks the character before it): the engine skips to the
# next dot at C speed, where a leading look-behind was tried at every character.
_PERIOD = re.compile(r"\.(?<=[A-Za-z\)\]]\.)(?=\s+[A-Z\u4e00-\u9fff])")
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
    """Blocks and their sentences, each with offsets into the original and a stable id."""
    view = doc.view
    text = view.text
    urls = url_spans(text)  # no URL spans a line: one scan serves every block
    # (block, view span) of every block with kept text; a code block has no sentences.
    found: list[tuple[Block, int, int]] = []
    if doc.outline:
        for block in doc.outline:
            a, b = strip_span(text, view.from_original(block.start), view.from_original(block.end))
            if a < b:
                found.append((block, a, b))
    else:
        for line in re.finditer(r"[^\n]+", text):
            a, b = strip_span(text, line.start(), line.end())
            if a < b:
                found.append((Block("", 0, 0, ""), a, b))
    bounds = [
        [] if block.kind == "code" else sentence_bounds(text, a, b, urls) for block, a, b in found
    ]
    # Every span of the document mapped to the original in one vectorised call.
    view_spans = [
        span
        for (_, a, b), sentences in zip(found, bounds, strict=True)
        for span in [(a, b), *sentences]
    ]
    starts, ends = view.to_original_many([a for a, _ in view_spans], [b for _, b in view_spans])
    original = iter(zip(starts, ends, strict=True))
    ids = BlockIds()
    blocks = []
    for (block, a, b), sentence_spans in zip(found, bounds, strict=True):
        bid = ids.next(text[a:b])
        start, end = next(original)
        sentences = tuple(
            Sentence(f"{bid}-s{k}", *next(original), text[sa:sb])
            for k, (sa, sb) in enumerate(sentence_spans, 1)
        )
        zh = doc.original[block.start : block.end] if block.kind == "code" else text[a:b]
        blocks.append(evolve(block, id=bid, start=start, end=end, zh=zh, sentences=sentences))
    if not doc.outline:
        blocks = plain_text_headings(blocks, doc.title)
    return doc.replace(blocks=tuple(blocks))


class BlockIds:
    """Block ids made from the block's own text, so that an anchor stays on its block when
    cleaning elsewhere in the page changes: `p` + 6 hex digits of the BLAKE2b hash of the
    text without white space; the second block with the same text gets `-2`, and so on."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def next(self, text: str) -> str:
        digest = hashlib.blake2b("".join(text.split()).encode("utf-8"), digest_size=3).hexdigest()
        base = f"p{digest}"
        n = self.seen.get(base, 0) + 1
        self.seen[base] = n
        return base if n == 1 else f"{base}-{n}"


HEADING_MAX_CHARS = 40
TITLE_MAX_CHARS = 80
_NOT_HEADING_END = "。！？!?；;，,、：:…—-"  # a line ending so is a sentence or a label
_BYLINE = re.compile(r"[：:|｜]|\d{4}[-/年.]\d{1,2}")


def plain_text_headings(blocks: list[Block], title: str | None = None) -> list[Block]:
    """Headings in plain text: short lines of words, not sentences, followed by prose.

    The first line is the title (level 1) when it reads like one, or when it is the title the
    reader was given (a dataset record's title field); later heading-like lines are level 2. A
    line with a colon or a date is a byline or a label, not a heading.
    """
    out = list(blocks)
    for i, block in enumerate(blocks):
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if i == 0 and (_title_like(block.zh) or block.zh == title):
            out[i] = evolve(block, kind="heading", level=1)
        elif nxt is not None and _heading_like(block.zh) and _prose(nxt.zh, len(block.zh)):
            out[i] = evolve(block, kind="heading", level=2)
    return out


def _title_like(text: str) -> bool:
    return (
        len(text) <= TITLE_MAX_CHARS
        and has_han(text)
        and text[-1] not in _NOT_HEADING_END
        and "。" not in text
    )


def _heading_like(text: str) -> bool:
    return (
        _title_like(text)
        and len(text) <= HEADING_MAX_CHARS
        and not _BYLINE.search(text)
        and not any(c in text for c in "，,！？!?")
    )


def _prose(text: str, than: int) -> bool:
    return len(text) >= max(2 * than, 30) and text[-1] in "。！？!?…”」）)"


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
