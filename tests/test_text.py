"""Shared text helpers: the matching form of text, Han counts, line lookups."""

from __future__ import annotations

import re

import opencc
from hypothesis import given
from hypothesis import strategies as st

from pipeline.text import HAN_RE, fold, han_count, lines, lines_matching, simplified_chars

_T2S = opencc.OpenCC("t2s")


def _fold_one(c: str) -> str:
    """The reference, one character at a time: Simplified if Han, else lowercase when that
    is a single character."""
    if HAN_RE.match(c):
        simple = _T2S.convert(c)
        return simple if len(simple) == 1 else c
    low = c.lower()
    return low if len(low) == 1 else c


_MIXED = st.text(
    alphabet=st.one_of(
        st.sampled_from("發展讓這個體ABCÄİẞΣ abc，。\n\t()"),
        st.characters(codec="utf-8"),
    ),
    max_size=80,
)


@given(_MIXED)
def test_fold_keeps_length_and_folds_each_character(text):
    folded = fold(text)
    assert len(folded) == len(text)
    assert folded == "".join(_fold_one(c) for c in text)


def test_fold_examples():
    assert fold("發展 ChatGPT 大模型") == "发展 chatgpt 大模型"
    assert fold("İstanbul") == "İstanbul"  # "i̇" would be two characters: offsets would shift
    assert simplified_chars("發展 ABC") == "发展 ABC"


@given(st.text(alphabet=st.sampled_from("中文abc 發\U00020000\uf900\u3400。"), min_size=1))
def test_han_count_long_and_short_agree_with_the_pattern(text):
    long_text = text * (5000 // len(text) + 1)  # past the vectorised threshold
    for t in (text, long_text):
        assert han_count(t) == len(HAN_RE.findall(t))


def test_lines_matching_finds_the_lines_with_a_hit():
    text = "第一行\nwww.example.com 第二行\n\n第四行 www.x.org"
    spans = list(lines(text))
    assert lines_matching(re.compile(r"www\."), text, spans) == {1, 3}
    assert lines_matching(re.compile("没有"), text, spans) == set()


_LINE_PARTS = ["a", "b", "ab", "?", "??", "相关阅读", "\n", " ", "文"]


@given(st.lists(st.sampled_from(_LINE_PARTS), max_size=40))
def test_lines_matching_is_a_search_of_each_line(parts):
    """It skips to the next line after a hit: the same lines as searching each line alone, for
    the patterns the stages give it (no newline, no look-behind)."""
    text = "".join(parts)
    spans = list(lines(text))
    for pattern in [re.compile(r"\?+"), re.compile("[a-z]{2,}"), re.compile("相关阅读|文")]:
        each = {i for i, (a, b) in enumerate(spans) if pattern.search(text[a:b])}
        assert lines_matching(pattern, text, spans) == each
