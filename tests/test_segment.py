"""Segmentation gives jieba's tokens, token for token (pipeline/segment.py: rjieba where it
provably agrees, jieba's own rules around it), on the seeds, the fixtures, a generated corpus and
generated text, with the packaged user dictionary and with the user's."""

from __future__ import annotations

import io
import logging
import random
import re
from functools import lru_cache
from importlib import resources

import jieba
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench import corpus
from pipeline.segment import DICTIONARY_LATIN_WORDS, Segmenter, _jieba_dictionary

jieba.setLogLevel(logging.WARNING)

# Redefines dictionary words (rjieba's total then needs balancing), adds Latin words (their
# blocks go to jieba) and words over Latin/Han edges.
USER_DICT = "机器学习 99999 n\n的 5\n谷歌大脑 30\nGPT-4 20\nresearch.google 10 n\n大模型 7\n"
NO_FREQUENCY = "谷歌大脑\n量子纠缠态 100\n"  # jieba suggests a frequency: jieba cuts everything


@lru_cache(maxsize=4)
def reference(user_dicts: tuple[str, ...] = ()) -> jieba.Tokenizer:
    tokenizer = jieba.Tokenizer()
    packaged = resources.files("pipeline.data").joinpath("userdict.txt").read_bytes()
    for data in (packaged, *(d.encode("utf-8") for d in user_dicts)):
        tokenizer.load_userdict(io.BytesIO(data))
    return tokenizer


@lru_cache(maxsize=4)
def ours(user_dicts: tuple[str, ...] = ()) -> Segmenter:
    return Segmenter(user_dicts)


def texts() -> list[str]:
    """Lines of the seeds, the fixtures and a generated corpus (Traditional and Simplified,
    pinyin, chrome, Latin, URLs), and the same converted to Simplified as the words stage
    sees them."""
    import opencc

    pages = corpus.fixture_pages() + corpus.generate(600_000, docs=8)
    lines = [line for page in pages for line in page.text.split("\n")]
    converted = opencc.OpenCC("tw2s").convert("\n".join(lines)).split("\n")
    return list(dict.fromkeys(lines + converted))


@pytest.mark.parametrize("user_dicts", [(), (USER_DICT,), (NO_FREQUENCY,)])
def test_same_tokens_as_jieba_on_seeds_fixtures_and_corpus(user_dicts):
    segmenter, expected = ours(user_dicts), reference(user_dicts)
    lines = texts()
    assert len(lines) > 1500
    differ = [line for line in lines if segmenter.cut(line) != expected.lcut(line, HMM=True)]
    assert differ == []


def test_user_dictionary_without_frequencies_is_cut_by_jieba_itself():
    assert ours((NO_FREQUENCY,)).jieba_only
    assert not ours((USER_DICT,)).jieba_only
    assert "谷歌大脑" in ours((NO_FREQUENCY,)).words("谷歌大脑发布了新模型")


def test_latin_words_of_the_dictionary_are_all_listed():
    text = _jieba_dictionary().read_text(encoding="utf-8")
    words = re.findall(r"(?m)^([^ \n]*[a-zA-Z0-9+#&._%\-][^ \n]*) ", text)
    assert sorted({w for w in words if len(w) > 1}) == sorted(set(DICTIONARY_LATIN_WORDS))


_HAN = "的了是在发展模型谷歌大语言学习机器研究人员论文上都有和用当這個國家电脑"
_ALPHABET = st.sampled_from(
    [*_HAN, *"abcXYZ019", *"+#&._%-", " ", "  ", "\t", "\u3000", "\r\n", "\n", "，。！（）",
     "C++", "T恤", "AA制", "GPT-4", "research.google", "1.2-1.5", "3%", "㐀", "\U00020000",
     "\ue000", "\x00", "\x1c", "😀", "ｆｕｌｌ"]  # fmt: skip
)


@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_same_tokens_as_jieba_on_generated_text(text):
    for user_dicts in [(), (USER_DICT,)]:
        assert ours(user_dicts).cut(text) == reference(user_dicts).lcut(text, HMM=True)


def test_repeated_units_are_cut_like_jieba_without_loading_jieba():
    """Two routes through a repeated unit (语语语学: 语|语语 or 语语|语) have equal probability
    and rjieba breaks the tie otherwise than jieba; such blocks go to jieba's own route written
    out (segment.JiebaRoute), not to jieba's tokenizer."""
    rng = random.Random(14)
    units = "语 学 语言 哈 天 好 看 谢 人 一 一个 人人 天天 好好 学习 C++ T恤 GPT 4 - . 大模型 ，"
    units = units.split()  # noqa: SIM905 - a word list reads better as text
    texts = ["语语语学", "谢谢谢谢", "哈哈哈"]
    for _ in range(3000):
        unit = "".join(rng.choice(units) for _ in range(rng.randint(1, 3)))
        texts.append(rng.choice(units) + unit * rng.randint(2, 4) + rng.choice(units))
    segmenter, expected = Segmenter(), reference()
    assert [t for t in texts if segmenter.cut(t) != expected.lcut(t, HMM=True)] == []
    assert "_jieba" not in vars(segmenter)  # jieba's tokenizer was never loaded
