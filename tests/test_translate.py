"""Translation: the real Marian path on a tiny random model built here, the cache, the gloss."""

from __future__ import annotations

import logging
import re

import pytest
from transformers import MarianMTModel

from pipeline.context import Context
from pipeline.segment import segmenter
from pipeline.settings import Settings
from pipeline.text import HAN_RE, URL_RE
from pipeline.translate import select_translator, translate_all
from pipeline.translate.engines import CTranslate2Engine, TransformersEngine
from pipeline.translate.gloss import GlossTranslator
from pipeline.translate.marian import MarianTranslator, is_bad_output
from pipeline.translate.protect import mask, unmask
from tests.conftest import INPUT, load_json, run_cli, seed_sentences

NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")


@pytest.fixture(scope="module", params=["transformers", "ctranslate2"])
def marian(request, tiny_model) -> MarianTranslator:
    return MarianTranslator(str(tiny_model), engine=request.param, token_budget=200, progress=False)


@pytest.fixture
def count_generate(monkeypatch):
    """Counts batches handed to either engine (and torch's generate, for good measure)."""
    calls = {"n": 0}
    for cls, name in (
        (TransformersEngine, "generate"),
        (CTranslate2Engine, "generate"),
        (MarianMTModel, "generate"),
    ):
        original = getattr(cls, name)

        def counting(self, *args, _original=original, **kwargs):
            calls["n"] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, name, counting)
    return calls


def marian_args(model, cache) -> tuple:
    return (INPUT, "--translator", "marian", "--model", model, "--cache-dir", cache, "-q")


def test_cli_marian_gives_one_english_line_per_sentence(tmp_path, tiny_model):
    assert run_cli(*marian_args(tiny_model, tmp_path / "cache"), "-o", tmp_path) == 0
    for path in sorted(tmp_path.glob("*.json")):
        data = load_json(path)
        assert data["translator"]["backend"] == "marian"
        assert data["translator"]["model"] == str(tiny_model)
        assert data["translator"]["revision"]
        assert data["translator"]["engine"] == "ctranslate2"  # auto picks it when installed
        for p in data["blocks"]:
            assert p["en"]
            for s in p["sentences"]:
                assert s["en"] and s["en"].strip(), s["id"]
                for url in URL_RE.findall(s["zh"]):
                    assert url in s["en"]
                for number in NUMBER.findall(s["zh"]):
                    assert number in s["en"], (s["zh"], s["en"])


def test_order_is_kept_across_documents_and_batches(marian):
    # Each sentence carries a protected tag; the tag must come back on its own sentence.
    base = seed_sentences()[:40]
    sentences = [f"{text[:30]}，标记 TAG{i:03d}。" for i, text in enumerate(base)]
    sentences += sentences[:5]  # duplicates across "documents"
    before = marian.model_calls
    out = marian.translate(sentences)
    assert marian.model_calls - before >= 3  # several batches under the small token budget
    assert len(out) == len(sentences)
    for i, (src, t) in enumerate(zip(sentences, out, strict=True)):
        tag = re.search(r"TAG\d{3}", src).group()
        assert tag in t.en, (i, src, t.en)
        assert re.findall(r"TAG\d{3}", t.en) == [tag]


def test_long_sentence_is_split_at_clauses_and_rejoined(marian):
    clauses = [s.strip("。！？") for s in seed_sentences() if 10 < len(s) < 60]
    long_sentence = ""
    for clause in clauses:
        if len(long_sentence) >= 2000:
            break
        long_sentence += clause + "，"
    assert len(long_sentence) >= 2000
    masked = mask(long_sentence).text
    pieces = marian.split_long(masked)
    assert len(pieces) > 5
    assert "".join(pieces) == masked  # nothing dropped, nothing truncated
    assert all(marian.count_tokens(p) <= marian.max_input_tokens for p in pieces)
    assert all(p.endswith(("，", "；", "：", "、")) or p is pieces[-1] for p in pieces)
    (result,) = marian.translate([long_sentence])
    assert result.en.strip()
    for number in NUMBER.findall(long_sentence):
        assert number in result.en


def test_text_without_han_is_not_sent_to_the_model(marian, count_generate):
    settings = Settings(use_cache=False)
    out = translate_all(marian, ["https://arxiv.org/abs/2105.04663", "Plane Strike"], settings)
    assert [t.en for t in out] == ["https://arxiv.org/abs/2105.04663", "Plane Strike"]
    assert count_generate["n"] == 0


@pytest.mark.parametrize("engine", ["transformers", "ctranslate2"])
def test_cached_rerun_makes_zero_model_calls(tmp_path, tiny_model, count_generate, engine):
    args = (*marian_args(tiny_model, tmp_path / "cache"), "--engine", engine)
    assert run_cli(*args, "-o", tmp_path / "a") == 0
    first = count_generate["n"]
    assert first > 0
    assert run_cli(*args, "-o", tmp_path / "b") == 0
    assert count_generate["n"] == first
    for path in (tmp_path / "a").glob("*.json"):
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()


def test_auto_falls_back_to_gloss_with_a_clear_warning(tmp_path, caplog):
    missing = tmp_path / "no-such-model"
    with caplog.at_level(logging.WARNING):
        code = run_cli(INPUT, "-o", tmp_path / "out", "--model", missing, "-q")
    assert code == 0
    warning = " ".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert str(missing) in warning and "--model" in warning and "gloss" in warning
    data = load_json(tmp_path / "out" / "000_26b7244c99b2266e.json")
    assert data["translator"]["backend"] == "gloss"


