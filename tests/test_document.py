"""The document model: the original is never touched; edits map kept text back exactly."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.document import Block, Change, Sentence, evolve
from tests.conftest import assert_edits_consistent, make_doc


def test_kept_text_and_offsets_round_trip():
    doc = make_doc("發(fā)展很快")
    doc = doc.apply("pinyin", [Change(1, 5, "reading of 發")])
    assert doc.original == "發(fā)展很快"
    assert doc.view.text == "發展很快"
    # every kept character maps to itself in the original
    for i, ch in enumerate(doc.view.text):
        start, end = doc.view.origin(i)
        assert doc.original[start:end] == ch
    assert doc.view.to_original(0, 2) == (0, 6)
    assert doc.kept_text(0, 6) == "發展"


def test_overlapping_removals_merge_into_one():
    doc = make_doc("abcdefghij")
    doc = doc.apply("spam", [Change(2, 5, "x"), Change(4, 7, "y")])
    assert [(e.start, e.end, e.text) for e in doc.edits] == [(2, 7, "cdefg")]


def test_adjacent_removals_of_one_stage_merge():
    doc = make_doc("abcdefghij")
    doc = doc.apply("spam", [Change(2, 4, "x"), Change(4, 6, "x")])
    assert [(e.start, e.end) for e in doc.edits] == [(2, 6)]
    assert doc.edits[0].reason == "x"


def test_later_removal_absorbs_earlier_ones_inside_it():
    doc = make_doc("返(fan)回搜狐，查看更多")
    doc = doc.apply("pinyin", [Change(1, 6, "reading of 返")])
    assert doc.view.text == "返回搜狐，查看更多"
    doc = doc.apply("boilerplate", [Change(0, len(doc.view.text), "footer")])
    assert len(doc.edits) == 1
    assert doc.edits[0].text == doc.original
    assert doc.view.text == ""


def test_repair_replaces_text_and_maps_back_to_its_span():
    doc = make_doc("ab ÖÐÎÄ cd")
    doc = doc.apply("normalize", [Change(3, 7, "mojibake", "中文")])
    assert doc.view.text == "ab 中文 cd"
    assert doc.view.to_original(3, 5) == (3, 7)
    assert doc.kept_text(3, 7) == "中文"
    # cutting into a repair keeps the rest of the repaired text
    doc = doc.apply("spam", [Change(3, 4, "x")])
    assert doc.view.text == "ab 文 cd"
    assert doc.original == "ab ÖÐÎÄ cd"


def test_empty_and_one_character_documents():
    empty = make_doc("")
    assert empty.view.text == ""
    assert empty.apply("spam", [Change(0, 0, "nothing")]).edits == ()
    one = make_doc("字")
    assert one.view.text == "字"
    gone = one.apply("spam", [Change(0, 1, "x")])
    assert gone.view.text == "" and gone.edits[0].text == "字"


@st.composite
def text_and_changes(draw):
    text = draw(st.text(min_size=0, max_size=60))
    rounds = []
    for _ in range(draw(st.integers(0, 3))):
        view_len = None  # resolved against the view when applied
        spans = draw(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 8)), max_size=5))
        rounds.append((view_len, spans))
    return text, rounds


@given(text_and_changes())
def test_edits_stay_inside_disjoint_and_everything_else_survives(case):
    text, rounds = case
    doc = make_doc(text)
    for _, spans in rounds:
        n = len(doc.view.text)
        changes = [Change(min(a, n), min(a + k, n), "r") for a, k in spans]
        doc = doc.apply("spam", changes)
    assert_edits_consistent(text, doc)
    for i, ch in enumerate(doc.view.text):
        s, e = doc.view.origin(i)
        assert text[s:e] == ch


@st.composite
def doc_with_repairs_and_removals(draw):
    """A document after a few rounds of removals and repairs (replacement text)."""
    text = draw(st.text(alphabet="ab字發 \n", min_size=1, max_size=40))
    doc = make_doc(text)
    for _ in range(draw(st.integers(0, 3))):
        n = len(doc.view.text)
        spans = draw(st.lists(st.tuples(st.integers(0, n), st.integers(1, 5)), max_size=4))
        replacement = draw(st.sampled_from(["", "", "X", "YZ"]))
        changes = [Change(min(a, n), min(a + k, n), "r", replacement) for a, k in spans]
        doc = doc.apply("normalize", changes)
    return doc


@given(doc_with_repairs_and_removals(), st.data())
def test_vectorised_span_mapping_equals_span_by_span(doc, data):
    view = doc.view
    n = len(view.text)
    if n == 0:
        return
    spans = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n)), max_size=8))
    spans = [(a, min(a + k, n)) for a, k in spans]
    starts, ends = view.to_original_many([a for a, _ in spans], [b for _, b in spans])
    assert list(zip(starts, ends, strict=True)) == [view.to_original(a, b) for a, b in spans]


def test_a_document_keeps_its_view_until_its_edits_change():
    doc = make_doc("發(fā)展很快").apply("pinyin", [Change(1, 5, "reading")])
    view = doc.view
    assert doc.replace(notes=("n",)).view is view  # same edits: nothing to rebuild
    fewer = doc.replace(edits=())
    assert fewer.view is not view and fewer.view.text == "發(fā)展很快"


def test_evolve_is_replace_for_sentences_and_paragraphs():
    sentence = Sentence("p1-s1", 0, 4, "發展很快", ("發展",))
    paragraph = Block("p1", 0, 4, "發展很快", (sentence,))
    assert evolve(sentence, zh="发展很快", en="fast") == replace(sentence, zh="发展很快", en="fast")
    assert evolve(paragraph, en="x") == replace(paragraph, en="x")
    assert sentence.zh == "發展很快"  # the original record is untouched
    with pytest.raises(TypeError):
        evolve(sentence, text="no such field")
