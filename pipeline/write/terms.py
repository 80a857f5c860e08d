"""`output/terms.tsv` and the Terms section of `index.md`: the recurring terms of a run and the
English each was given, so a user sees inconsistencies and turns them into glossary lines.

A term is a multi-character jieba word of Han characters (not in `data/term_stoplist.txt`), or
a glossary term; it is listed when it occurs in at least MIN_DOCUMENTS documents or at least
MIN_OCCURRENCES times. Its English: the glossary's, when it has one (put in place every time);
otherwise the renderings found in the English of the sentences that contain it, recognised by
the term's CC-CEDICT senses and the built-in glossary (a translation has no word alignment:
a sentence whose English uses none of them counts as "other"). Two or more renderings make the
term `inconsistent`.

Built from the documents' JSON files after the run, so documents skipped as unchanged count
too. Two passes over them: counting, then renderings of the listed terms only, so memory stays
small on big runs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from pipeline.data import data_lines
from pipeline.glossary import builtin_glossary, word_spans
from pipeline.text import HAN
from pipeline.write.documents import IndexDocument, IndexSentence
from pipeline.write.escape import escape_inline
from pipeline.write.files import write_atomic

MIN_DOCUMENTS = 2
MIN_OCCURRENCES = 5
INDEX_ROWS = 40  # the index shows the inconsistent terms, then the most frequent, up to this
OTHER = "other"  # a sentence whose English shows none of the term's known renderings
COLUMNS = ("zh", "en", "count", "documents", "status", "renderings")
_TERM = re.compile(f"[{HAN}]{{2,}}")


@dataclass
class TermRow:
    zh: str
    count: int = 0
    documents: set[str] = field(default_factory=set)
    glossary: str | None = None  # the glossary's English
    renderings: Counter[str] = field(default_factory=Counter)  # per sentence

    @property
    def status(self) -> str:
        if self.glossary:
            return "glossary"
        known = [r for r in self.renderings if r != OTHER]
        if len(known) > 1:
            return "inconsistent"
        if known:
            return "consistent"
        return "unrecognised" if self.renderings else "untranslated"

    @property
    def en(self) -> str:
        """The glossary's English, else the most frequent rendering: what a glossary line
        made from this row would pin."""
        if self.glossary:
            return self.glossary
        known = [(n, r) for r, n in self.renderings.items() if r != OTHER]
        return min(known, key=lambda k: (-k[0], k[1]))[1] if known else ""

    def rendering_text(self) -> str:
        ranked = sorted(self.renderings.items(), key=lambda k: (k[0] == OTHER, -k[1], k[0]))
        return "; ".join(f"{r} ×{n}" for r, n in ranked)


def _name(data: IndexDocument, n: int) -> str:
    return data.source.path if data.source and data.source.path is not None else str(n)


def _sentences(documents: list[IndexDocument]) -> Iterator[IndexSentence]:
    for data in documents:
        for b in data.blocks or ():
            yield from b.sentences or ()


def _occurrences(s: IndexSentence) -> Iterator[tuple[str, str | None, int]]:
    """(term, glossary English or None, offset in zh) for every term in a JSON sentence."""
    terms = s.terms or ()
    for t in terms:
        if len(t.zh) > 1:
            yield t.zh, t.en, t.start
    covered = [(t.start, t.end) for t in terms]
    for (a, b), word in zip(word_spans(s.zh, s.tokens), s.tokens, strict=True):
        if _TERM.fullmatch(word) and not any(a < end and b > start for start, end in covered):
            yield word, None, a


def _renderer(terms: set[str]) -> Callable[[str, str, float], str]:
    """(term, sentence English, the term's relative place in the sentence) → the rendering
    found: of the term's known senses present in the English, the one nearest the term's
    place (another word of the sentence may use a sense too: 预训练 "pre-training" beside
    训练), the longer on a tie."""
    from pipeline.translate.gloss import senses

    known = senses(terms)
    for t in builtin_glossary().terms:
        if t.zh in terms:
            known.setdefault(t.zh, []).append(t.en)
    patterns = {
        term: [
            (sense, re.compile(rf"(?<!\w){re.escape(sense)}(?:e?s)?(?!\w)", re.I))
            for sense in sorted(set(options), key=len, reverse=True)
        ]
        for term, options in known.items()
    }

    def rendering(term: str, english: str, place: float) -> str:
        found = [
            (abs(m.start() / max(len(english), 1) - place), -len(sense), sense)
            for sense, pattern in patterns.get(term, ())
            for m in pattern.finditer(english)
        ]
        return min(found)[2] if found else OTHER

    return rendering


def term_table(documents: list[IndexDocument]) -> list[TermRow]:
    """The recurring terms of `documents` (what the index reads of their JSON), most frequent
    first."""
    stop = set(data_lines("term_stoplist.txt"))
    rows: dict[str, TermRow] = {}

    def count(term: str, english: str | None, name: str, times: int = 1) -> None:
        row = rows.get(term)
        if row is None:
            row = rows[term] = TermRow(term)
        row.count += times
        row.documents.add(name)
        row.glossary = row.glossary or english

    for n, data in enumerate(documents):
        name = _name(data, n)
        # A sentence without glossary terms has only jieba words, found anywhere: count the
        # document's words at once (C) and look at each distinct word once, not every
        # occurrence (a folder holds millions).
        plain: list[list[str]] = []
        for b in data.blocks or ():
            for s in b.sentences or ():
                if s.terms:
                    for term, english, _ in _occurrences(s):
                        if term not in stop:
                            count(term, english, name)
                else:
                    plain.append(s.tokens)
        words = Counter(chain.from_iterable(plain))
        for word, times in words.items():
            if word not in stop and _TERM.fullmatch(word):
                count(word, None, name, times)
    listed = {
        zh: row
        for zh, row in rows.items()
        if len(row.documents) >= MIN_DOCUMENTS or row.count >= MIN_OCCURRENCES
    }
    rendering = None  # built on the first English: a run without translation loads no dictionary
    for s in _sentences(documents):
        if s.en is None:
            continue
        rendering = rendering or _renderer({zh for zh, r in listed.items() if not r.glossary})
        places = {term: at for term, _, at in reversed(list(_occurrences(s)))}  # first ones
        for term in places.keys() & listed.keys():
            row = listed[term]
            place = places[term] / max(len(s.zh), 1)
            row.renderings[row.glossary or rendering(term, s.en, place)] += 1
    return sorted(listed.values(), key=lambda r: (-r.count, r.zh))


def render_tsv(rows: list[TermRow]) -> str:
    """The first two columns make a glossary line (zh, en); the rest are ignored when the file
    is read back as a glossary."""
    lines = ["\t".join(COLUMNS)]
    for r in rows:
        cells = (r.zh, r.en, str(r.count), str(len(r.documents)), r.status, r.rendering_text())
        lines.append("\t".join(c.replace("\t", " ") for c in cells))
    return "\n".join(lines) + "\n"


def render_section(rows: list[TermRow]) -> str:
    """The Terms section of index.md: inconsistent terms first, then the most frequent."""
    if not rows:
        return ""
    inconsistent = [r for r in rows if r.status == "inconsistent"]
    shown = (inconsistent + [r for r in rows if r.status != "inconsistent"])[:INDEX_ROWS]
    names = ", ".join(escape_inline(r.zh) for r in inconsistent) or "none"
    lines = [
        "## Terms",
        "",
        f"{len(rows)} recurring term(s) (in ≥ {MIN_DOCUMENTS} documents or ≥ "
        f"{MIN_OCCURRENCES} times); given more than one English: {names}. "
        f"All of them, as glossary lines to edit: [terms.tsv](terms.tsv).",
        "",
        "| Term | English | Count | Documents | Status | Renderings (sentences) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in shown:
        cells = (r.zh, r.en, r.count, len(r.documents), r.status, r.rendering_text())
        lines.append("| " + " | ".join(escape_inline(str(c)) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def write_term_table(out_dir: Path, documents: list[IndexDocument]) -> str:
    """Write `terms.tsv` for `documents` (what the index reads of their JSON); return the
    index's Terms section."""
    rows = term_table(documents)
    write_atomic(out_dir / "terms.tsv", render_tsv(rows))
    return render_section(rows)
