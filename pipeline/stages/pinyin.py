"""pinyin: drop reading annotations that mirror sites paste after characters.

`發(fā)展`, `讓(rang)大(da)`, `電(dian)(dian)` lose their parenthesised readings; a group counts
as an annotation only when its syllable is one of the preceding character's readings (any
reading: mirrors often pick the wrong one), tones and case optional, ü written ü, v or u.
Everything else in parentheses stays: `(LLM)`, `（1）`, `(或智能体)`, `f(x)`, `:)`, `()`.
Fragments of broken annotations (`?qū)ο?`, a stray `xún)`) are removed when they clearly are a
pinyin syllable plus an unmatched closing bracket.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache
from operator import attrgetter, itemgetter

import numpy as np

from pipeline.context import Context
from pipeline.document import Change, Document, change_of_fields
from pipeline.registry import stage
from pipeline.text import HAN, HAN_RE, lines, pinyin_syllables, pinyin_table, plain_syllable

STAGE = "pinyin"
_start, _end = attrgetter("start"), attrgetter("end")
READING = "reading"  # edit kind of a whole annotation; fragments are listed one by one

_READING = r"[A-Za-z\u00c0-\u024f\u0300-\u036f]{1,7}[1-5]?"
_GROUP = re.compile(rf"[(（][^\S\n]?({_READING})[^\S\n]?[)）]")
_GROUP_TAIL = rf"[^\S\n]?{_READING}[^\S\n]?[)）]"
# Bracketed readings right after a Han character (the match starts at the first bracket). The
# bracket leads: the engine skips to the next bracket at C speed, where a leading Han class
# would be tried at nearly every character of a page.
_ANNOTATED = re.compile(rf"[(（](?<=[{HAN}][(（]){_GROUP_TAIL}(?:[(（]{_GROUP_TAIL})*")
_TONED = "āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜ"
_BROKEN = re.compile(
    rf"(\?*)([a-z{_TONED}ü]{{1,6}})[)）](?:[^\x00-\x7f\u3000-\u303f\uff00-\uffef{HAN}]\?)?"
)


@lru_cache(maxsize=65536)
def readings(char: str) -> frozenset[str]:
    """Toneless readings of a character (ü as u), from pypinyin's data."""
    return frozenset(plain_syllable(r) for r in pinyin_table().get(ord(char), "").split(",") if r)


@lru_cache(maxsize=1 << 17)
def _annotation(annotated: str) -> tuple[int, str] | None:
    """For a character and the bracketed readings after it (`發(fā)`, `電(dian)(dian)`): how
    much of the readings is annotation, and the reason (one string per character, shared by
    all its annotations); None if none is. Remembered: a page repeats the same few thousand."""
    char, groups = annotated[0], annotated[1:]
    valid = readings(char)
    length = 0
    for group in _GROUP.finditer(groups):
        if plain_syllable(group.group(1)) not in valid:
            break
        length = group.end()
    return (length, f"reading of {char}") if length else None


def _annotation_changes(text: str) -> list[Change]:
    # A page has a hundred thousand annotations: each step a C loop (map, the cached
    # _annotation, change_of_fields).
    spans = [m.span() for m in _ANNOTATED.finditer(text)]
    found = map(_annotation, [text[a - 1 : b] for a, b in spans])
    changes = [
        change_of_fields((a, a + f[0], f[1], "", READING))
        for (a, _), f in zip(spans, found, strict=True)
        if f
    ]
    taken = {c.start for c in changes}
    words = []
    # The bracket first (rare), then the characters before it: a pattern that led with the
    # Han run would be tried at every character of the text.
    for m in _WORD_READING.finditer(text):
        if m.start() in taken or m.start() < 2 or not HAN_RE.match(text, m.start() - 1):
            continue
        run = _HAN_RUN_BEFORE.search(text, max(0, m.start() - _MAX_WORD), m.start())
        if run and (word := _annotated_word(run.group(), m.group(1))):
            words.append(Change(m.start(), m.end(), f"reading of {word}", "", READING))
    # both lists are in text order: sort only when there is something to merge
    return sorted(changes + words, key=attrgetter("start")) if words else changes


# A reading after a whole word: `发展(fāzhǎn)`, `发展（fā zhǎn）`, `银行(yín háng)`.
_MAX_WORD = 8
_LETTERS = r"[A-Za-z\u00c0-\u024f\u0300-\u036f1-5]+"
# letters, then words of letters after single spaces: one way to match, no backtracking
_WORD_READING = re.compile(rf"[(（][^\S\n]?({_LETTERS}(?:[^\S\n]{_LETTERS}){{0,7}})[^\S\n]?[)）]")
_HAN_RUN_BEFORE = re.compile(rf"[{HAN}]{{2,{_MAX_WORD}}}$")


