"""One translation configuration, timed in its own process (so its peak RSS is its own).

`python -m bench.translation_worker CONFIG_JSON` prints one JSON line of results.
"""

from __future__ import annotations

import json
import sys
import time

from bench.common import peak_rss_mb

OUTPUT_TOKENS = 40


def naive_loop(model_dir: str, sentences: list[str], beams: int) -> float:
    """Plain transformers: one generate call per sentence."""
    import torch
    from transformers import MarianMTModel, MarianTokenizer

    torch.set_num_threads(2)
    tokenizer = MarianTokenizer.from_pretrained(model_dir)
    model = MarianMTModel.from_pretrained(model_dir).eval()
    t0 = time.perf_counter()
    for sentence in sentences:
        inputs = tokenizer([sentence], return_tensors="pt")
        with torch.inference_mode():
            out = model.generate(
                **inputs,
                num_beams=beams,
                max_new_tokens=OUTPUT_TOKENS,
                min_new_tokens=OUTPUT_TOKENS,
            )
        tokenizer.batch_decode(out, skip_special_tokens=True)
    return time.perf_counter() - t0


def pipeline_engine(config: dict, sentences: list[str]) -> float:
    from unittest import mock

    from pipeline.translate.marian import MarianTranslator

    # A random model's output loops, so the greedy retry would redo nearly every sentence and
    # mix greedy work into every configuration: time the stated decoding alone.
    mock.patch("pipeline.translate.marian.is_bad_output", lambda text: False).start()

    translator = MarianTranslator(
        config["model_dir"],
        beams=config["beams"],
        max_new_tokens=OUTPUT_TOKENS,
        engine=config["engine"],
        compute_type=config.get("compute_type", "int8"),
        threads=tuple(config["threads"]) if config.get("threads") else None,
        max_batch=config["batch"],
        progress=False,
    )
    translator.translate(sentences[:2])  # warm-up
    t0 = time.perf_counter()
    translator.translate(sentences)
    return time.perf_counter() - t0


def main() -> None:
    config = json.loads(sys.argv[1])
    sentences = config["sentences"]
    if config["engine"] == "naive":
        seconds = naive_loop(config["model_dir"], sentences, config["beams"])
    else:
        seconds = pipeline_engine(config, sentences)
    print(json.dumps({"seconds": seconds, "peak_rss_mb": peak_rss_mb()}))


if __name__ == "__main__":
    main()
