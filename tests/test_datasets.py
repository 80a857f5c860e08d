"""Datasets in and out (JSONL, JSONL.gz, Parquet), resumable shards, the Python API, --device."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pipeline
from pipeline.translate.base import TranslatorUnavailable
from pipeline.translate.engines import resolve_device
from pipeline.write.records import parquet_records
from tests.conftest import INPUT, ROOT, load_json, run_cli

SEEDS = sorted(INPUT.glob("*.txt"))


def seed_records(n: int, size: int = 1500) -> list[dict]:
    """`n` records cut from the seeds at different places, some with a title."""
    texts = [p.read_text(encoding="utf-8") for p in SEEDS]
    out = []
    for i in range(n):
        text = texts[i % len(texts)]
        start = (i * 997) % max(1, len(text) - size)
        record = {"id": f"r{i:05d}", "text": text[start : start + size]}
        if i % 3 == 0:
            record["title"] = f"第{i}篇：谷歌的模型"
        out.append(record)
    return out


def write_jsonl(path: Path, records: list[dict], compress: bool = False) -> Path:
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    if compress:
        path.write_bytes(gzip.compress(lines.encode("utf-8")))
    else:
        path.write_text(lines, encoding="utf-8")
    return path


def read_jsonl(folder: Path) -> list[dict]:
    return [
        json.loads(line)
        for shard in sorted(folder.glob("part-*.jsonl"))
        for line in shard.read_text(encoding="utf-8").splitlines()
    ]


def without_nulls(value):
    """Parquet has a column for every key: a key absent from JSON reads back as None."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def test_a_record_gives_the_same_document_as_the_same_text_in_a_file(tmp_path):
    text = SEEDS[1].read_text(encoding="utf-8")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "seed.txt").write_text(text, encoding="utf-8")
    write_jsonl(tmp_path / "pages.jsonl", [{"id": "seed", "text": text}])
    assert run_cli(tmp_path / "in", "-o", tmp_path / "files", "--translator", "none", "-q") == 0
    args = ["--translator", "none", "-q", "--id-field", "id"]
    assert run_cli(tmp_path / "pages.jsonl", "-o", tmp_path / "data", *args) == 0
    from_file = load_json(tmp_path / "files" / "seed.json")
    (record,) = read_jsonl(tmp_path / "data" / "pages")
    assert record["id"] == "seed" and record["source"]["path"] == "pages#seed"
    for key in ("blocks", "removed", "repaired", "title"):
        assert record[key] == from_file[key], key


def test_parquet_out_holds_the_same_records_as_jsonl_out(tmp_path):
    records = seed_records(7)
    src = write_jsonl(tmp_path / "pages.jsonl", records)
    args = ["--translator", "gloss", "-q", "--id-field", "id", "--title-field", "title"]
    args += ["--shard-size", "3", "--no-cache"]
    assert run_cli(src, "-o", tmp_path / "j", *args) == 0
    assert run_cli(src, "-o", tmp_path / "p", *args, "--format", "parquet") == 0
    as_jsonl = read_jsonl(tmp_path / "j" / "pages")
    shards = sorted((tmp_path / "p" / "pages").glob("part-*.parquet"))
    assert [s.name for s in shards] == [
        "part-00000.parquet",
        "part-00001.parquet",
        "part-00002.parquet",
    ]
    as_parquet = [r for s in shards for r in parquet_records(s)]
    assert [r["id"] for r in as_jsonl] == [r["id"] for r in records]
    for r in as_jsonl + as_parquet:
        r.pop("pipeline")  # the fingerprint names the output format
    assert without_nulls(as_parquet) == without_nulls(as_jsonl)
    titled = as_jsonl[0]
    assert titled["title"]["zh"] == "第0篇：谷歌的模型" and titled["blocks"][0]["kind"] == "heading"


