"""Settings flow one way (defaults ← pipeline.toml ← options given), are type-checked with errors
naming the file and key, and the fingerprint holds everything that changes the output."""

from __future__ import annotations

import json

import pytest

from pipeline.cli import build_parser, settings_from_args
from pipeline.context import Context
from pipeline.settings import Settings, SettingsError, SpamThresholds, load_config
from pipeline.translate.marian import MarianTranslator
from tests.conftest import clean, load_json, run_cli

ARTICLE = "\n".join(
    ["發(fā)展很快的大模型"]
    + ["谷歌的研究人員發布了新的大語言模型，訓練和推理的效率都有提升。"] * 8
    + ["返回搜狐，查看更多", "本站独家秘籍大放送，立即领取"]
)


def settings_for(*argv: str) -> Settings:
    return settings_from_args(build_parser().parse_args(["run", "in", *argv]))


def test_keep_turns_a_stage_off():
    assert "(fā)" not in clean(ARTICLE).view.text
    kept = clean(ARTICLE, Settings(keep=("pinyin",))).view.text
    assert "(fā)" in kept and "返回搜狐" not in kept
    # with every stage that removes lines off, the footer stays
    both = Settings(keep=("boilerplate", "classifier"))
    assert "返回搜狐" in clean(ARTICLE, both).view.text


