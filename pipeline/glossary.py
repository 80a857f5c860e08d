"""Glossaries: the user's fixed English for Chinese terms, and pinned Traditional → Simplified
conversions. Parsing, matching and conversion overrides live here, as pure functions; the
context reads the files, the `terms` stage records the matches of each sentence, the
translators (Marian, the gloss) put the English in place and the convert stage applies the
overrides before OpenCC.

File format (`--glossary FILE`, `glossary = [...]` in pipeline.toml), UTF-8, TSV or CSV (a
`.csv` file, or a file with no tab but commas):

    # comment
    zh<TAB>en<TAB>note            (a header line such as `zh<TAB>en` may come first)
    开源	open source
    GPT-4	GPT-4	product name, kept as is
    乾貴士	乾贵士	convert           (note `convert`: write 乾貴士 as 乾贵士, not OpenCC's 干贵士)

Columns after the third are ignored, so the run's `terms.tsv` is itself a glossary once its `en`
column is filled in. A term is matched on the Simplified text (terms may be written in either
script: they match as written and as converted), longest match first; a single Han character only
where jieba makes it a word of its own; a term with Latin letters, digits, `-`, `·` or spaces
matches on the text as a whole (jieba would split it), case-insensitively, never inside a
longer Latin word, and with or without a space where Latin meets Han (`Transformer 模型` also
matches `Transformer模型`).
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import PurePath

import ahocorasick

from pipeline.settings import SettingsError
from pipeline.text import HAN, HAN_RE

CONVERT = "convert"  # the note that makes a line a conversion override
BUILTIN = "glossary.txt"  # pipeline/data: the gloss's built-in glossary, same format
_HEADER_ZH = {"zh", "chinese", "term", "source", "中文", "术语"}
_HEADER_EN = {"en", "english", "target", "translation", "英文", "译文"}
# Same-length folding for matching: ASCII case, the middle-dot family, odd spaces.
_FOLD = str.maketrans(
    {
        **{c: c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
        "•": "·",
        "・": "·",
        "‧": "·",
        "∙": "·",
        "\t": " ",
        "\u3000": " ",
        "\xa0": " ",
    }
)
_ALNUM = re.compile(r"[A-Za-z0-9]")
_JUNCTION = re.compile(rf"(?<=[A-Za-z0-9])\s*(?=[{HAN}])|(?<=[{HAN}])\s*(?=[A-Za-z0-9])")

Words = Callable[[str], Sequence[str]]  # text → its jieba words (white space left out)


@dataclass(frozen=True)
class Term:
    zh: str
    en: str
    note: str = ""


@dataclass(frozen=True)
class Conversion:
    written: str  # as it appears in the input (usually Traditional)
    simplified: str  # what the Simplified text says instead of OpenCC's conversion


@dataclass(frozen=True, slots=True)
class Match:
    """A glossary term found in a sentence: the text matched, its English, and its offsets in
    the sentence's Simplified text (`zh`)."""

    zh: str
    en: str
    start: int
    end: int


@dataclass(frozen=True, eq=False)
class Glossary:
    """Terms and conversion overrides, merged from files in order (a later file wins).
    Equality and hash are by content digest, so matchers are cached per glossary cheaply."""

    terms: tuple[Term, ...] = ()
    conversions: tuple[Conversion, ...] = ()
    files: tuple[str, ...] = ()  # file names (not paths), for the record
    sha256: str = field(default="")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Glossary) and other.sha256 == self.sha256

    def __hash__(self) -> int:
        return hash(self.sha256)

    def describe(self) -> dict:
        """For the translator's description (the JSON record): which files, which content."""
        if not self.terms:
            return {}
        return {"glossary": {"files": list(self.files), "sha256": self.sha256[:16]}}


# -- reading -------------------------------------------------------------------------------


def _rows(path: str, text: str) -> list[tuple[int, list[str]]]:
    """(line number, columns) of every non-blank, non-comment line."""
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line.strip() and not line.lstrip().startswith("#")]
    as_csv = path.lower().endswith(".csv") or (
        not any("\t" in line for _, line in lines) and any("," in line for _, line in lines)
    )
    if as_csv:
        return [(n, next(csv.reader([line]), [])) for n, line in lines]
    return [(n, line.split("\t")) for n, line in lines]


def _clean(cell: str) -> str:
    return " ".join(cell.split())