def test_parquet_and_gzipped_jsonl_inputs_with_other_field_names(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"key": f"k{i}", "content": r["text"]} for i, r in enumerate(seed_records(4))]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "a.parquet")
    write_jsonl(tmp_path / "b.jsonl.gz", rows, compress=True)
    args = ["--translator", "none", "-q", "--text-field", "content", "--id-field", "key"]
    assert (
        run_cli(tmp_path / "a.parquet", tmp_path / "b.jsonl.gz", "-o", tmp_path / "o", *args) == 0
    )
    from_parquet = [
        r for s in sorted((tmp_path / "o" / "a").glob("*.parquet")) for r in parquet_records(s)
    ]
    from_gz = read_jsonl(tmp_path / "o" / "b")  # a dataset is written in its own format
    assert [r["id"] for r in from_parquet] == [r["id"] for r in from_gz] == ["k0", "k1", "k2", "k3"]
    assert without_nulls(from_parquet)[0]["blocks"] == without_nulls(from_gz)[0]["blocks"]


def test_bad_records_are_named_and_the_rest_is_written(tmp_path, capsys):
    src = tmp_path / "pages.jsonl"
    good = seed_records(2)
    src.write_text(
        json.dumps(good[0], ensure_ascii=False)
        + "\n"
        + '{"id": "x", "body": "没有文本字段"}\n'
        + "{not json\n"
        + '{"id": "y", "text": 42}\n'
        + json.dumps(good[1], ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )
    assert run_cli(src, "-o", tmp_path / "o", "--translator", "none", "--id-field", "id") == 1
    err = capsys.readouterr().err
    problems = [(2, "no 'text' field"), (3, "invalid JSON"), (4, "'text' is a int, not text")]
    for number, problem in problems:
        assert f"pages.jsonl record {number}: {problem}" in err
    assert [r["id"] for r in read_jsonl(tmp_path / "o" / "pages")] == ["r00000", "r00001"]


def test_finished_shards_are_skipped_and_a_changed_record_redoes_only_its_shard(tmp_path):
    records = seed_records(6)
    src = write_jsonl(tmp_path / "pages.jsonl", records)
    args = ["--translator", "none", "-q", "--id-field", "id", "--shard-size", "2"]
    assert run_cli(src, "-o", tmp_path / "o", *args) == 0
    shards = sorted((tmp_path / "o" / "pages").glob("part-*.jsonl"))
    stamps = {s.name: s.stat().st_mtime_ns for s in shards}
    records[3]["text"] += "新加的一句话。"
    write_jsonl(src, records)
    assert run_cli(src, "-o", tmp_path / "o", *args) == 0
    changed = {s.name for s in shards if s.stat().st_mtime_ns != stamps[s.name]}
    assert changed == {"part-00001.jsonl"}
    assert "新加的一句话" in json.dumps(read_jsonl(tmp_path / "o" / "pages")[3], ensure_ascii=False)
    write_jsonl(src, records[:3])  # a shorter dataset: no stale shard is left behind
    assert run_cli(src, "-o", tmp_path / "o", *args) == 0
    assert len(read_jsonl(tmp_path / "o" / "pages")) == 3


@pytest.mark.slow
def test_kill_9_then_resume_redoes_no_finished_shard(tmp_path):
    src = write_jsonl(tmp_path / "pages.jsonl", seed_records(240, size=800))
    out = tmp_path / "o"
    command = [sys.executable, "-m", "pipeline", "run", str(src), "-o", str(out)]
    command += [
        "--translator",
        "none",
        "-q",
        "--id-field",
        "id",
        "--shard-size",
        "20",
        "--jobs",
        "1",
    ]
    manifest = out / "pages" / "_manifest.json"
    proc = subprocess.Popen(command, cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if manifest.is_file() and len(json.loads(manifest.read_text())["shards"]) >= 2:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    finished = json.loads(manifest.read_text())["shards"]
    assert 2 <= len(finished) < 12, "the run must be killed midway"
    stamps = {name: (out / "pages" / name).stat().st_mtime_ns for name in finished}
    assert subprocess.run(command, cwd=ROOT).returncode == 0
    for name, stamp in stamps.items():
        assert (out / "pages" / name).stat().st_mtime_ns == stamp, f"{name} was redone"
    fresh = tmp_path / "fresh"
    assert subprocess.run([*command[:6], str(fresh), *command[7:]], cwd=ROOT).returncode == 0
    for shard in sorted((fresh / "pages").glob("part-*.jsonl")):
        assert (out / "pages" / shard.name).read_bytes() == shard.read_bytes(), shard.name
    assert not list(out.rglob("*.tmp"))


def test_python_api_process_text_and_records():
    doc = pipeline.process_text("讓(rang)大(da)模(mo)型(xing)更快。\n新智元報道", translator="none")
    assert [b.zh for b in doc.blocks] == ["让大模型更快。", "新智元报道"]
    assert all(e.stage == "pinyin" for e in doc.edits)
    records = [{"id": "a", "text": "谷歌發布了新模型。"}, "第二篇文章。", {"id": "c"}]
    out = list(pipeline.process(records, translator="gloss", id_field="id"))
    assert [r["id"] for r in out] == ["a", "records:2", "c"]
    assert out[0]["blocks"][0]["zh"] == "谷歌发布了新模型。" and out[0]["blocks"][0]["en"]
    assert out[0]["translator"]["backend"] == "gloss"
    assert out[2] == {"id": "c", "error": "no 'text' field (set --text-field)"}
    settings = pipeline.build_settings({"keep": ["pinyin"]})
    kept = pipeline.process_text("發(fā)展", settings, translator="none")
    assert "(fā)" in kept.blocks[0].zh or "(fa)" in kept.blocks[0].zh


def test_device_selection():
    assert resolve_device("auto", visible=0) == "cpu"
    assert resolve_device("auto", visible=2) == "cuda"
    assert resolve_device("cpu", visible=2) == "cpu"
    assert resolve_device("cuda", visible=1) == "cuda"
    with pytest.raises(TranslatorUnavailable, match="no CUDA device"):
        resolve_device("cuda", visible=0)


def test_device_cuda_without_a_gpu_is_a_usage_error(tiny_model, tmp_path, capsys):
    page = tmp_path / "a.txt"
    page.write_text("谷歌发布了新模型。", encoding="utf-8")
    args = ["--translator", "marian", "--model", tiny_model, "--device", "cuda", "--no-cache"]
    assert run_cli(page, "-o", tmp_path / "o", *args) == 2
    assert "no CUDA device" in capsys.readouterr().err


def test_the_cpu_path_says_where_it_ran(tiny_model, tmp_path):
    page = tmp_path / "a.txt"
    page.write_text("谷歌发布了新模型。", encoding="utf-8")
    args = ["--translator", "marian", "--model", tiny_model, "--device", "auto", "--no-cache"]
    assert run_cli(page, "-o", tmp_path / "o", *args) == 0
    assert load_json(tmp_path / "o" / "a.json")["translator"]["device"] == "cpu"


def test_a_dataset_as_markdown_one_pair_per_record_skipped_when_unchanged(tmp_path, capsys):
    src = write_jsonl(tmp_path / "pages.jsonl", seed_records(3))
    args = [src, "-o", tmp_path / "o", "--format", "md", "--translator", "none", "--id-field", "id"]
    assert run_cli(*args) == 0
    names = sorted(p.name for p in (tmp_path / "o" / "pages").iterdir())
    assert names == [f"r0000{i}.{ext}" for i in range(3) for ext in ("json", "md")]
    capsys.readouterr()
    assert run_cli(*args) == 0
    assert "0 document(s) written" in capsys.readouterr().err


def test_a_metadata_jsonl_beside_the_pages_is_one_error_and_the_pages_are_written(
    tmp_path, capsys
):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "doc01.txt").write_text("研究人员发布了新的模型。\n", encoding="utf-8")
    labels = [{"doc": "doc01.txt", "lines": [{"n": 1, "label": "content"}]}] * 3
    write_jsonl(pages / "labels.jsonl", labels)
    assert run_cli(pages, "-o", tmp_path / "o", "--translator", "none") == 1
    err = capsys.readouterr().err
    assert "labels.jsonl: its first record has no 'text' field" in err
    assert "1 failed" in err and "record 2" not in err  # one error for the file
    assert (tmp_path / "o" / "doc01.json").exists()
