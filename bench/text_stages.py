"""Throughput of every text stage on the samples replicated to ~5 MB, one core.

Where a stage uses a faster drop-in or a faster technique, its baseline is timed in the same
run on the same text: jieba (and jieba-fast, the segmenter before, when installed) for the
segmenter (rjieba inside jieba's rules), `str.translate` + `lower` for the numpy character map,
and the whole text stages with the cyclic garbage collector left running.
"""

from __future__ import annotations

import contextlib
import logging
from importlib import resources
from importlib.util import find_spec
from unittest import mock

from bench.common import sample_text, timed
from pipeline.context import Context
from pipeline.document import Document, Source
from pipeline.prepare import clean_document, prepare
from pipeline.registry import stages
from pipeline.settings import Settings
from pipeline.text import fold


def run(target_bytes: int = 5_000_000) -> list[dict]:
    text = sample_text(target_bytes)
    ctx = Context()
    # Dictionaries load and per-character caches fill once per process (a batch run pays this
    # on its first file): warm them on one copy of the samples before timing.
    warm = sample_text(1)
    prepare(_document(warm), ctx)

    rows = []

    def row(stage: str, seconds: float, baseline: tuple[str, float] | None = None) -> None:
        rows.append(_row(stage, seconds, text, baseline))

    doc = _document(text)
    cleaning = [s for s in stages() if s.removes]
    for spec in cleaning:
        seconds, doc = timed(lambda spec=spec, doc=doc: spec.run(doc, ctx))
        row(spec.name, seconds)
    seconds, _ = timed(lambda: clean_document(_document(text), ctx))
    rules_only = Context(Settings(keep=("classifier",)))
    rules_seconds, _ = timed(lambda: clean_document(_document(text), rules_only))
    row("cleaning (all rounds)", seconds, ("rules only (no classifier)", rules_seconds))
    row(
        "matching form: numpy map",
        timed(lambda: fold(text))[0],
        ("str.translate + lower", _translate_lower_seconds(text)),
    )
    others = {s.name: s for s in stages() if not s.removes}
    for name in ("split", "convert"):
        seconds, doc = timed(lambda name=name, doc=doc: others[name].run(doc, ctx))
        row(name, seconds)
    import jieba

    sentences = [s.zh for p in doc.blocks for s in p.sentences]
    ours = timed(lambda: [ctx.segmenter.cut(s) for s in sentences])[0]
    row("segmentation (rjieba + jieba's rules)", ours, ("jieba cut", _cut_seconds(jieba, doc)))
    if find_spec("jieba_fast"):  # the segmenter before rjieba, when still installed
        import jieba_fast

        row("segmentation, again", ours, ("jieba-fast cut (before)", _cut_seconds(jieba_fast, doc)))
    seconds, doc = timed(lambda: others["words"].run(doc, ctx))
    row("words stage", seconds)
    with mock.patch("pipeline.prepare.cyclic_gc_paused", contextlib.nullcontext):
        gc_running, _ = timed(lambda: prepare(_document(text), ctx))
    seconds, _ = timed(lambda: prepare(_document(text), ctx))
    row("end-to-end text stages", seconds, ("cyclic GC running", gc_running))
    return rows


def _document(text: str) -> Document:
    return Document(text, Source("bench", "", "utf-8", len(text)))


def _translate_lower_seconds(text: str) -> float:
    """The matching form as str.translate with a dict, then lower(), as before the numpy map."""
    from pipeline.text import _simplified_pairs

    table = {trad: chr(simp) for trad, simp in _simplified_pairs()}
    return timed(lambda: text.translate(table).lower())[0]


def _cut_seconds(module, doc: Document) -> float:
    """Segmenting every sentence with `module` (jieba, the baseline, or jieba-fast)."""
    module.setLogLevel(logging.WARNING)
    tok = module.Tokenizer()
    with resources.as_file(resources.files("pipeline.data") / "userdict.txt") as path:
        tok.load_userdict(str(path))
    tok.initialize()
    sentences = [s.zh for p in doc.blocks for s in p.sentences]
    seconds, _ = timed(lambda: [list(tok.cut(s, HMM=True)) for s in sentences])
    return seconds


def _row(stage: str, seconds: float, text: str, baseline: tuple[str, float] | None) -> dict:
    mb = len(text.encode("utf-8")) / 1e6
    out = {
        "stage": stage,
        "seconds": round(seconds, 3),
        "chars_per_s": round(len(text) / seconds),
        "mb_per_s": round(mb / seconds, 2),
    }
    if baseline:
        name, base_seconds = baseline
        out |= {
            "baseline": name,
            "baseline_mb_per_s": round(mb / base_seconds, 2),
            "vs_baseline": round(base_seconds / seconds, 2),
        }
    return out
