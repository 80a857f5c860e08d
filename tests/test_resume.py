"""A run killed mid-way loses nothing: re-running finishes the rest and recomputes nothing."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

from pipeline.translate.cache import TranslationCache
from tests.conftest import ROOT, SEEDS, run_cli

N_DOCS = 30


def make_inputs(directory):
    lines = [ln for ln in SEEDS[0].read_text(encoding="utf-8").splitlines() if ln.strip()]
    for i in range(N_DOCS):
        text = "\n\n".join(f"{line}（第{i}篇）" for line in lines)
        (directory / f"doc{i:02d}.txt").write_text(text, encoding="utf-8")


def cache_keys(cache_dir) -> set[str]:
    with sqlite3.connect(cache_dir / "translations.sqlite3") as db:
        return {row[0] for row in db.execute("SELECT key FROM translations")}


def test_kill_and_resume(tmp_path, tiny_model, monkeypatch):
    src, out, cache = tmp_path / "in", tmp_path / "out", tmp_path / "cache"
    src.mkdir()
    make_inputs(src)
    args = [
        str(src),
        "-o",
        str(out),
        "--translator",
        "marian",
        "--model",
        str(tiny_model),
        "--cache-dir",
        str(cache),
        "--jobs",
        "1",
        "-q",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "run", *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ},
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list(out.glob("*.json"))) >= 1:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = {p.name: p.stat().st_mtime_ns for p in out.glob("*.json")}
    assert 0 < len(finished) < N_DOCS, "the kill should land mid-way"
    for name in finished:  # what was written is whole
        json.loads((out / name).read_text(encoding="utf-8"))
    cached_before = cache_keys(cache)
    assert cached_before  # the killed run had translated something

    recomputed: list[str] = []
    original_put = TranslationCache.put_many

    def recording_put(self, entries):
        recomputed.extend(self._key(source) for source in entries)
        return original_put(self, entries)

    monkeypatch.setattr(TranslationCache, "put_many", recording_put)
    assert run_cli(*args) == 0

    assert not set(recomputed) & cached_before, "a cached translation was computed again"
    jsons = sorted(out.glob("*.json"))
    docs_md = [p for p in out.glob("*.md") if p.name != "index.md"]
    assert len(jsons) == N_DOCS and len(docs_md) == N_DOCS
    for path in jsons:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert all(s["en"] for p in data["blocks"] for s in p["sentences"])
        if path.name in finished:
            assert path.stat().st_mtime_ns == finished[path.name], f"{path.name} was redone"
    assert not list(out.rglob(".*.tmp"))
