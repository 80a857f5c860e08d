"""convert (OpenCC), split (paragraphs, sentences) and words (jieba)."""

from __future__ import annotations

import hanzidentifier

from pipeline.segment import segmenter
from pipeline.settings import Settings
from pipeline.stages.convert import to_simplified
from pipeline.stages.split import sentence_bounds
from tests.conftest import clean


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_bounds(text, 0, len(text))]


def traditional_only(text: str) -> list[str]:
    return [
        c for c in text if hanzidentifier.is_traditional(c) and not hanzidentifier.is_simplified(c)
    ]


def test_mainland_usage():
    assert to_simplified("隨著算法越來越復雜") == "随着算法越来越复杂"
    assert to_simplified("數據量的顯著增加") == "数据量的显著增加"
    assert to_simplified("運動著的文字") == "运动着的文字"


def test_mixed_script_comes_out_fully_simplified():
    doc = clean("谷歌在JAX生態系統中發布了許多新的开源库，讓AI更負責任。\n網絡與數據中心。")
    for p in doc.blocks:
        for s in p.sentences:
            assert traditional_only(s.zh) == [], s.zh


def test_sentences_split_after_terminators_and_closing_quotes():
    text = "他说：「今天很好。」然后走了！真的吗？是的；好吧……最后一句"
    assert sentences(text) == [
        "他说：「今天很好。」",
        "然后走了！",
        "真的吗？",
        "是的；",
        "好吧……",
        "最后一句",
    ]


def test_no_split_inside_urls_decimals_or_abbreviations():
    assert sentences("论文链接：https://openreview.net/pdf?id=jdJo1HIVinI 很好。") == [
        "论文链接：https://openreview.net/pdf?id=jdJo1HIVinI 很好。"
    ]
    assert sentences("在MLPerf 2.0中提高了1.38倍。") == ["在MLPerf 2.0中提高了1.38倍。"]
    assert sentences("e.g. This works. Dr. Smith agrees.") == [
        "e.g. This works.",
        "Dr. Smith agrees.",
    ]


def test_list_numbers_stay_with_their_text():
    assert sentences("1. 超详超硬Jeff Dean万字总结！") == ["1. 超详超硬Jeff Dean万字总结！"]
    assert sentences("1、高效的模型架构") == ["1、高效的模型架构"]


def test_paragraph_and_sentence_offsets_point_into_the_original():
    text = "第一段。第二句！\n\n  第二段(duan)文字。  \n"
    doc = clean(text)
    assert [p.zh for p in doc.blocks] == ["第一段。第二句！", "第二段文字。"]
    for p in doc.blocks:
        for s in p.sentences:
            assert to_simplified(doc.kept_text(s.start, s.end)) == s.zh


def tokenize(text: str, user_dicts: tuple[str, ...] = ()) -> tuple[str, ...]:
    return segmenter(user_dicts).words(text)


def test_names_are_not_split_by_a_stronger_neighbour():
    # without the user dictionary jieba reads 谷/歌会 ("song concert") here
    assert tokenize("谷歌会继续对开源编译器投资")[:2] == ("谷歌", "会")


def test_user_dictionary_terms_are_words():
    tokens = tokenize("让大模型通过知识蒸馏和自注意力提升混合专家的效率")
    for term in ("大模型", "知识蒸馏", "自注意力", "混合专家"):
        assert term in tokens


def test_user_dict_option_adds_words(tmp_path):
    assert "量子纠缠态" not in tokenize("量子纠缠态很奇妙")
    extra = tmp_path / "mine.txt"
    extra.write_text("量子纠缠态 100 n\n", encoding="utf-8")
    doc = clean("量子纠缠态很奇妙。", Settings(user_dicts=(str(extra),)))
    assert "量子纠缠态" in doc.blocks[0].sentences[0].tokens


def test_words_stage_segments_exactly_like_jieba():
    """words uses rjieba for speed only (pipeline/segment.py): on the samples it must match
    jieba token for token (tests/test_segment.py checks much more text)."""
    import logging
    from importlib import resources

    import jieba

    from tests.conftest import SEEDS, clean

    jieba.setLogLevel(logging.WARNING)
    reference = jieba.Tokenizer()
    with resources.as_file(resources.files("pipeline.data") / "userdict.txt") as path:
        reference.load_userdict(str(path))
    sentences = [
        s
        for seed in SEEDS
        for p in clean(seed.read_text(encoding="utf-8")).blocks
        for s in p.sentences
    ]
    assert len(sentences) > 200
    for s in sentences:
        assert list(s.tokens) == [w for w in reference.cut(s.zh, HMM=True) if w.strip()]
