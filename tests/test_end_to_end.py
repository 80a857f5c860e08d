"""`python -m pipeline run` on the seed articles: the output contract, ids, determinism, exits."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import resources

import hanzidentifier
import jsonschema
import pytest
import yaml

import pipeline.runner as pipeline_runner
from pipeline.read import read_document
from pipeline.stages.convert import to_simplified
from tests.conftest import INPUT, ROOT, SEEDS, load_json, run_cli

STEMS = [p.stem for p in SEEDS]


@pytest.fixture(scope="module")
def schema() -> dict:
    text = resources.files("pipeline.schema").joinpath("document.schema.json").read_text()
    return json.loads(text)


def test_writes_md_json_and_index(seed_output):
    for stem in STEMS:
        assert (seed_output / f"{stem}.md").is_file()
        assert (seed_output / f"{stem}.json").is_file()
    assert (seed_output / "index.md").is_file()


@pytest.mark.parametrize("stem", STEMS)
def test_json_validates_against_the_shipped_schema(seed_output, schema, stem):
    jsonschema.validate(load_json(seed_output / f"{stem}.json"), schema)


@pytest.mark.parametrize("stem", STEMS)
def test_sentence_zh_is_the_converted_kept_text_of_its_span(seed_output, stem):
    data = load_json(seed_output / f"{stem}.json")
    original = read_document(INPUT / f"{stem}.txt").original
    assert data["source"]["chars"] == len(original)
    removed = sorted((r["start"], r["end"]) for r in data["removed"])
    for p in data["blocks"]:
        for s in p["sentences"]:
            span = original[s["start"] : s["end"]]
            kept = "".join(
                ch
                for i, ch in enumerate(span, start=s["start"])
                if not any(a <= i < b for a, b in removed)
            )
            assert to_simplified(kept) == s["zh"]
            assert p["start"] <= s["start"] < s["end"] <= p["end"]


@pytest.mark.parametrize("stem", STEMS)
def test_ids_are_unique_and_the_same_in_md_and_json(seed_output, stem):
    data = load_json(seed_output / f"{stem}.json")
    ids = [p["id"] for p in data["blocks"]]
    ids += [s["id"] for p in data["blocks"] for s in p["sentences"]]
    assert len(ids) == len(set(ids))
    md = (seed_output / f"{stem}.md").read_text(encoding="utf-8")
    anchors = re.findall(r'<a id="([^"]+)"></a>', md)
    assert anchors == [p["id"] for p in data["blocks"]]


def test_sentence_layout_anchors_every_sentence(tmp_path, seed_output):
    assert run_cli(SEEDS[0], "-o", tmp_path, "--translator", "none", "--layout", "sentence") == 0
    data = load_json(tmp_path / f"{SEEDS[0].stem}.json")
    md = (tmp_path / f"{SEEDS[0].stem}.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', md))
    sentence_ids = {s["id"] for p in data["blocks"] for s in p["sentences"]}
    assert sentence_ids <= anchors


@pytest.mark.parametrize("stem", STEMS)
def test_no_traditional_only_character_in_any_zh(seed_output, stem):
    data = load_json(seed_output / f"{stem}.json")
    for p in data["blocks"]:
        for s in p["sentences"]:
            bad = [
                c
                for c in s["zh"]
                if hanzidentifier.is_traditional(c) and not hanzidentifier.is_simplified(c)
            ]
            assert bad == [], s["zh"]


@pytest.mark.parametrize("stem", STEMS)
def test_front_matter_parses_and_counts_match(seed_output, stem):
    md = (seed_output / f"{stem}.md").read_text(encoding="utf-8")
    assert md.startswith("---\n")
    meta = yaml.safe_load(md.split("---\n")[1])
    data = load_json(seed_output / f"{stem}.json")
    ours = meta["pipeline"]  # one key of our own: no theme mistakes ours for its own
    assert set(meta) == {"title", "description", "pipeline"}
    assert ours["blocks"] == len(data["blocks"])
    assert ours["sentences"] == sum(len(p["sentences"]) for p in data["blocks"])
    assert ours["source_sha256"] == data["source"]["sha256"]
    if data["title"]:
        assert meta["title"] == data["title"]["zh"]
    else:  # seed 000 opens with a sentence, not a title: the page is named by its file
        assert meta["title"] == data["source"]["path"]
    assert ours["generated_by"].startswith("pipeline ")
    edits = data["removed"] + data.get("repaired", [])
    audited = [e for e in edits if e.get("kind") != "line-ending"]
    assert sum(ours["removals"].values()) == len(audited)


def test_two_runs_are_byte_identical(tmp_path, seed_output):
    assert run_cli(INPUT, "-o", tmp_path, "--translator", "none", "--quiet") == 0
    for path in seed_output.iterdir():
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_no_temporary_files_left_behind(seed_output):
    assert [p.name for p in seed_output.iterdir() if p.name.startswith(".")] == []


def test_inputs_are_never_modified(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    article = src / "a.txt"
    article.write_bytes(SEEDS[1].read_bytes())
    before = article.stat().st_mtime_ns, article.read_bytes()
    assert run_cli(src, "-o", tmp_path / "out", "--translator", "none", "-q") == 0
    assert (article.stat().st_mtime_ns, article.read_bytes()) == before


def test_missing_input_fails_with_exit_1_but_others_are_written(tmp_path, capsys):
    code = run_cli(SEEDS[0], tmp_path / "nope.txt", "-o", tmp_path / "out", "--translator", "none")
    assert code == 1
    assert (tmp_path / "out" / f"{SEEDS[0].stem}.md").is_file()
    assert "nope.txt" in capsys.readouterr().err


def test_usage_error_exits_2():
    with pytest.raises(SystemExit) as exc:
        run_cli("input", "--layout", "poster")
    assert exc.value.code == 2


def test_help_explains_every_option():
    out = subprocess.run(
        [sys.executable, "-m", "pipeline", "run", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    for option in (
        "--output",
        "--translator",
        "--layout",
        "--user-dict",
        "--jobs",
        "--quiet",
        "--verbose",
        "--keep",
        "--spam-words",
        "example",
    ):
        assert option in out


@pytest.mark.parametrize("stem", STEMS)
def test_streamed_json_is_exactly_the_plain_dump(seed_output, stem, monkeypatch):
    """Pretty is byte for byte what json.dumps(indent=2) wrote before msgspec; compact is the
    same data. Small batches, so that items are split over several encoder calls."""
    from pipeline.context import Context
    from pipeline.prepare import prepare
    from pipeline.read import read_document
    from pipeline.write import json_doc

    monkeypatch.setattr(json_doc, "BATCH", 7)
    doc = prepare(read_document(INPUT / f"{stem}.txt"), Context())
    translator = {"backend": "none", "model": None, "revision": None}
    data = json_doc.document_to_dict(doc, translator, {"v": 1})
    plain = json.dumps(data, ensure_ascii=False, indent=2)
    pretty = b"".join(json_doc.json_chunks(doc, translator, {"v": 1}, pretty=True))
    assert pretty.decode("utf-8") == plain + "\n"
    compact = b"".join(json_doc.json_chunks(doc, translator, {"v": 1}))
    assert json.loads(compact) == json.loads(pretty) == json.loads(plain)
    assert compact == json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


@pytest.mark.parametrize("translator", ["none", "gloss"])
def test_index_reads_of_a_written_document_what_its_json_holds(tmp_path, translator):
    """The index takes what it reads of each document this run wrote from the document itself
    (write/documents.index_of), not from decoding its JSON again: the same values, with glossary
    terms and English (gloss), readings, repairs and code blocks (the fixtures)."""
    from bench.corpus import fixture_pages
    from pipeline.write.documents import index_document
    from pipeline.write.output import folder_documents

    inputs = tmp_path / "in"
    inputs.mkdir()
    for page in fixture_pages():
        (inputs / page.name).write_text(page.text, encoding="utf-8")
    written = {}
    real_write = pipeline_runner.write_document

    def keep(*args, **kwargs):
        entry = real_write(*args, **kwargs)
        written[entry[0]] = entry[1]
        return entry

    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline_runner, "write_document", keep)
        run_cli(inputs, "-o", out, "--translator", translator, "-q", "--jobs", "1")
    assert len(written) == len(list(inputs.iterdir()))
    for path, entry in written.items():
        assert entry.data == index_document(path.read_bytes()), path.name
    assert folder_documents(out, written) == folder_documents(out)
    first, second = list(written)[:2]
    first.write_bytes(second.read_bytes())  # another file now: decoded, not taken as written
    assert folder_documents(out, written) == folder_documents(out)