def parse_glossary(path: str, text: str) -> Glossary:
    """One glossary file. Every problem is a SettingsError naming the file and line."""
    rows = _rows(path, text)
    if rows and len(rows[0][1]) >= 2:
        first, second = (_clean(c).lower() for c in rows[0][1][:2])
        if first in _HEADER_ZH and second in _HEADER_EN:
            rows = rows[1:]
    terms: dict[str, tuple[int, Term]] = {}
    conversions: dict[str, Conversion] = {}
    for n, columns in rows:
        where = f"{path}, line {n}"
        cells = [_clean(c) for c in columns]
        if len(cells) < 2:
            raise SettingsError(f"{where}: expected `zh<TAB>en[<TAB>note]`, found one column")
        zh, en, note = cells[0], cells[1], cells[2] if len(cells) > 2 else ""
        if not zh or not en:
            raise SettingsError(f"{where}: empty {'zh' if not zh else 'en'} column")
        if note.lower() == CONVERT:
            conversions[zh] = Conversion(zh, en)
            continue
        if HAN_RE.search(en):
            raise SettingsError(
                f"{where}: the English column holds Chinese ({en!r}); columns are zh, en, note "
                f"(a conversion override says `{CONVERT}` in the note column)"
            )
        if not re.search(r"[^\W\d_]", zh):
            raise SettingsError(f"{where}: the term {zh!r} has no letters or characters")
        if zh in terms and terms[zh][1].en != en:
            line, earlier = terms[zh]
            raise SettingsError(
                f"{where}: {zh} is given a second English ({en!r}; line {line}: {earlier.en!r})"
            )
        terms[zh] = (n, Term(zh, en, note))
    found = tuple(t for _, t in terms.values())
    return _build(found, tuple(conversions.values()), (PurePath(path).name,))


def _build(
    terms: tuple[Term, ...], conversions: tuple[Conversion, ...], files: tuple[str, ...]
) -> Glossary:
    pairs = [(t.zh, t.en) for t in terms], [(c.written, c.simplified) for c in conversions]
    content = repr(pairs)
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
    return Glossary(terms, conversions, files, digest)


def merge(glossaries: Sequence[Glossary]) -> Glossary:
    """One glossary from several; for a term or conversion given twice the later file wins,
    so a project glossary listed after a general one overrides it."""
    terms: dict[str, Term] = {}
    conversions: dict[str, Conversion] = {}
    for g in glossaries:
        terms.update((t.zh, t) for t in g.terms)
        conversions.update((c.written, c) for c in g.conversions)
    files = tuple(name for g in glossaries for name in g.files)
    return _build(tuple(terms.values()), tuple(conversions.values()), files)


@lru_cache(maxsize=8)
def load_glossary(files: tuple[tuple[str, str], ...]) -> Glossary:
    """The merged glossary of (path, text) pairs, parsed once per process."""
    return merge([parse_glossary(name, text) for name, text in files])


@lru_cache(maxsize=1)
def builtin_glossary() -> Glossary:
    """The gloss's built-in glossary of modern and technical terms (pipeline/data)."""
    text = resources.files("pipeline.data").joinpath(BUILTIN).read_text(encoding="utf-8")
    return parse_glossary(BUILTIN, text)


# -- conversion overrides ------------------------------------------------------------------


@lru_cache(maxsize=8)
def _conversion_pattern(conversions: tuple[Conversion, ...]) -> re.Pattern | None:
    if not conversions:
        return None
    written = sorted((c.written for c in conversions), key=len, reverse=True)  # longest first
    return re.compile("|".join(re.escape(w) for w in written))


def convert_with(
    text: str, conversions: tuple[Conversion, ...], convert: Callable[[str], str]
) -> str:
    """`convert(text)`, except that each pinned phrase becomes its pinned Simplified form; the
    text between them is converted as usual (one call when nothing is pinned)."""
    pattern = _conversion_pattern(conversions)
    if pattern is None or not pattern.search(text):
        return convert(text)
    pinned = {c.written: c.simplified for c in conversions}
    parts, pos = [], 0
    for m in pattern.finditer(text):
        parts += [convert(text[pos : m.start()]) if m.start() > pos else "", pinned[m.group()]]
        pos = m.end()
    parts.append(convert(text[pos:]) if pos < len(text) else "")
    return "".join(parts)


def simplified(text: str, glossary: Glossary) -> str:
    """`text` as the convert stage would write it."""
    from pipeline.stages.convert import to_simplified  # the stage owns OpenCC

    return convert_with(text, glossary.conversions, to_simplified)


# -- matching ------------------------------------------------------------------------------


