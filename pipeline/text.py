"""Small shared facts about Chinese web text: character classes, lines, pinyin syllables,
and a length-preserving Traditional→Simplified map for matching (not for output)."""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache
from importlib import util
from itertools import accumulate
from operator import add
from pathlib import Path

import numpy as np

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN_RE = re.compile(f"[{HAN}]")
# `---|---|---`, `| :--- | ---: |`: the separator row of a Markdown table (outer pipes optional)
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")
# `第3章`, `第十二回`, `- 第 2 节`: a chapter heading (web fiction, manuals) is a page's own title
CHAPTER_HEADING = re.compile(
    r"^[^\S\n]*(?:[-•·*][^\S\n]*)?第[^\S\n]*[0-9一二三四五六七八九十百零〇]+[^\S\n]*[章节節篇回卷]",
    re.M,
)
# `作者：王明`, `• 记者：李华 张强`, `文/MenClub 艾力克`, `来源：原创`, `Posted on 11 May 2021`: a
# byline names who wrote the page and is content (79 such lines of the labeled corpus are
# content, 4 junk), however chrome-like its shortness and its words look.
BYLINE = re.compile(
    r"[-•·*\s]*(?:(?:作者|作\s*者|文|记者|撰文|来源|出处)\s*[:：/｜|]|posted on|发表于|发布于)"
    r"\s*[^\s:：]{1,16}(?:\s[^\s:：]{1,12}){0,2}\s*"
)
# A line that is only a date or time (`2023-12-01`, `發布時間：2020年3月5日 10:20`). The one such
# line of a page is its date: content (corpus, 616 pages: 41 content, 4 junk); where several
# are, they are the dates of a list (40 junk, 12 content), left to the model,
# except a column of them with no item between (pipeline/stages/boilerplate.py).
DATE_LINE = re.compile(
    r"^[\s•·*-]*(?:(?:发布|發布|发表|發表|更新|出版)?(?:时间|時間|日期)?\s*[：:]\s*)?"
    r"\d{2,4}\s*[-/.年]\s*\d{1,2}(?:\s*[-/.月]\s*\d{1,2}\s*日?)?(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?\s*$"
)
_TABLE_ROW = re.compile(r"\S.*\|.*\S|^\s*\|")  # GFM: outer pipes optional
_WEB_ADDRESS = r"(?:https?://|www\.)[^\s\u3000-\u303f\uff01-\uff5e" + HAN + r"“”‘’]+"
# An address starts where a run of address characters starts: without the look-behind
# every character of a long run of Han characters (\w too) would restart the match.
_EMAIL = r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
URL_RE = re.compile(_WEB_ADDRESS + "|" + _EMAIL, re.I)
_WEB_RE = re.compile(_WEB_ADDRESS, re.I)
_EMAIL_RE = re.compile(_EMAIL, re.I)
_ADDRESS_RUN = re.compile(r"[\w.+-]+")  # an e-mail's local part, read backwards from its `@`
_LOCAL_REACH = 256  # characters read back from an `@`
# Interjection readings (嗯 n, 呣 m, 哼 hng…) would let almost any letter string parse as pinyin.
_NOT_SYLLABLES = frozenset({"n", "ng", "m", "hm", "hng", "r"})


def _framed_row(row: str) -> bool:
    """`| 五花肉 | 500克 | 三层五花 |`: a table row with its outer pipes and two or more cells
    that say something (a menu's `| |||` has empty cells)."""
    row = row.strip()
    if len(row) < 3 or row[0] != "|" or row[-1] != "|":
        return False
    return sum(1 for cell in row[1:-1].split("|") if cell.strip()) >= 2


