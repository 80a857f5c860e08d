"""Glossaries (issue 13): the file format, matching, conversion overrides, Marian and the gloss
obeying them, the cache and fingerprint, and the run's term table."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from pipeline.context import Context, read_word_file
from pipeline.glossary import (
    Glossary,
    Match,
    TermFinder,
    builtin_glossary,
    find_terms,
    load_glossary,
    parse_glossary,
)
from pipeline.runner import run
from pipeline.segment import segmenter
from pipeline.settings import Settings, SettingsError, load_config
from pipeline.translate import translate_all
from pipeline.translate.base import Translation
from pipeline.translate.gloss import MEANING_WORDS, GlossTranslator
from pipeline.translate.marian import MarianTranslator
from pipeline.translate.protect import mask, unmask
from pipeline.write.terms import COLUMNS
from tests.conftest import INPUT, clean, load_json, run_cli

SCHEMA = json.loads(resources.files("pipeline.schema").joinpath("document.schema.json").read_text())

# Twenty terms: multi-character Han terms, one inside another's reach (库 in 向量数据库), Latin,
# a space, a middle dot, a name.
TERMS = {
    "大模型": "large model",
    "模型蒸馏": "model distillation",
    "开源": "open source",
    "全栈": "full stack",
    "云计算": "cloud computing",
    "知识图谱": "knowledge graph",
    "向量数据库": "vector database",
    "检索增强生成": "retrieval-augmented generation",
    "提示工程": "prompt engineering",
    "智能体": "AI agent",
    "多模态": "multimodal",
    "算力": "compute",
    "微调": "fine-tuning",
    "张量并行": "tensor parallelism",
    "注意力机制": "attention mechanism",
    "GPT-4": "GPT-4",
    "Transformer 模型": "Transformer model",
    "马斯克·伊隆": "Elon Musk",
    "库": "library",
    "李飞飞": "Fei-Fei Li",
}
SENTENCES = [
    "我们用大模型做了很多实验。",
    "模型蒸馏让小模型学会了大模型的本事。",
    "这个项目已经开源，全栈工程师都很喜欢。",
    "云计算降低了算力的成本。",
    "知识图谱和向量数据库可以一起用于检索增强生成。",
    "提示工程是使用智能体的关键。",
    "多模态模型需要更多的算力。",
    "研究人员对GPT-4进行了微调。",
    "张量并行把注意力机制的计算分到多张卡上。",
    "Transformer 模型改变了自然语言处理。",
    "很多Transformer模型都很大。",
    "马斯克·伊隆评论了这件事。",
    "李飞飞教授的团队发布了新的数据集。",
    "这个库很好用。",
    "仓库里没有货。",
    "天气很好，我们去公园散步。",
]


def write_glossary(path: Path, terms: dict[str, str] = TERMS, extra: str = "") -> Path:
    lines = ["# the team's glossary", "zh\ten\tnote"]
    lines += [f"{zh}\t{en}" for zh, en in terms.items()]
    path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return path


def glossary_of(text: str, name: str = "g.tsv") -> Glossary:
    return parse_glossary(name, text)


# -- the file format -------------------------------------------------------------------------


def test_tsv_and_csv_with_header_comments_and_notes():
    tsv = glossary_of("# c\nzh\ten\tnote\n开源\topen source\tsoftware\n\n全栈\tfull stack\n")
    assert [(t.zh, t.en, t.note) for t in tsv.terms] == [
        ("开源", "open source", "software"),
        ("全栈", "full stack", ""),
    ]
    csv = glossary_of('zh,en\n开源,open source\n"张三","Zhang, San"\n', "g.csv")
    assert [(t.zh, t.en) for t in csv.terms] == [("开源", "open source"), ("张三", "Zhang, San")]
    # a comma file without the .csv extension is recognised too
    assert glossary_of("开源,open source\n", "g.txt").terms[0].en == "open source"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("开源\topen source\n全栈\n", "g.tsv, line 2: expected"),
        ("# c\n开源\t\n", "g.tsv, line 2: empty en"),
        ("开源\t开放源代码\n", "g.tsv, line 1: the English column holds Chinese"),
        ("开源\topen source\n开源\topen-source\n", "g.tsv, line 2: 开源 is given a second"),
        ("123\tone two three\n", "g.tsv, line 1: the term '123' has no letters"),
    ],
)
def test_bad_lines_name_the_file_and_line(text, problem):
    with pytest.raises(SettingsError, match=re.escape(problem)):
        glossary_of(text)


def test_cli_and_config_take_glossaries_additively(tmp_path, capsys, monkeypatch):
    bad = tmp_path / "bad.tsv"
    bad.write_text("开源\topen source\n全栈\n", encoding="utf-8")
    source = tmp_path / "a.txt"
    source.write_text("这个项目已经开源。\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="2"):
        run_cli(source, "-o", tmp_path / "out", "--glossary", bad)
    assert f"{bad}, line 2" in capsys.readouterr().err
    # pipeline.toml: paths relative to the file; --glossary adds to the file's list
    (tmp_path / "conf").mkdir()
    write_glossary(tmp_path / "conf" / "team.tsv", {"开源": "open-source"})
    (tmp_path / "conf" / "pipeline.toml").write_text('glossary = ["team.tsv"]\n', "utf-8")
    mine = write_glossary(tmp_path / "mine.tsv", {"项目": "project"})
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    args = (source, "-o", out, "--translator", "gloss", "--config", "conf/pipeline.toml", "-q")
    assert run_cli(*args, "--glossary", mine) == 0
    (sentence,) = load_json(out / "a.json")["blocks"][0]["sentences"]
    assert [(t["zh"], t["en"]) for t in sentence["terms"]] == [
        ("项目", "project"),
        ("开源", "open-source"),
    ]
    assert "open-source" in sentence["en"] and "project" in sentence["en"]
    settings = load_config(tmp_path / "conf" / "pipeline.toml")
    assert settings.glossary == (str(tmp_path / "conf" / "team.tsv"),)


def test_a_later_glossary_wins():
    first, second = glossary_of("开源\topen source\n"), glossary_of("开源\topen-source\n", "b")
    merged = load_glossary((("a", "开源\topen source\n"), ("b", "开源\topen-source\n")))
    assert merged.terms[0].en == "open-source"
    assert first != second and merged.files == ("a", "b")


# -- matching --------------------------------------------------------------------------------


def found(text: str, glossary: Glossary) -> list[tuple[str, str]]:
    return [(m.zh, m.en) for m in find_terms(text, glossary, segmenter().words)]


def test_longest_term_first_and_single_characters_only_as_words():
    g = glossary_of(
        "大模型\tlarge model\n模型蒸馏\tmodel distillation\n库\tlibrary\n数据库\tdatabase\n"
    )
    assert found("大模型蒸馏很有用", g) == [("模型蒸馏", "model distillation")]
    assert found("大模型很好", g) == [("大模型", "large model")]
    assert found("这个库很好用。", g) == [("库", "library")]
    assert found("仓库里没有货。", g) == []  # 库 inside the word 仓库
    assert found("数据库很快", g) == [("数据库", "database")]


def test_latin_dot_and_space_terms_match_on_the_text():
    g = glossary_of("GPT-4\tGPT-4\nTransformer 模型\tTransformer model\n马斯克·伊隆\tElon Musk\n")
    assert found("我们用gpt-4做了实验", g) == [("gpt-4", "GPT-4")]
    assert found("GPT-40不是GPT-4", g) == [("GPT-4", "GPT-4")]  # never inside GPT-40
    assert found("Transformer模型和Transformer 模型", g) == [
        ("Transformer模型", "Transformer model"),
        ("Transformer 模型", "Transformer model"),
    ]
    assert found("马斯克•伊隆说", g) == [("马斯克•伊隆", "Elon Musk")]


def test_terms_written_in_traditional_match_the_simplified_text():
    g = glossary_of("開源軟體\topen-source software\n")
    assert found("开源软体很多", g) == [("开源软体", "open-source software")]


def test_conversion_override_keeps_a_name_opencc_would_change(tmp_path):
    text = "乾貴士進球了，大家乾杯。"
    assert clean(text).blocks[0].zh == "干贵士进球了，大家干杯。"
    g = write_glossary(tmp_path / "g.tsv", {"乾贵士": "Takashi Inui"}, "乾貴士\t乾贵士\tconvert\n")
    doc = clean(text, Settings(glossary=(str(g),)))
    (sentence,) = doc.blocks[0].sentences
    assert sentence.zh == "乾贵士进球了，大家干杯。"  # the rest still converted
    assert [(t.zh, t.en, t.start, t.end) for t in sentence.terms] == [
        ("乾贵士", "Takashi Inui", 0, 3)
    ]


# -- Marian ----------------------------------------------------------------------------------


def test_twenty_terms_appear_exactly_in_every_marian_sentence(tmp_path, tiny_model):
    """With a random model whose English is noise, the glossary's English is still in the
    English of every sentence that contains a term, across many documents."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    for i in range(12):
        lines = [SENTENCES[(i * 5 + k) % len(SENTENCES)] for k in range(6)]
        (inputs / f"doc{i:02}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    glossary = write_glossary(tmp_path / "terms.tsv")
    out = tmp_path / "out"
    args = ("--translator", "marian", "--model", tiny_model, "--cache-dir", tmp_path / "c")
    assert run_cli(inputs, "-o", out, *args, "--glossary", glossary, "-q") == 0
    checked = set()
    for path in sorted(out.glob("doc*.json")):
        data = load_json(path)
        jsonschema.validate(data, SCHEMA)
        assert data["translator"]["glossary"]["files"] == ["terms.tsv"]
        for p in data["blocks"]:
            for s in p["sentences"]:
                listed = {(t["zh"], t["en"]) for t in s.get("terms", ())}
                for t in s.get("terms", ()):
                    assert s["zh"][t["start"] : t["end"]] == t["zh"]
                for zh, en in TERMS.items():
                    pattern = re.escape(zh).replace(r"\ ", r"\s*")
                    contains = re.search(pattern, s["zh"], re.I)
                    if zh == "库":
                        contains = s["zh"] == "这个库很好用。"
                    elif zh == "大模型" and "模型蒸馏" in s["zh"]:
                        contains = "小模型学会了大模型" in s["zh"]
                    if contains:
                        assert en in s["en"], (s["zh"], s["en"], en)
                        assert any(e == en for _, e in listed), (s["zh"], listed)
                        checked.add(zh)
                if s["zh"] == "仓库里没有货。":
                    assert "terms" not in s
    assert checked == set(TERMS)


def fixed_english(english: str):
    """Stands in for the model's generation: the same English for every input, so every
    placeholder not written into `english` is dropped."""

    def generate(batches, *args, **kwargs):
        return [[english for _ in batch] for batch in batches]

    return generate


@pytest.fixture(scope="module")
def marian_with_terms(tiny_model) -> MarianTranslator:
    g = glossary_of("大模型\tlarge model\n开源\topen source\n")
    return MarianTranslator(
        str(tiny_model),
        engine="transformers",
        progress=False,
        terms=TermFinder(g, segmenter().words),
    )


def test_a_dropped_term_is_put_back_in_place_and_flagged(marian_with_terms, monkeypatch):
    translator = marian_with_terms
    monkeypatch.setattr(translator.engine, "generate", fixed_english("We did a lot of work."))
    first, middle, last = translator.translate(
        [
            "大模型今年做了很多工作。",
            "我们今年用大模型做了很多工作。",
            "我们今年做了很多工作，都开源。",
        ]
    )
    assert first.en.startswith("large model We did")
    assert "large model" in middle.en and not middle.en.startswith("large model")
    assert not middle.en.rstrip(".").endswith("large model")
    assert last.en.endswith("open source.")
    assert {first.flag, middle.flag, last.flag} == {"term_restored"}


def test_a_kept_placeholder_gets_the_english_and_no_flag(marian_with_terms, monkeypatch):
    translator = marian_with_terms
    monkeypatch.setattr(translator.engine, "generate", fixed_english("We use XPH0X every day."))
    (result,) = translator.translate(["我们每天都用大模型。"])
    assert result == Translation("We use large model every day.", None)


def test_unmask_places_lost_terms_between_their_neighbours():
    sentence = "在2023年，大模型超过了GPT-3。"
    masked = mask(sentence, [Match("大模型", "large model", 8, 11)])
    assert masked.terms == {1} and masked.spans == ("2023", "large model", "GPT-3")
    text, lost = unmask("In XPH0X, it surpassed XPH2X.", masked)
    assert lost == (1,)
    assert text.index("2023") < text.index("large model") < text.index("GPT-3")


# -- the gloss -------------------------------------------------------------------------------


def gloss(sentence: str, glossary: Glossary | None = None) -> str:
    words = segmenter().words
    translator = GlossTranslator(segmenter(), terms=TermFinder(glossary, words))
    return translator.translate([sentence])[0].en


@pytest.mark.parametrize("term", builtin_glossary().terms, ids=lambda t: t.zh)
def test_the_gloss_renders_every_builtin_term(term):
    assert gloss(term.zh) == term.en
    assert term.en in gloss(f"我们讨论{term.zh}。")


def test_builtin_terms_with_a_negation_keep_it_in_english():
    negative = re.compile(r"\b(?:not?|non|without)\b|\bun|less\b|\bnon-", re.I)
    for term in builtin_glossary().terms:
        if any(word in term.zh for word in MEANING_WORDS):
            assert negative.search(term.en), term


def test_the_gloss_obeys_the_users_glossary_and_never_drops_a_negation():
    assert gloss("这个项目不开源。") == "this item not open source."
    mine = glossary_of("开源\topen-source\n项目\tproject\n")
    assert gloss("这个项目不开源。", mine) == "this project not open-source."
    # the user's term wins over a longer built-in one around it
    assert "large model" not in gloss("大模型", glossary_of("模型\tmodel\n"))
    # the built-in glossary only where jieba's words begin and end with the term
    assert "back end" not in gloss("之后端午节放假。")


# -- cache and fingerprint -------------------------------------------------------------------


def test_a_new_glossary_line_retranslates_only_its_sentences(tmp_path, monkeypatch):
    settings = Settings(cache_dir=str(tmp_path / "cache"))
    sentences = ["这个项目已经开源。", "云计算降低了成本。", "天气很好。"]
    words = segmenter().words
    first = GlossTranslator(
        segmenter(), terms=TermFinder(glossary_of("开源\topen-source\n"), words)
    )
    translate_all(first, sentences, settings)
    second_glossary = glossary_of("开源\topen-source\n云计算\tcloud\n")
    second = GlossTranslator(segmenter(), terms=TermFinder(second_glossary, words))
    calls: list[list[str]] = []
    original = GlossTranslator.translate
    monkeypatch.setattr(
        GlossTranslator, "translate", lambda self, b: calls.append(b) or original(self, b)
    )
    out = translate_all(second, sentences, settings)
    assert calls == [["云计算降低了成本。"]]
    assert out[1].en.startswith("cloud") and "open-source" in out[0].en


def test_fingerprint_follows_glossary_content_not_its_name(tmp_path):
    a = write_glossary(tmp_path / "a.tsv", {"开源": "open source"})
    b = write_glossary(tmp_path / "b.tsv", {"开源": "open source"})
    c = write_glossary(tmp_path / "c.tsv", {"开源": "open-source"})

    def fingerprint(path: Path) -> str:
        ctx = Context.load(Settings(glossary=(str(path),)))
        return ctx.fingerprint({"backend": "gloss", **ctx.glossary.describe()})

    assert fingerprint(a) == fingerprint(b) != fingerprint(c)
    assert read_word_file(str(a)).sha256 != read_word_file(str(c)).sha256


# -- the term table --------------------------------------------------------------------------


class _AlternatingTranslator:
    """English that renders 模型 "model" in some sentences and "pattern" in others."""

    def describe(self) -> dict:
        return {"backend": "marian", "model": "alternating", "revision": "1"}

    def settings(self) -> dict:
        return {}

    def translate(self, sentences: list[str]) -> list[Translation]:
        return [
            Translation(f"Sentence {i} about a {'pattern' if i % 3 == 0 else 'model'}.")
            for i, _ in enumerate(sentences)
        ]


def read_terms(out: Path) -> dict[str, dict[str, str]]:
    lines = (out / "terms.tsv").read_text(encoding="utf-8").splitlines()
    assert tuple(lines[0].split("\t")) == COLUMNS
    rows = [line.split("\t") for line in lines[1:]]
    return {row[0]: dict(zip(COLUMNS, row, strict=True)) for row in rows}


def test_the_term_table_lists_the_seeds_recurring_terms(tmp_path):
    out = tmp_path / "out"
    assert run_cli(INPUT, "-o", out, "--translator", "gloss", "-q") == 0
    rows = read_terms(out)
    assert rows["模型"]["en"] == "model" and int(rows["模型"]["count"]) > 20
    assert rows["谷歌"]["documents"] == "2" and rows["谷歌"]["en"] == "Google"
    assert "我们" not in rows  # the stoplist
    assert all(len(zh) > 1 for zh in rows)
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "## Terms" in index and "[terms.tsv](terms.tsv)" in index


def test_an_inconsistent_rendering_is_visible_and_the_table_feeds_a_glossary(tmp_path):
    glossary = write_glossary(tmp_path / "g.tsv", {"谷歌": "Google"})
    ctx = Context.load(Settings(use_cache=False, glossary=(str(glossary),)))
    out = tmp_path / "out"
    report = run(list(INPUT.glob("*.txt")), out, ctx, _AlternatingTranslator())
    assert report.ok
    rows = read_terms(out)
    model = rows["模型"]
    assert model["status"] == "inconsistent"
    assert re.fullmatch(r"model ×\d+; pattern ×\d+(; other ×\d+)?", model["renderings"])
    assert rows["谷歌"]["status"] == "glossary" and rows["谷歌"]["renderings"].startswith("Google")
    index = (out / "index.md").read_text(encoding="utf-8")
    assert re.search(r"given more than one English: [^.]*模型", index)
    assert "| 模型 | model |" in index
    # terms.tsv is a glossary once the rows without English are filled in or dropped
    table = (out / "terms.tsv").read_text(encoding="utf-8").splitlines()
    kept = [line for line in table if line.split("\t")[1]]
    reread = glossary_of("\n".join(kept), "terms.tsv")
    assert ("模型", "model") in {(t.zh, t.en) for t in reread.terms}
    assert len(reread.terms) == len(kept) - 1  # the header is recognised