def _keys(zh: str) -> set[str]:
    """The folded forms a term matches: as written, and with no space / one space wherever
    Latin meets Han."""
    folded = zh.translate(_FOLD)
    return {folded, _JUNCTION.sub("", folded), _JUNCTION.sub(" ", folded)}


@lru_cache(maxsize=8)
def _automaton(glossary: Glossary) -> ahocorasick.Automaton | None:
    if not glossary.terms:
        return None
    automaton = ahocorasick.Automaton()
    for i, term in enumerate(glossary.terms):
        # as written and as converted: a Traditional term matches the converted text, and a
        # Simplified one OpenCC would change (乾贵士 → 干贵士) still matches as written
        for key in _keys(term.zh) | _keys(simplified(term.zh, glossary)):
            automaton.add_word(key, (i, len(key)))
    automaton.make_automaton()
    return automaton


def _latin_edges_ok(text: str, start: int, end: int) -> bool:
    """A term that starts or ends with a Latin letter or digit never matches inside a longer
    Latin word (`GPT-4` in `GPT-40`)."""
    if _ALNUM.match(text[start]) and start > 0 and _ALNUM.match(text[start - 1]):
        return False
    return not (_ALNUM.match(text[end - 1]) and end < len(text) and _ALNUM.match(text[end]))


def word_spans(text: str, words: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) of each of `words` (jieba's, in order) in `text`; an empty span for a word
    not found (words from another text)."""
    spans, pos = [], 0
    for word in words:
        start = text.find(word, pos)
        if start < 0:
            spans.append((pos, pos))
            continue
        spans.append((start, start + len(word)))
        pos = start + len(word)
    return spans


def find_terms(
    text: str,
    glossary: Glossary,
    words: Words | None = None,
    taken: Sequence[Match] = (),
    whole_words: bool = False,
) -> tuple[Match, ...]:
    """The glossary terms in `text` (Simplified), in order, never overlapping each other or
    `taken`: the longest term wins, then the earliest. A single Han character counts only
    where it is a jieba word of its own (`words(text)`, asked only then); with `whole_words`
    every term must begin and end where jieba's words do (the built-in glossary, applied to
    text nobody chose it for: 后端 "back end" is not in 之后|端午)."""
    automaton = _automaton(glossary)
    if automaton is None or not text:
        return ()
    candidates = []
    for last, (i, length) in automaton.iter(text.translate(_FOLD)):
        start, end = last - length + 1, last + 1
        if _latin_edges_ok(text, start, end):
            candidates.append((start, end, i))
    if whole_words and candidates:
        spans = word_spans(text, words(text)) if words else []
        starts, ends = {a for a, _ in spans}, {b for _, b in spans}
        candidates = [c for c in candidates if c[0] in starts and c[1] in ends]
    single = [c for c in candidates if c[1] - c[0] == 1 and HAN_RE.match(text[c[0]])]
    if single:
        spans = set(word_spans(text, words(text))) if words else set()
        candidates = [c for c in candidates if c not in single or c[:2] in spans]
    chosen: list[tuple[int, int]] = [(m.start, m.end) for m in taken]
    found = []
    for start, end, i in sorted(candidates, key=lambda c: (c[0] - c[1], c[0])):
        if all(end <= a or start >= b for a, b in chosen):
            chosen.append((start, end))
            found.append(Match(text[start:end], glossary.terms[i].en, start, end))
    return tuple(sorted(found, key=lambda m: m.start))


class TermFinder:
    """What a translator needs of the glossary: the terms of a sentence, its description, and
    a cache key that changes exactly when the terms found in a sentence (or their English) do —
    so adding a glossary line re-translates only the sentences that contain it."""

    def __init__(self, glossary: Glossary | None = None, words: Words | None = None):
        self.glossary = glossary or Glossary()
        self._words = words

    def find(self, text: str) -> tuple[Match, ...]:
        return find_terms(text, self.glossary, self._words)

    def describe(self) -> dict:
        return self.glossary.describe()

    def cache_key(self, sentence: str) -> str:
        found = self.find(sentence)
        if not found:
            return sentence
        return sentence + "\x00" + "\x1f".join(f"{m.start}:{m.end}:{m.en}" for m in found)


def without_glossary(description: dict) -> dict:
    """A translator's description without its glossary entry: where the glossary is accounted
    for by content elsewhere (the fingerprint's file digests, the cache's per-sentence keys),
    its file names must not count."""
    return {k: v for k, v in description.items() if k != "glossary"}
