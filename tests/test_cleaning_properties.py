"""Properties of the cleaner on arbitrary text: it never raises, never overlaps, is idempotent."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.context import Context
from pipeline.prepare import clean_document
from tests.conftest import SEEDS, assert_edits_consistent, make_doc

# Text built from the pieces dirty pages are made of, plus arbitrary Unicode.
PIECES = st.sampled_from(
    [
        "發",
        "(fā)",
        "（",
        "）",
        "(",
        ")",
        "?",
        "??",
        "\n",
        " ",
        "，",
        "。",
        "谷歌",
        "模型",
        "haidaobuyujiuyou",
        "xiaomi",
        "【",
        "】",
        "返回搜狐，查看更多",
        "责任编辑：",
        "Çå½à",
        "ÐÐÒµ",
        "\u200b",
        "https://a.b/c?d=1",
        "5 m7 A  f. D( t' n/ L, K",
        "开奖结果",
        "(LLM)",
        "xún)",
        "e\u0301",
        "\ufeff",
        "1. ",
        "640?wx_fmt=png",
        "•",
    ]
)
DIRTY = st.lists(st.one_of(PIECES, st.text(max_size=5)), max_size=40).map("".join)


def check_edits(text: str) -> None:
    assert_edits_consistent(text, clean_document(make_doc(text), Context()))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(DIRTY)
def test_edits_are_inside_disjoint_and_lossless_on_dirty_text(text):
    check_edits(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_unicode_never_raises(text):
    check_edits(text)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(DIRTY)
def test_cleaning_is_idempotent(text):
    once = clean_document(make_doc(text), Context()).view.text
    twice = clean_document(make_doc(once), Context())
    assert twice.edits == (), [(e.stage, e.reason, e.text) for e in twice.edits]


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.stem)
def test_cleaning_clean_seed_output_removes_nothing(path):
    once = clean_document(make_doc(path.read_text(encoding="utf-8")), Context()).view.text
    again = clean_document(make_doc(once), Context())
    assert again.edits == (), [(e.stage, e.reason, e.text) for e in again.edits]


def test_a_letter_whose_lowercase_is_longer_does_not_shift_later_matches():
    # "İ".lower() is two characters; matching on str.lower() shifted every offset after it, so
    # the chrome below was missed (and a cut could land one character off).
    text = "İstanbul 的新闻。\n相关阅读\n（）\n返回搜狐，查看更多\n正文继续，这是一句真正的内容。"
    doc = clean_document(make_doc(text), Context())
    removed = {e.text.strip() for e in doc.edits}
    assert {"相关阅读", "返回搜狐，查看更多"} <= removed
    assert (
        "İstanbul 的新闻。" in doc.view.text and "正文继续，这是一句真正的内容。" in doc.view.text
    )
    assert_edits_consistent(text, doc)