# A table printed one cell per line leaves its `|` delimiters on lines of their own, between
# cells; a menu printed one item per line leaves its `|` separators between items. Cells hold
# numbers (`330`, `2019 |`), menu items words: a lone `|` with a bare number among the three
# non-blank lines on either side is a table's (labeled corpus: 20 such lines, all content; the
# 137 lone `|` without, all junk).
LONE_PIPE = re.compile(r"\s*[|｜]\s*")
_NUMBER_CELL = re.compile(r"\s*[|｜]?\s*[\d.,%]+\s*[|｜]?\s*")
_CELL_WINDOW = 3  # non-blank lines on either side
_CELL_MAX = 12  # characters of a cell


def _cell_table_lines(rows: list[str]) -> set[int]:
    """Lines of tables printed one cell per line: each chain of lone `|` delimiters with a
    number nearby (each within _CELL_WINDOW non-blank lines of the next), the lines between
    them, and the short cell just before the first and just after the last."""
    # a lone delimiter has a `|`: the pattern is tried on those lines only (a page has tens
    # of thousands of lines and a handful of pipes)
    lone = [
        i for i, row in enumerate(rows) if ("|" in row or "｜" in row) and LONE_PIPE.fullmatch(row)
    ]
    if not lone:  # no delimiter: no such table
        return set()
    nonblank = [i for i, row in enumerate(rows) if row.strip()]
    delimiters = []
    for i in lone:
        k = bisect.bisect_left(nonblank, i)  # a lone delimiter is a non-blank line
        window = nonblank[max(0, k - _CELL_WINDOW) : k + _CELL_WINDOW + 1]
        if any(_NUMBER_CELL.fullmatch(rows[j]) for j in window if j != i):
            delimiters.append(k)
    out: set[int] = set()
    start = 0
    while start < len(delimiters):
        end = start
        reach = _CELL_WINDOW + 1  # the next delimiter at most this many non-blank lines on
        while end + 1 < len(delimiters) and delimiters[end + 1] - delimiters[end] <= reach:
            end += 1
        first, last = delimiters[start], delimiters[end]
        if first > 0 and len(rows[nonblank[first - 1]].strip()) <= _CELL_MAX:
            first -= 1
        if last + 1 < len(nonblank) and len(rows[nonblank[last + 1]].strip()) <= _CELL_MAX:
            last += 1
        out.update(nonblank[first : last + 1])
        start = end + 1
    return out


def table_lines(rows: list[str]) -> set[int]:
    """Lines of Markdown tables: content, however menu-like their short cells look to the
    classifier or to the boilerplate stage's menu rule. A table is a run of rows with `|`
    between cells, outer pipes optional as in GitHub's tables, with a `---|---` rule; or,
    where the scraper dropped the rule, a run of three or more rows framed by outer pipes,
    each with two or more filled cells (no menu of the labeled corpus looks like that); or a
    table printed one cell per line, its `|` delimiters on lines of their own."""
    protected: set[int] = set()
    # Every table row and rule has a `|`: a run can start only on such a line (a page has
    # tens of thousands of lines and a handful of pipes; trying both patterns on every line
    # was most of this function).
    resume = 0
    for i in (k for k, row in enumerate(rows) if "|" in row):
        if i < resume:
            continue
        j = i
        while j < len(rows) and (_TABLE_ROW.match(rows[j]) or TABLE_RULE.match(rows[j])):
            j += 1
        if j - i >= 2 and any(TABLE_RULE.match(rows[k]) for k in range(i, j)):
            protected.update(range(i, j))
        else:
            framed = [k for k in range(i, j) if _framed_row(rows[k])]
            if len(framed) >= 3 and len(framed) == j - i:
                protected.update(framed)
        resume = max(j, i + 1)
    return protected | _cell_table_lines(rows)


def lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line of `text`, without the newline (a new list each time).

    The cleaning stages ask for the lines of the document's text one after another, and a
    stage that changes nothing hands the next one the very same text object: half of the
    calls on the bench corpus. The last text's lines are kept for that (a page has tens of
    thousands of lines; copying the list is a hundredth of making it)."""
    global _last_lines
    last, spans = _last_lines
    if text is not last:
        spans = _line_spans(text)
        _last_lines = (text, spans)
    return spans.copy()


def _line_spans(text: str) -> list[tuple[int, int]]:
    # C iterators over the lines' lengths: a Python step per line was most of it
    lengths = list(map(len, text.split("\n")))
    starts = list(accumulate(map((1).__add__, lengths[:-1]), initial=0))
    return list(zip(starts, map(add, starts, lengths), strict=True))


_last_lines: tuple[str, list[tuple[int, int]]] = ("", [(0, 0)])


def lines_matching(pattern: re.Pattern, text: str, spans: list[tuple[int, int]]) -> set[int]:
    """Indexes of the lines (`spans`, as from `lines`) in which `pattern` finds a match:
    one scan of the whole text instead of one search per line. `pattern` never matches a
    newline nor looks behind: then a line found, the search goes on at the next line (a line
    can have hundreds of matches, pinyin runs or `?`), as a search of each line alone would."""
    starts = [a for a, _ in spans]
    found = set()
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        i = bisect.bisect_right(starts, m.start()) - 1
        found.add(i)
        if i + 1 == len(starts):
            break
        pos = starts[i + 1]
    return found


def strip_span(text: str, a: int, b: int) -> tuple[int, int]:
    """[a, b) narrowed to exclude white space at both ends."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def nonblank_lines(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(index, start, end) of each line of `spans` with anything but white space, stripped:
    the lines in the order a reader sees them, blank lines skipped."""
    stripped = ((i, *strip_span(text, a, b)) for i, (a, b) in enumerate(spans))
    return [(i, a, b) for i, a, b in stripped if a < b]


def has_han(text: str) -> bool:
    return HAN_RE.search(text) is not None


def han_count(text: str) -> int:
    if len(text) > 4096:  # a whole page: count vectorised
        return int(_is_han()[_code_points(text)].sum())
    # Not len(findall()): on a long text that list of one-character strings costs gigabytes.
    return len(text) - len(HAN_RE.sub("", text))


@lru_cache(maxsize=1)
def _is_han() -> np.ndarray:
    table = np.zeros(0x110000, dtype=bool)
    for lo, hi in re.findall(r"(.)-(.)", HAN):
        table[ord(lo) : ord(hi) + 1] = True
    return table


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


class Spans:
    """Sorted, non-overlapping spans with a logarithmic membership test."""

    def __init__(self, spans: list[tuple[int, int]]):
        self._starts = [a for a, _ in spans]
        self._ends = [b for _, b in spans]

    def __contains__(self, index: int) -> bool:
        i = bisect.bisect_right(self._starts, index) - 1
        return i >= 0 and index < self._ends[i]


def url_spans(text: str) -> Spans:
    """Where the URLs and e-mail addresses of `text` are."""
    return Spans(url_matches(text))


def url_matches(text: str) -> list[tuple[int, int]]:
    """The spans of URL_RE's matches in `text`, found faster.

    URL_RE's e-mail branch has no first character the engine can skip to, so a page was tried
    at every character. Here the web addresses come from their own pattern (which leads with
    `h` or `w`) and the e-mail addresses from each `@`: its local part is the run of address
    characters before it (the look-behind), read backwards, and the e-mail branch is matched
    there. A match does not depend on where the scan stands, so when no two of these spans
    overlap they are exactly the matches the scan of URL_RE picks; when some do (an address
    inside a URL, two sharing characters), URL_RE itself decides."""
    web = [m.span() for m in _WEB_RE.finditer(text)]
    if "@" not in text:
        return web
    emails = []
    at = text.find("@")
    while at >= 0:
        lo = max(0, at - _LOCAL_REACH)
        run = _ADDRESS_RUN.match(text[lo:at][::-1])
        if run is not None:
            if run.end() == at - lo and lo > 0:  # a longer run than was read
                return _url_scan(text)
            m = _EMAIL_RE.match(text, at - run.end())
            if m is not None:
                emails.append(m.span())
        at = text.find("@", at + 1)
    spans = sorted(web + emails)
    if any(b > a for (_, b), (a, _) in zip(spans, spans[1:], strict=False)):
        return _url_scan(text)
    return spans


def _url_scan(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in URL_RE.finditer(text)]


@lru_cache(maxsize=65536)
def plain_syllable(reading: str) -> str:
    """`Zhù`, `zhu4`, `lǜ`, `lv` → `zhu`, `zhu`, `lu`, `lu`: a comparable toneless form."""
    s = unicodedata.normalize("NFD", reading.lower())
    s = "".join(c for c in s if not unicodedata.combining(c) and not c.isdigit())
    return s.replace("ü", "u").replace("v", "u")


@lru_cache(maxsize=1)
def pinyin_table() -> dict[int, str]:
    """pypinyin's character readings (code point → "zhōng,zhòng"). The data module alone:
    importing it through the package runs pypinyin's __init__, which builds its phrase
    segmenter, about 0.4 s of every run's start for tables the stages never use."""
    package = util.find_spec("pypinyin")
    assert package is not None and package.origin is not None
    path = Path(package.origin).parent / "pinyin_dict.py"
    spec = util.spec_from_file_location("pipeline._pinyin_dict", path)
    assert spec is not None and spec.loader is not None
    module = util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.pinyin_dict


