"""Protected spans: text the translation must carry through unchanged.

URLs, e-mail addresses, file names, code, version strings, numbers (with their units) and
Latin-script names and terms (`Jeff Dean`, `TPU v4`, `MLPerf 2.0`, `CollectiveEinsum`) are
replaced by numbered placeholders before the model sees the sentence and put back afterwards;
so are glossary terms, whose placeholder becomes the glossary's English. A placeholder the model
dropped is put back where it most likely belongs, so nothing protected is ever lost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.glossary import Match
from pipeline.text import URL_RE

_PROTECTED = re.compile(
    "|".join(
        [
            URL_RE.pattern,
            r"`[^`\n]+`",  # inline code
            r"\b[\w.-]+\.(?:pdf|html?|png|jpe?g|gif|py|js|json|csv|txt|md|zip|tar\.gz)\b",
            # Latin words, possibly with digits, dots, dashes, and the spaces between words:
            # a whole run such as `Jeff Dean`, `TPU v4`, `MLPerf 2.0`, `f(x)`
            r"[A-Za-z][\w.+#/-]*(?:\([\w, ]*\))?(?:[ \t]+[A-Za-z0-9][\w.+#/-]*(?:\([\w, ]*\))?)*",
            r"\d+(?:[.,:]\d+)*(?:\s?%|\s?[A-Za-z]+\b)?",  # numbers, with a Latin unit or %
        ]
    ),
    re.I | re.ASCII,  # \w is a Latin word character here, never a Han one
)
_PLACEHOLDER = re.compile(r"X\s*P\s*H\s*(\d+)\s*X", re.I)
_ADJACENT = re.compile(r"(?<=\dX)(?=XPH\d)")
_SENTENCE_END = re.compile(r"[\s.!?;:。！？\"'”’)\]]*$")


@dataclass(frozen=True)
class Masked:
    text: str  # what the model sees: XPH0X, XPH1X, … in place of the protected spans
    spans: tuple[str, ...]  # what each placeholder becomes in the English
    terms: frozenset[int] = frozenset()  # placeholders that stand for glossary terms


def _mask_protected(text: str, spans: list[str]) -> str:
    def placeholder(m: re.Match) -> str:
        spans.append(m.group().rstrip(" .,"))
        trailing = m.group()[len(spans[-1]) :]
        return f"XPH{len(spans) - 1}X{trailing}"

    return _PROTECTED.sub(placeholder, text)


def mask(text: str, terms: Sequence[Match] = ()) -> Masked:
    """Replace glossary terms (their English goes back in) and protected spans (put back as
    they are) with placeholders XPH0X, XPH1X, … in order of appearance."""
    spans: list[str] = []
    term_ids: set[int] = set()
    parts, pos = [], 0
    for term in terms:
        parts.append(_mask_protected(text[pos : term.start], spans))
        term_ids.add(len(spans))
        parts.append(f"XPH{len(spans)}X")
        spans.append(term.en)
        pos = term.end
    parts.append(_mask_protected(text[pos:], spans))
    # Two placeholders in a row would read as one word (to jieba, to the model): space them.
    masked = _ADJACENT.sub(" ", "".join(parts))
    return Masked(masked, tuple(spans), frozenset(term_ids))


def _first_positions(text: str) -> dict[int, tuple[int, int]]:
    """Placeholder number → (start, end) of its first occurrence in `text`."""
    found: dict[int, tuple[int, int]] = {}
    for m in _PLACEHOLDER.finditer(text):
        found.setdefault(int(m.group(1)), m.span())
    return found


def _insertion_point(
    translation: str, anchors: list[tuple[int, int, int, int]], lost: tuple[int, int]
) -> int:
    """Where in `translation` the lost placeholder at `lost` (its span in the source) goes:
    between the kept placeholders that surround it in the source, at the same relative place,
    snapped to a word boundary. anchors: (source start, source end, output start, output end),
    sorted, from (0, 0, 0, 0) to the source's and the output's ends (before closing
    punctuation)."""
    after = next(k for k, a in enumerate(anchors) if a[0] >= lost[0])
    prev, nxt = anchors[max(after - 1, 0)], anchors[after]
    lo, hi = sorted((prev[3], nxt[2]))
    # the placeholder's own length is not text around it: last in the sentence is share 1
    room = nxt[0] - prev[1] - (lost[1] - lost[0])
    share = min(max((lost[0] - prev[1]) / max(room, 1), 0.0), 1.0)
    target = lo + share * (hi - lo)
    boundaries = [lo, hi, *(i for i in range(lo, hi) if translation[i] == " ")]
    return min(boundaries, key=lambda i: (abs(i - target), i))


def unmask(translation: str, masked: Masked) -> tuple[str, tuple[int, ...]]:
    """Put the protected spans and the terms' English back. A placeholder the model lost is
    put back where it most likely belongs (see _insertion_point), never dropped; returns the
    text and the numbers of the placeholders that had been lost."""
    spans = masked.spans
    kept = {i: at for i, at in _first_positions(translation).items() if i < len(spans)}
    lost = tuple(i for i in range(len(spans)) if i not in kept)
    if lost:
        source = _first_positions(masked.text)
        end = _SENTENCE_END.search(translation).start()  # before closing punctuation
        source_end = _SENTENCE_END.search(masked.text).start()
        anchors = sorted(
            [(0, 0, 0, 0), (source_end, source_end, end, end)]
            + [(*source[i], *kept[i]) for i in kept if i in source and kept[i][1] <= end]
        )
        points = [(_insertion_point(translation, anchors, source[i]), i) for i in lost]
        for point, i in sorted(points, reverse=True):
            rest = translation[point:]
            gap = "" if rest[:1] in ("", " ", *".,;:!?)") else " "  # no space before a comma
            translation = f"{translation[:point]} XPH{i}X{gap}{rest}"
    seen: set[int] = set()

    def restore(m: re.Match) -> str:
        i = int(m.group(1))
        if i < len(spans) and i not in seen:
            seen.add(i)
            return spans[i]
        return ""

    out = _PLACEHOLDER.sub(restore, translation)
    return re.sub(r"\s{2,}", " ", out).strip(), lost
