"""--keep STAGE, pipeline.toml and --spam-words change what the cleaner does."""

from __future__ import annotations

import pytest

from pipeline.settings import Settings, load_config
from tests.conftest import clean, load_json, run_cli

ARTICLE = "\n".join(
    ["發(fā)展很快的大模型"]
    + ["谷歌的研究人員發布了新的大語言模型，訓練和推理的效率都有提升。"] * 8
    + ["返回搜狐，查看更多", "本站独家秘籍大放送，立即领取"]
)


def test_keep_turns_a_stage_off():
    assert "(fā)" not in clean(ARTICLE).view.text
    kept = clean(ARTICLE, Settings(keep=("pinyin",))).view.text
    assert "(fā)" in kept and "返回搜狐" not in kept
    assert "返回搜狐" in clean(ARTICLE, Settings(keep=("boilerplate",))).view.text


def test_spam_words_file_extends_the_list(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("独家秘籍\n立即领取\n", encoding="utf-8")
    assert "独家秘籍" in clean(ARTICLE).view.text
    assert "独家秘籍" not in clean(ARTICLE, Settings(spam_words=(str(words),))).view.text


def test_config_file_sets_lists_and_thresholds(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("独家秘籍\n立即领取\n", encoding="utf-8")
    config = tmp_path / "pipeline.toml"
    config.write_text(f'spam_words = ["{words}"]\nkeep = ["pinyin"]\n', encoding="utf-8")
    settings = load_config(config, Settings())
    assert settings.keep == ("pinyin",) and settings.spam_words == (str(words),)
    source = tmp_path / "a.txt"
    source.write_text(ARTICLE, encoding="utf-8")
    assert (
        run_cli(source, "--config", config, "-o", tmp_path / "out", "--translator", "none", "-q")
        == 0
    )
    text = "\n".join(p["zh"] for p in load_json(tmp_path / "out" / "a.json")["paragraphs"])
    assert "(fā)" in text and "独家秘籍" not in text


def test_unknown_config_keys_are_an_error(tmp_path):
    config = tmp_path / "pipeline.toml"
    config.write_text("spam_wrods = []\n", encoding="utf-8")
    with pytest.raises(ValueError, match="spam_wrods"):
        load_config(config, Settings())
    with pytest.raises(SystemExit) as exc:
        run_cli(tmp_path, "--config", config)
    assert exc.value.code == 2
