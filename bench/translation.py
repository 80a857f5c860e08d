"""Marian translation speed on a random-weight model of opus-mt-zh-en's exact architecture.

Speed does not depend on the weights, which cannot be downloaded here. Every configuration
generates exactly `OUTPUT_TOKENS` tokens per sentence (min_new_tokens = max_new_tokens), so
they do the same work. The baseline, in the same run, is a naive per-sentence `generate` loop.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.common import ROOT, timed

OUTPUT_TOKENS = 40


def _sentences(n: int) -> list[str]:
    from pipeline.read import read_document
    from pipeline.runner import prepare
    from pipeline.settings import Settings

    out: list[str] = []
    for path in sorted((ROOT / "input").glob("*.txt")):
        doc = prepare(read_document(path), Settings())
        out += [s.zh for p in doc.paragraphs for s in p.sentences if len(s.zh) >= 15]
    return out[:n]


def _naive_loop(model, tokenizer, sentences: list[str], beams: int) -> list[str]:
    import torch

    results = []
    for sentence in sentences:
        inputs = tokenizer([sentence], return_tensors="pt")
        with torch.inference_mode():
            out = model.generate(
                **inputs,
                num_beams=beams,
                max_new_tokens=OUTPUT_TOKENS,
                min_new_tokens=OUTPUT_TOKENS,
            )
        results += tokenizer.batch_decode(out, skip_special_tokens=True)
    return results


def run(n_sentences: int = 32, batches: tuple[int, ...] = (1, 8, 32)) -> list[dict]:
    from pipeline.translate.marian import MarianTranslator
    from pipeline.translate.random_model import OPUS_MT_ZH_EN, build_random_marian

    sentences = _sentences(n_sentences)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = build_random_marian(
            Path(tmp) / "opus-mt-zh-en-random",
            _sentences(400),
            architecture=OPUS_MT_ZH_EN,
            generation={"min_new_tokens": OUTPUT_TOKENS},
        )
        for beams in (1, 4):
            translator = MarianTranslator(
                str(model_dir), beams=beams, max_new_tokens=OUTPUT_TOKENS, progress=False
            )
            translator.translate(sentences[:2])  # warm-up
            base_s, _ = timed(
                lambda t=translator, b=beams: _naive_loop(t.model, t.tokenizer, sentences, b)
            )
            rows.append(_row("naive loop (baseline)", beams, 1, len(sentences), base_s, base_s))
            for batch in batches:
                translator.max_batch = batch
                seconds, _ = timed(lambda t=translator: t.translate(sentences))
                rows.append(_row("pipeline", beams, batch, len(sentences), seconds, base_s))
    return rows


def _row(name: str, beams: int, batch: int, n: int, seconds: float, baseline_s: float) -> dict:
    return {
        "engine": name,
        "decoding": "greedy" if beams == 1 else f"beam {beams}",
        "batch": batch,
        "sentences": n,
        "seconds": round(seconds, 2),
        "sentences_per_s": round(n / seconds, 2),
        "tokens_per_s": round(n * OUTPUT_TOKENS / seconds, 1),
        "vs_baseline": round(baseline_s / seconds, 2),
    }
