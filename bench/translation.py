"""Marian translation speed on a random-weight model of opus-mt-zh-en's exact architecture.

Speed does not depend on the weights, which cannot be downloaded here. Every configuration
generates exactly 40 tokens per sentence (min = max new tokens), so they all do the same work,
and each runs in its own process, so its peak RSS is its own. Ratios are against plain
transformers fp32 with the same batch size and decoding, measured in the same run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ROOT
from bench.translation_worker import OUTPUT_TOKENS

# (label, engine, compute_type, threads, batch, beams)
CONFIGS = [
    ("naive generate loop", "naive", None, None, 1, 1),
    ("transformers fp32", "transformers", "fp32", None, 1, 1),
    ("transformers fp32", "transformers", "fp32", None, 8, 1),
    ("transformers fp32", "transformers", "fp32", None, 32, 1),
    ("transformers fp32", "transformers", "fp32", None, 32, 4),
    ("transformers dynamic int8", "transformers", "int8-dynamic", None, 32, 1),
    ("transformers dynamic int8", "transformers", "int8-dynamic", None, 32, 4),
    ("ctranslate2 int8 1x2 threads", "ctranslate2", "int8", (1, 2), 32, 1),
    ("ctranslate2 int8 2x1 threads", "ctranslate2", "int8", (2, 1), 8, 1),
    ("ctranslate2 int8 2x1 threads", "ctranslate2", "int8", (2, 1), 32, 1),
    ("ctranslate2 int8 2x1 threads", "ctranslate2", "int8", (2, 1), 32, 4),
]


def _sentences(n: int) -> list[str]:
    from pipeline.context import Context
    from pipeline.prepare import prepare
    from pipeline.read import read_document

    out: list[str] = []
    for path in sorted((ROOT / "input").glob("*.txt")):
        doc = prepare(read_document(path), Context())
        out += [s.zh for p in doc.blocks for s in p.sentences if len(s.zh) >= 15]
    return out[:n]


def _worker(config: dict) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "bench.translation_worker", json.dumps(config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def _startup(model_dir: Path, engine: str, out: Path) -> dict:
    """Seconds from command to first batch translated and to first document written."""
    cmd = [
        sys.executable,
        "-m",
        "pipeline",
        "run",
        "input/",
        "-o",
        str(out),
        "--translator",
        "marian",
        "--model",
        str(model_dir),
        "--engine",
        engine,
        "--max-new-tokens",
        str(OUTPUT_TOKENS),
        "--no-cache",
        "--force",
        "--jobs",
        "1",
        "-v",
    ]
    t0 = time.perf_counter()
    marks: dict[str, float] = {}
    with subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True) as proc:
        for line in proc.stderr:
            now = time.perf_counter() - t0
            if "first batch translated" in line:
                marks.setdefault("first_sentence_s", round(now, 1))
            if re.search(r"DEBUG wrote ", line):
                marks.setdefault("first_document_s", round(now, 1))
    marks["total_s"] = round(time.perf_counter() - t0, 1)
    return {"engine": engine, **marks}


def run(n_sentences: int = 128) -> dict:
    from bench.random_model import OPUS_MT_ZH_EN, build_random_marian
    from pipeline.translate.marian import MarianTranslator

    sentences = _sentences(n_sentences)
    rows, startup = [], []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HF_HOME"] = str(Path(tmp) / "hf")  # converted models go here, then away
        model_dir = build_random_marian(
            Path(tmp) / "opus-mt-zh-en-random",
            _sentences(400),
            architecture=OPUS_MT_ZH_EN,
            generation={"min_new_tokens": OUTPUT_TOKENS},
        )
        translator = MarianTranslator(str(model_dir), engine="ctranslate2")  # convert once
        waste = translator.padding_waste(_sentences(10_000))
        baseline: dict[tuple[int, int], float] = {}
        for label, engine, compute, threads, batch, beams in CONFIGS:
            config = {
                "model_dir": str(model_dir),
                "engine": engine,
                "compute_type": compute,
                "threads": threads,
                "batch": batch,
                "beams": beams,
                "sentences": sentences,
            }
            result = _worker(config)
            speed = len(sentences) / result["seconds"]
            if label == "transformers fp32":
                baseline[(batch, beams)] = speed
            base = baseline.get((batch, beams))
            rows.append(
                {
                    "engine": label,
                    "decoding": "greedy" if beams == 1 else f"beam {beams}",
                    "batch": batch,
                    "sentences_per_s": round(speed, 2),
                    "tokens_per_s": round(speed * OUTPUT_TOKENS),
                    "vs_transformers_fp32": round(speed / base, 2) if base else "-",
                    "peak_rss_mb": result["peak_rss_mb"],
                }
            )
        for engine in ("transformers", "ctranslate2"):
            startup.append(_startup(model_dir, engine, Path(tmp) / f"out-{engine}"))
    return {"throughput": rows, "padding_waste": round(waste, 3), "startup": startup}
