"""One registry of stages and translators: everything that lists them derives from it."""

from __future__ import annotations

import json
from importlib import resources

from pipeline.cli import build_parser
from pipeline.document import Change, Document
from pipeline.registry import _STAGES, cleaning_stages, stage, stages, translators
from pipeline.write.markdown import render_markdown
from tests.conftest import ROOT, clean, make_doc


def _schema() -> dict:
    return json.loads(
        resources.files("pipeline.schema").joinpath("document.schema.json").read_text()
    )


def _choices(option: str) -> list[str]:
    run = build_parser()._subparsers._group_actions[0].choices["run"]
    action = next(a for a in run._actions if option in a.option_strings)
    return list(action.choices)


def test_stages_run_in_registered_order():
    names = [s.name for s in stages()]
    cleaning = ["normalize", "pinyin", "spam", "boilerplate", "classifier"]
    assert names == [*cleaning, "split", "convert", "words", "terms"]
    assert cleaning_stages() == tuple(cleaning)


def test_schema_and_cli_choices_come_from_the_registry():
    schema = _schema()
    assert schema["$defs"]["edit"]["properties"]["stage"]["enum"] == list(cleaning_stages())
    assert _choices("--keep") == list(cleaning_stages())
    backends = schema["properties"]["translator"]["properties"]["backend"]["enum"]
    assert sorted(backends) == sorted(translators())
    assert _choices("--translator") == ["auto", *translators()]


def test_a_new_stage_is_one_registration(tmp_path):
    """A stage registered with the decorator runs in order, can be kept with --keep, and its
    removals are audited — with no other file touched."""

    @stage("shout", order=44, removes=True)
    def shout(doc: Document, ctx) -> Document:
        """Lines written in capitals."""
        text = doc.view.text
        start = text.find("LOUD LINE")
        return doc.apply("shout", [Change(start, start + 9, "shouting")] if start >= 0 else [])

    try:
        assert "shout" in cleaning_stages()
        doc = clean("谷歌发布了新的模型。\nLOUD LINE\n训练和推理的效率都有提升。")
        assert [e.stage for e in doc.edits] == ["shout"]
        assert "LOUD LINE" not in doc.view.text
        audit = render_markdown(doc, {"backend": "none", "model": None})
        assert "shout (shouting): LOUD LINE" in audit
        from pipeline.settings import Settings

        assert "LOUD LINE" in clean("LOUD LINE\n", Settings(keep=("shout",))).view.text
    finally:
        _STAGES.pop("shout")


def test_audit_counts_readings_and_lists_broken_fragments():
    doc = clean("發(fā)展(zhǎn)很快，?qū)大模型也是。\n谷歌的研究人員發布了新的大語言模型。")
    kinds = {(e.stage, e.kind) for e in doc.edits}
    assert ("pinyin", "reading") in kinds
    audit = render_markdown(doc, {"backend": "none", "model": None})
    assert "pinyin: 2 × reading removed" in audit
    assert "(fā)" not in audit.split("</summary>")[1]  # readings are counted, not listed
    assert "pinyin (broken annotation)" in audit


def test_gloss_label_comes_from_the_description():
    doc = clean("谷歌发布了新的模型。\n训练和推理的效率都有提升。")
    plain = render_markdown(doc, {"backend": "marian", "model": "m"})
    labeled = render_markdown(doc, {"backend": "x", "model": "m", "label": "crib", "note": "N"})
    assert "(crib)" not in plain
    assert "*English lines marked (crib) are a N.*" in labeled


def test_documents_without_chinese_are_marked_by_a_field():
    doc = clean("Only English here.\nNothing to translate.")
    assert doc.no_chinese
    assert not clean("谷歌发布了新的模型。").no_chinese
    assert not make_doc("x").no_chinese


def test_the_readme_lists_every_stage_and_translator():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    keep_row = next(line for line in readme.splitlines() if line.startswith("| `--keep STAGE`"))
    for name in cleaning_stages():
        assert f"`{name}`" in keep_row
    translator_row = next(
        line for line in readme.splitlines() if line.startswith("| `--translator`")
    )
    for name in translators():
        assert f"`{name}`" in translator_row