def test_marian_without_a_model_exits_2(tmp_path, capsys):
    code = run_cli(INPUT, "-o", tmp_path, "--translator", "marian", "--model", tmp_path / "nope")
    assert code == 2
    assert "nope" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.md"))


def test_unreachable_hub_model_fails_fast_offline():
    settings = Settings(translator="marian", model="Helsinki-NLP/opus-mt-zh-en")
    with pytest.raises(Exception, match="HF_HUB_OFFLINE"):
        select_translator(Context(settings))


def test_placeholders_round_trip_and_lost_ones_are_put_back_in_order():
    sentence = "Jeff Dean在TPU v4上达到了1.38倍，见https://a.org/x?y=1"
    masked = mask(sentence)
    assert "Jeff" not in masked.text and "1.38" not in masked.text and "https" not in masked.text
    assert unmask(masked.text, masked) == (sentence, ())
    text, lost = unmask("Something else entirely.", masked)
    assert lost == (0, 1, 2, 3)
    spans = ["Jeff Dean", "TPU v4", "1.38", "https://a.org/x?y=1"]
    assert [text.index(s) for s in spans] == sorted(text.index(s) for s in spans)
    assert text.startswith("Jeff Dean") and text.endswith("https://a.org/x?y=1.")


def test_bad_output_detection():
    assert is_bad_output("")
    assert is_bad_output("the the the the the the")
    assert is_bad_output("model model model model model model model model model model model model")
    assert not is_bad_output("Google released a new model for machine learning research.")


def gloss(sentence: str) -> str:
    (result,) = GlossTranslator(segmenter()).translate([sentence])
    return result.en


def test_gloss_words():
    assert gloss("谷歌") == "Google"
    assert gloss("机器学习") == "machine learning"
    assert gloss("在MLPerf 2.0中提高了1.38倍").count("MLPerf 2.0") == 1
    assert "1.38" in gloss("在MLPerf 2.0中提高了1.38倍")
    url = "https://research.google/pubs/pub49988/"
    assert url in gloss(f"论文地址：{url}")
    assert "fig.png" in gloss("见 fig.png 和图表")


def test_gloss_of_the_seeds_has_no_han_and_is_labeled(tmp_path):
    assert run_cli(INPUT, "-o", tmp_path, "--translator", "gloss", "-q") == 0
    for path in tmp_path.glob("*.json"):
        data = load_json(path)
        assert data["translator"]["backend"] == "gloss"
        for p in data["blocks"]:
            for s in p["sentences"]:
                assert s["en"] and not HAN_RE.search(s["en"]), (s["zh"], s["en"])
        md = path.with_suffix(".md").read_text(encoding="utf-8")
        assert "translator: gloss" in md and "not a translation" in md
        quotes = [ln for ln in md.splitlines() if ln.startswith("> ")]
        assert quotes and all(ln.startswith("> (gloss) ") for ln in quotes)


def test_greedy_retry_is_batched_like_the_first_pass(tiny_model, monkeypatch):
    """Even when every output is bad, the retry goes in batches of at most max_batch."""
    translator = MarianTranslator(
        str(tiny_model), engine="ctranslate2", max_batch=4, progress=False
    )
    monkeypatch.setattr("pipeline.translate.marian.is_bad_output", lambda text: True)
    calls = []
    engine_generate = translator.engine.generate

    def recording(batches, *args, greedy_retry=False, **kwargs):
        calls.append((greedy_retry, [len(b) for b in batches]))
        return engine_generate(batches, *args, greedy_retry=greedy_retry, **kwargs)

    monkeypatch.setattr(translator.engine, "generate", recording)
    sentences = [f"{s[:20]}。" for s in seed_sentences()[:10]]
    out = translator.translate(sentences)
    retry_sizes = [sizes for greedy, sizes in calls if greedy]
    assert len(retry_sizes) == 1
    assert max(retry_sizes[0]) <= 4 and sum(retry_sizes[0]) == len(set(sentences))
    assert all(t.flag == "suspect" for t in out)


@pytest.mark.parametrize(
    ("zh", "english"),
    [
        ("我不喜欢这个。", "not"),
        ("他没来。", "not"),
        ("这里没有水。", "not have"),
        ("他无钱。", "without"),
        ("他还未到。", "not yet"),
        ("别动！", "don't"),
        ("非营利", "non"),
    ],
)
def test_gloss_never_drops_a_negation(zh, english):
    assert english in gloss(zh)


def test_gloss_prints_no_dictionary_notes(tmp_path):
    assert run_cli(INPUT, "-o", tmp_path, "--translator", "gloss", "-q") == 0
    english = " ".join(
        s["en"] or ""
        for path in tmp_path.glob("*.json")
        for p in load_json(path)["blocks"]
        for s in p["sentences"]
    )
    for note in (" sth", " sb ", "fig.", "lit.", "negative prefix", "particle", "classifier"):
        assert note not in english


def test_gloss_results_are_cached_like_translations(tmp_path, caplog, monkeypatch):
    args = (INPUT, "--translator", "gloss", "--cache-dir", tmp_path / "cache", "-o", tmp_path)
    with caplog.at_level(logging.INFO):
        assert run_cli(*args, "--force") == 0
        calls = []
        monkeypatch.setattr(
            GlossTranslator, "translate", lambda self, batch: calls.append(batch) or []
        )
        assert run_cli(*args, "--force") == 0
    assert calls == []  # every sentence came from the cache
    messages = [r.getMessage() for r in caplog.records if "from cache" in r.getMessage()]
    assert messages[0].endswith("(0 from cache)")
    assert messages[-1].startswith("translating 0 sentence(s)")
    assert not messages[-1].endswith("(0 from cache)")