@lru_cache(maxsize=1)
def pinyin_syllables() -> frozenset[str]:
    """Every toneless pinyin syllable (ü written u), from pypinyin's character data."""
    syllables = {
        plain_syllable(r) for readings in pinyin_table().values() for r in readings.split(",")
    }
    return frozenset(s for s in syllables if s.isalpha() and s.isascii()) - _NOT_SYLLABLES


@lru_cache(maxsize=1)
def _simplified_pairs() -> list[tuple[int, int]]:
    """(Traditional, Simplified) code points: each Han character's own Simplified form (OpenCC
    t2s, one character at a time; multi-character results are left out)."""
    import opencc

    chars = [chr(c) for c in range(0x3400, 0xFB00) if HAN_RE.match(chr(c))]
    # one character per line: phrase rules never span a line, so each converts alone
    converted = opencc.OpenCC("t2s").convert("\n".join(chars)).split("\n")
    return [
        (ord(trad), ord(simp))
        for trad, simp in zip(chars, converted, strict=True)
        if simp != trad and len(simp) == 1
    ]


@lru_cache(maxsize=2)
def _char_table(lowercase: bool) -> np.ndarray:
    """A code point → code point map over all of Unicode."""
    table = np.arange(0x110000, dtype=np.uint32)
    if lowercase:
        # Only one-to-one case mappings: `İ`.lower() is two characters and would shift offsets.
        # Nothing above U+1FFFF has case. (C iterators and numpy: a Python loop over the
        # 131,072 code points was a twentieth of a second of every run's start.)
        count = 0x20000
        lowered = list(map(str.lower, map(chr, range(count))))
        lengths = np.fromiter(map(len, lowered), np.int64, count)
        first = _code_points("".join(lowered))[np.cumsum(lengths) - lengths]
        one_to_one = lengths == 1
        table[:count][one_to_one] = first[one_to_one]
    for trad, simp in _simplified_pairs():
        table[trad] = simp
    return table


def _map_chars(text: str, table: np.ndarray) -> str:
    # Vectorised over code points: ~5× faster than str.translate on long pages.
    return table[_code_points(text)].tobytes().decode("utf-32-le", "surrogatepass")


def simplified_chars(text: str) -> str:
    """Character-by-character Traditional→Simplified; same length, so offsets stay valid."""
    return _map_chars(text, _char_table(lowercase=False))


def fold(text: str) -> str:
    """The form patterns are matched against: character-level Simplified and lowercase, with
    the same length as `text`, so a match's offsets are offsets into `text`."""
    return _map_chars(text, _char_table(lowercase=True))