@lru_cache(maxsize=65536)
def _annotated_word(chars: str, group: str) -> str | None:
    """The last characters of `chars` (two or more) whose readings, in order, spell `group`
    exactly; None when no such word ends the run."""
    spelled = plain_syllable(group.replace(" ", "").replace("\t", ""))
    if not spelled.isascii() or not spelled.isalpha():
        return None
    for size in range(2, len(chars) + 1):
        word = chars[-size:]
        if _spells(word, spelled):
            return word
    return None


def _spells(word: str, spelled: str) -> bool:
    """Do readings of `word`'s characters, one after another, make exactly `spelled`?"""
    ends = {0}
    for char in word:
        ends = {e + len(r) for e in ends for r in readings(char) if spelled.startswith(r, e)}
        if not ends:
            return False
    return len(spelled) in ends


def _unmatched_closers(line: str, skip: list[tuple[int, int]]) -> set[int]:
    skipped = bytearray(len(line))
    for a, b in skip:
        skipped[a:b] = b"\x01" * (b - a)
    depth = 0
    unmatched = set()
    for i, ch in enumerate(line):
        if skipped[i]:
            continue
        if ch in "(（":
            depth += 1
        elif ch in ")）":
            if depth:
                depth -= 1
            else:
                unmatched.add(i)
    return unmatched


def _broken_changes(line: str, offset: int, annotations: list[Change]) -> list[Change]:
    closers_of_annotations = {c.end - offset - 1 for c in annotations}
    candidates = []
    for m in _BROKEN.finditer(line):
        if m.end(2) in closers_of_annotations:
            continue  # the closing bracket of a well-formed annotation
        if plain_syllable(m.group(2)) not in pinyin_syllables():
            continue
        before = line[m.start() - 1] if m.start() > 0 else ""
        if before.isascii() and before.isalnum():
            continue  # part of a longer Latin word or a list marker like `a)`
        toned = any(c in _TONED for c in m.group(2))
        after_lost = bool(m.group(1))
        after_han = bool(before) and HAN_RE.match(before) is not None
        if toned or after_lost or (after_han and len(m.group(2)) >= 2):
            candidates.append(m)
    if not candidates:
        return []
    # Only a bracket nobody opened is a fragment: `(xún)` in prose stays, `xún)` goes.
    unmatched = _unmatched_closers(line, [(c.start - offset, c.end - offset) for c in annotations])
    return [
        Change(offset + m.start(), offset + m.end(), "broken annotation")
        for m in candidates
        if m.end(2) in unmatched
    ]


@stage(STAGE, order=20, removes=True, counted_kinds=(READING,))
def pinyin(doc: Document, ctx: Context) -> Document:
    """Pinyin readings pasted after characters (`發(fā)展`); legitimate parentheses stay."""
    text = doc.view.text
    # An annotation never spans a line, so one scan of the whole text finds what a scan of each
    # line would.
    annotations = _annotation_changes(text)
    changes = list(annotations)
    starts = [c.start for c in annotations]
    spans = list(lines(text))
    for i in _lines_with_loose_closers(text, spans, annotations):
        start, end = spans[i]
        own = annotations[bisect.bisect_left(starts, start) : bisect.bisect_left(starts, end)]
        changes += _broken_changes(text[start:end], start, own)
    return doc.apply(STAGE, changes)


def _lines_with_loose_closers(
    text: str, spans: list[tuple[int, int]], annotations: list[Change]
) -> list[int]:
    """The lines with a closing bracket outside every annotation: only such a bracket can be
    left unmatched once the annotations are skipped, so only there can a fragment be (a page
    has tens of thousands of annotated lines, vectorised here instead of scanned one by one)."""
    cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    closers = np.flatnonzero((cp == ord(")")) | (cp == ord("）")))
    if len(annotations) and len(closers):
        starts = np.fromiter(map(_start, annotations), np.int64, len(annotations))
        ends = np.fromiter(map(_end, annotations), np.int64, len(annotations))
        # annotations are sorted: of those starting at or before a closer, the furthest end
        reach = np.maximum.accumulate(ends)
        last = np.searchsorted(starts, closers, side="right") - 1
        inside = (last >= 0) & (reach[np.maximum(last, 0)] > closers)
        closers = closers[~inside]
    line_starts = np.fromiter(map(itemgetter(0), spans), np.int64, len(spans))
    return np.unique(np.searchsorted(line_starts, closers, side="right") - 1).tolist()