def test_spam_words_file_extends_the_list(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("独家秘籍\n立即领取\n", encoding="utf-8")
    # the line classifier may judge the ad line by its place alone: keep it out of this test
    rules_only = Settings(keep=("classifier",))
    assert "独家秘籍" in clean(ARTICLE, rules_only).view.text
    with_words = Settings(keep=("classifier",), spam_words=(str(words),))
    assert "独家秘籍" not in clean(ARTICLE, with_words).view.text


def test_config_file_sets_lists_and_thresholds(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("独家秘籍\n立即领取\n", encoding="utf-8")
    config = tmp_path / "pipeline.toml"
    config.write_text(
        'spam_words = ["words.txt"]\nkeep = ["pinyin"]\n[spam]\npinyin_run_min_letters = 30\n',
        encoding="utf-8",
    )
    settings = load_config(config)
    # paths in the file are relative to the file
    assert settings.keep == ("pinyin",) and settings.spam_words == (str(words),)
    assert settings.spam.pinyin_run_min_letters == 30
    assert settings.spam.prose_density == SpamThresholds().prose_density
    source = tmp_path / "a.txt"
    source.write_text(ARTICLE, encoding="utf-8")
    out = tmp_path / "out"
    assert run_cli(source, "--config", config, "-o", out, "--translator", "none", "-q") == 0
    text = "\n".join(p["zh"] for p in load_json(out / "a.json")["blocks"])
    assert "(fā)" in text and "独家秘籍" not in text


def test_file_settings_are_not_overwritten_by_option_defaults(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pipeline.toml").write_text(
        'layout = "table"\ntranslator = "none"\njobs = 7\nengine = "transformers"\n',
        encoding="utf-8",
    )
    settings = settings_for()
    assert (settings.layout, settings.translator, settings.jobs) == ("table", "none", 7)
    assert settings.engine == "transformers"
    # an option actually given wins over the file
    assert settings_for("--layout", "sentence", "--jobs", "2").layout == "sentence"
    assert settings_for("--jobs", "2").jobs == 2
    # repeatable options add to the file's lists
    (tmp_path / "pipeline.toml").write_text('keep = ["spam"]\n', encoding="utf-8")
    assert settings_for("--keep", "pinyin").keep == ("spam", "pinyin")


@pytest.mark.parametrize(
    ("content", "names"),
    [
        ('keep = "spam"\n', "`keep`"),
        ('jobs = "7"\n', "`jobs`"),
        ("jobs = 0\n", "`jobs`"),
        ("junk_threshold = 1.0\n", "`junk_threshold`"),
        ('layout = "tabel"\n', "`layout`"),
        ("[spam]\nprose_density = 2.0\n", "`spam.prose_density`"),
        ("[spam]\nprose_densty = 0.5\n", "spam.prose_densty"),
        ("spam_wrods = []\n", "spam_wrods"),
        ("layout = \n", "not valid TOML"),
    ],
)
def test_bad_config_names_the_file_and_the_key(tmp_path, capsys, content, names):
    config = tmp_path / "pipeline.toml"
    config.write_text(content, encoding="utf-8")
    with pytest.raises(SettingsError) as exc:
        load_config(config)
    assert str(config) in str(exc.value) and names in str(exc.value)
    with pytest.raises(SystemExit) as stop:
        run_cli(tmp_path, "--config", config, "-o", tmp_path / "out")
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert str(config) in err and names in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("jobs", ["0", "-3", "two"])
def test_jobs_must_be_a_positive_number(tmp_path, capsys, jobs):
    with pytest.raises(SystemExit) as stop:
        run_cli(tmp_path, "--jobs", jobs, "-o", tmp_path / "out")
    assert stop.value.code == 2
    assert "--jobs" in capsys.readouterr().err


def test_a_missing_word_list_is_a_usage_error_naming_it(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        run_cli(tmp_path, "--spam-words", tmp_path / "nope.txt", "-o", tmp_path / "out")
    assert stop.value.code == 2
    assert "nope.txt" in capsys.readouterr().err


# -- the fingerprint -------------------------------------------------------------------------


def _run(tmp_path, *extra) -> str:
    """Run the CLI on one article; return what the summary says (written / unchanged)."""
    source = tmp_path / "a.txt"
    if not source.exists():
        source.write_text(ARTICLE, encoding="utf-8")
    return str(run_cli(source, "-o", tmp_path / "out", "-q", *extra))


def _fingerprint(tmp_path) -> str:
    return load_json(tmp_path / "out" / "a.json")["pipeline"]["fingerprint"]


def test_editing_a_word_list_redoes_the_documents(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("独家秘籍\n", encoding="utf-8")
    _run(tmp_path, "--translator", "none", "--spam-words", words)
    before = _fingerprint(tmp_path)
    words.write_text("独家秘籍\n立即领取\n", encoding="utf-8")  # same path, new content
    _run(tmp_path, "--translator", "none", "--spam-words", words)
    assert _fingerprint(tmp_path) != before


def test_runtime_settings_do_not_change_the_fingerprint():
    base = Context(Settings())
    translator = {"backend": "none", "model": None, "revision": None}
    for runtime in (Settings(jobs=7), Settings(cache_dir="/elsewhere"), Settings(force=True)):
        assert Context(runtime).fingerprint(translator) == base.fingerprint(translator)
    for output in (Settings(layout="table"), Settings(keep=("spam",))):
        assert Context(output).fingerprint(translator) != base.fingerprint(translator)
    thresholds = Settings(spam=SpamThresholds(prose_density=0.5))
    assert Context(thresholds).fingerprint(translator) != base.fingerprint(translator)


def test_every_setting_says_what_it_affects():
    from dataclasses import fields

    kinds = {f.metadata.get("affects") for f in fields(Settings)}
    assert kinds <= {"text", "layout", "translation", "runtime"}


def test_a_beams_change_redoes_the_documents(tmp_path, tiny_model):
    args = ("--translator", "marian", "--model", tiny_model, "--cache-dir", tmp_path / "c")
    _run(tmp_path, *args, "--beams", "1")
    first = _fingerprint(tmp_path)
    assert load_json(tmp_path / "out" / "a.json")["translator"]["decoding"]["beams"] == 1
    _run(tmp_path, *args, "--beams", "2")
    assert _fingerprint(tmp_path) != first
    assert load_json(tmp_path / "out" / "a.json")["translator"]["decoding"]["beams"] == 2


def test_thread_counts_stay_out_of_the_description_and_the_cache_key(tmp_path, tiny_model):
    from pipeline.translate import describe, translate_all

    one = MarianTranslator(str(tiny_model), engine="ctranslate2", threads=(1, 1), progress=False)
    two = MarianTranslator(str(tiny_model), engine="ctranslate2", threads=(2, 1), progress=False)
    assert describe(one) == describe(two)
    assert "threads" not in json.dumps(describe(one))
    settings = Settings(cache_dir=str(tmp_path / "cache"))
    sentences = ["谷歌发布了新的模型。", "训练和推理的效率都有提升。"]
    first = translate_all(one, sentences, settings)
    calls = []
    two.translate = lambda batch: calls.append(batch) or []  # a cache hit calls no model
    assert translate_all(two, sentences, settings) == first
    assert calls == []
