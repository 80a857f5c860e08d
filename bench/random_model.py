"""Build a random-weight Marian model directory that loads like a real one.

Model weights cannot be downloaded on our machines, so tests and benchmarks prove the Marian
path with a model made here: a sentencepiece model trained on the given sentences
(`source.spm`, `target.spm`), `vocab.json`, `tokenizer_config.json`, a `MarianConfig`, and
random weights, saved with `save_pretrained` and loaded back by the same `from_pretrained` code a
user's real model goes through. Its translations are noise; its shapes and code path are real.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

# opus-mt-zh-en's architecture (for speed measurements).
OPUS_MT_ZH_EN = {
    "vocab_size": 65001,
    "d_model": 512,
    "encoder_layers": 6,
    "decoder_layers": 6,
    "encoder_attention_heads": 8,
    "decoder_attention_heads": 8,
    "encoder_ffn_dim": 2048,
    "decoder_ffn_dim": 2048,
}
TINY = {
    "d_model": 32,
    "encoder_layers": 1,
    "decoder_layers": 1,
    "encoder_attention_heads": 2,
    "decoder_attention_heads": 2,
    "encoder_ffn_dim": 64,
    "decoder_ffn_dim": 64,
}
_ENGLISH = [
    "The model is trained on a large data set and evaluated on several benchmarks.",
    "Google released a new system for machine learning research this year.",
    "Efficient training and inference make large language models practical.",
    "The results show that the method improves accuracy while reducing cost.",
]


def _train_spm(lines: list[str], vocab_size: int) -> bytes:
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        vocab_size=vocab_size,
        character_coverage=0.9995,
        model_type="unigram",
        hard_vocab_limit=False,
        minloglevel=2,
    )
    return model.getvalue()


def _pieces(spm_bytes: bytes) -> list[str]:
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor(model_proto=spm_bytes)
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size())]


def build_random_marian(
    directory: Path,
    sentences: list[str],
    architecture: dict | None = None,
    spm_vocab_size: int = 1500,
    seed: int = 0,
    generation: dict | None = None,
) -> Path:
    """Write a loadable random Marian model to `directory` and return it."""
    import torch
    from transformers import GenerationConfig, MarianConfig, MarianMTModel

    directory.mkdir(parents=True, exist_ok=True)
    source = _train_spm(sentences, spm_vocab_size)
    target = _train_spm(_ENGLISH * 4 + sentences, spm_vocab_size)
    (directory / "source.spm").write_bytes(source)
    (directory / "target.spm").write_bytes(target)

    vocab = {"</s>": 0, "<unk>": 1}
    for piece in _pieces(source) + _pieces(target):
        if piece not in vocab and piece not in ("<s>", "<pad>"):
            vocab[piece] = len(vocab)
    arch = {**TINY, **(architecture or {})}
    vocab_size = max(arch.pop("vocab_size", 0), len(vocab) + 1)
    # A full-size vocabulary: every id the model can emit must decode to a piece.
    while len(vocab) < vocab_size - 1:
        vocab[f"\u2581w{len(vocab)}"] = len(vocab)
    vocab["<pad>"] = vocab_size - 1
    (directory / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tokenizer_config = {"source_lang": "zh", "target_lang": "en", "model_max_length": 512}
    (directory / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))

    config = MarianConfig(
        vocab_size=vocab_size,
        pad_token_id=vocab_size - 1,
        decoder_start_token_id=vocab_size - 1,
        eos_token_id=0,
        max_position_embeddings=512,
        share_encoder_decoder_embeddings=True,
        **arch,
    )
    torch.manual_seed(seed)
    model = MarianMTModel(config)
    model.generation_config = GenerationConfig(
        decoder_start_token_id=vocab_size - 1,
        pad_token_id=vocab_size - 1,
        eos_token_id=0,
        bad_words_ids=[[vocab_size - 1]],
        max_length=512,
        num_beams=(generation or {}).get("num_beams", 4),
        **{k: v for k, v in (generation or {}).items() if k != "num_beams"},
    )
    model.save_pretrained(directory)
    return directory
