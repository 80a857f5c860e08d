"""Throughput of every text stage on the samples replicated to ~5 MB."""

from __future__ import annotations

from bench.common import sample_text, timed
from pipeline.document import Document, Source
from pipeline.runner import clean_document, prepare
from pipeline.settings import Settings
from pipeline.stages import CLEANING, convert, split, words
from pipeline.stages.words import tokenizer


def run(target_bytes: int = 5_000_000) -> list[dict]:
    text = sample_text(target_bytes)
    mb = len(text.encode("utf-8")) / 1e6
    settings = Settings()
    # Dictionaries load and per-character caches fill once per process (a batch run pays this
    # on its first file): warm them on one copy of the samples before timing.
    tokenizer().initialize()
    warm = sample_text(1)
    prepare(Document(warm, Source("warm-up", "", "utf-8", len(warm))), settings)

    rows = []
    doc = Document(text, Source("bench", "", "utf-8", len(text)))
    for name, stage in CLEANING:
        seconds, doc = timed(lambda stage=stage, doc=doc: stage(doc, settings))
        rows.append(_row(name, seconds, len(text), mb))
    seconds, _ = timed(lambda: clean_document(Document(text, doc.source), settings))
    rows.append(_row("cleaning (all rounds)", seconds, len(text), mb))
    for name, fn in (("split", split), ("convert", convert)):
        seconds, doc = timed(lambda fn=fn, doc=doc: fn(doc))
        rows.append(_row(name, seconds, len(text), mb))
    import jieba
    import jieba_fast

    baseline_s = _cut_seconds(jieba, doc)
    rows.append(_row("jieba cut (baseline)", baseline_s, len(text), mb))
    rows.append(_row("jieba-fast cut", _cut_seconds(jieba_fast, doc), len(text), mb, baseline_s))
    seconds, doc = timed(lambda: words(doc))
    rows.append(_row("segment stage (jieba-fast)", seconds, len(text), mb))
    fresh = Document(text, doc.source)
    seconds, _ = timed(lambda: prepare(fresh, settings))
    rows.append(_row("end-to-end text stages", seconds, len(text), mb))
    return rows


def _cut_seconds(module, doc: Document) -> float:
    """Segmenting every sentence with `module` (jieba, the baseline, or jieba-fast)."""
    import logging
    from importlib import resources

    module.setLogLevel(logging.WARNING)
    tok = module.Tokenizer()
    with resources.as_file(resources.files("pipeline.data") / "userdict.txt") as path:
        tok.load_userdict(str(path))
    tok.initialize()
    sentences = [s.zh for p in doc.paragraphs for s in p.sentences]
    seconds, _ = timed(lambda: [list(tok.cut(s, HMM=True)) for s in sentences])
    return seconds


def _row(stage: str, seconds: float, chars: int, mb: float, baseline_s: float | None = None):
    return {
        "stage": stage,
        "seconds": round(seconds, 3),
        "chars_per_s": round(chars / seconds),
        "mb_per_s": round(mb / seconds, 2),
        "vs_baseline": round(baseline_s / seconds, 2) if baseline_s else "-",
    }
