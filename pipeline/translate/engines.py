"""Inference engines for a Marian model: plain transformers (torch), or CTranslate2.

Both take the same model directory, count tokens the same way and turn batches of source texts
into English; MarianTranslator (marian.py) does everything around them — splitting, batching,
protected spans, retries, the cache — so the engines stay small and interchangeable.

CTranslate2 runs an int8 copy of the model, converted once from the transformers weights and
kept next to the Hugging Face cache (keyed by model id + revision). At run time it needs only
ctranslate2 and sentencepiece: torch and transformers are imported for the one-time conversion,
never for translating.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from pipeline.translate.base import TranslatorUnavailable

log = logging.getLogger(__name__)


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class Engine(Protocol):
    name: str
    model_max_length: int
    default_beams: int

    def describe(self) -> dict: ...

    def count_tokens(self, text: str) -> int: ...

    def generate(
        self,
        batches: list[list[str]],
        beams: int,
        max_new_tokens: Callable[[int], int],
        greedy_retry: bool = False,
        on_batch: Callable[[int], None] | None = None,
    ) -> list[list[str]]:
        """English for every batch; `max_new_tokens(longest_input_tokens)` caps each batch."""
        ...


def _generation_config(path: Path) -> dict:
    try:
        return json.loads((path / "generation_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def cuda_devices() -> int:
    """How many CUDA devices are visible (asked of CTranslate2, else torch; 0 without either)."""
    try:
        import ctranslate2

        return ctranslate2.get_cuda_device_count()
    except ImportError:
        pass
    try:
        import torch

        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    except ImportError:
        return 0


def resolve_device(requested: str, visible: int | None = None) -> str:
    """`auto` → `cuda` when a GPU is visible, else `cpu`; `cuda` without one is an error."""
    visible = cuda_devices() if visible is None else visible
    if requested == "cuda" and visible == 0:
        raise TranslatorUnavailable("--device cuda: no CUDA device is visible to this process")
    if requested == "auto":
        return "cuda" if visible > 0 else "cpu"
    return requested


# On a GPU: int8 weights with fp16 compute (CTranslate2), fp16 (torch).
GPU_COMPUTE_TYPE = {"ctranslate2": "int8_float16", "transformers": "fp16"}


class TransformersEngine:
    """MarianMTModel.generate in torch, fp32 (optionally dynamic int8 on nn.Linear), or fp16 on
    a GPU."""

    name = "transformers"

    def __init__(self, path: Path, quantize: bool = False, device: str = "cpu"):
        import torch
        from transformers import MarianMTModel, MarianTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        torch.set_num_threads(available_cores())
        try:
            self.tokenizer = MarianTokenizer.from_pretrained(path)
            self.model = MarianMTModel.from_pretrained(path).eval()
        except Exception as exc:
            raise TranslatorUnavailable(f"cannot load Marian model from {path}: {exc}") from exc
        self.device = device
        if device == "cuda":
            self.model = self.model.half().to("cuda")
            quantize = False  # dynamic int8 is a CPU kernel
        elif quantize:
            self.model = torch.ao.quantization.quantize_dynamic(
                self.model, {torch.nn.Linear}, dtype=torch.qint8
            )
        self.quantized = quantize
        self.model_max_length = self.tokenizer.model_max_length
        self.default_beams = self.model.generation_config.num_beams or 1

    def describe(self) -> dict:
        if self.device == "cuda":
            compute_type = GPU_COMPUTE_TYPE[self.name]
        else:
            compute_type = "int8-dynamic" if self.quantized else "fp32"
        return {"engine": self.name, "device": self.device, "compute_type": compute_type}

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text).input_ids)

    def _generate(self, texts: list[str], beams: int, cap: Callable[[int], int], greedy: bool):
        import torch

        inputs = self.tokenizer(texts, return_tensors="pt", padding=True).to(self.device)
        kwargs = {"max_new_tokens": cap(int(inputs["input_ids"].shape[1]))}
        if greedy:
            kwargs.update(num_beams=1, do_sample=False, no_repeat_ngram_size=3)
        else:
            kwargs["num_beams"] = beams
        with torch.inference_mode():
            output = self.model.generate(**inputs, **kwargs)
        return self.tokenizer.batch_decode(output, skip_special_tokens=True)

    def generate(self, batches, beams, max_new_tokens, greedy_retry=False, on_batch=None):
        results = []
        for batch in batches:
            results.append(self._generate(batch, beams, max_new_tokens, greedy_retry))
            if on_batch:
                on_batch(len(batch))
        return results


def converted_model_dir(model: str, revision: str | None, compute_type: str) -> Path:
    """Where the CTranslate2 copy of `model` lives: next to the Hugging Face cache."""
    from huggingface_hub import constants

    safe = re.sub(r"[^\w.-]+", "--", model.strip("/"))[-80:]
    name = f"{safe}--{revision or 'unknown'}--{compute_type}"
    return Path(constants.HF_HOME) / "ctranslate2" / name


def convert_to_ctranslate2(path: Path, target: Path, quantization: str) -> Path:
    """Convert a transformers Marian model once (this step imports torch + transformers)."""
    if (target / "model.bin").is_file():
        return target
    from ctranslate2.converters import TransformersConverter

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + f".tmp-{os.getpid()}")
    log.info("converting %s to CTranslate2 (%s), once", path, quantization)
    TransformersConverter(str(path)).convert(str(tmp), quantization=quantization, force=True)
    for name in ("source.spm", "target.spm", "generation_config.json"):
        if (path / name).is_file():
            (tmp / name).write_bytes((path / name).read_bytes())
    try:
        tmp.rename(target)
    except OSError:  # another run converted it at the same time
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return target


class CTranslate2Engine:
    """ctranslate2.Translator with sentencepiece; several batches in flight at once."""

    name = "ctranslate2"

    def __init__(
        self,
        path: Path,
        model: str,
        revision: str | None,
        compute_type: str = "int8",
        inter_threads: int | None = None,
        intra_threads: int | None = None,
        device: str = "cpu",
    ):
        try:
            import ctranslate2
            import sentencepiece as spm
        except ImportError as exc:
            raise TranslatorUnavailable(f"ctranslate2 is not installed: {exc}") from exc
        quantization = "float32" if compute_type == "float32" else "int8"
        try:
            converted = convert_to_ctranslate2(
                path, converted_model_dir(model, revision, quantization), quantization
            )
        except Exception as exc:
            raise TranslatorUnavailable(f"cannot convert {model} to CTranslate2: {exc}") from exc
        cores = available_cores()
        # Two batches in flight, one thread each, beat one batch on two threads (bench/).
        self.inter_threads = inter_threads or max(1, cores)
        self.intra_threads = intra_threads or max(1, cores // self.inter_threads)
        self.device = device
        self.compute_type = GPU_COMPUTE_TYPE[self.name] if device == "cuda" else compute_type
        self.translator = ctranslate2.Translator(
            str(converted),
            device=device,
            compute_type=self.compute_type,
            inter_threads=self.inter_threads,
            intra_threads=self.intra_threads,
        )
        self.source = spm.SentencePieceProcessor(model_file=str(converted / "source.spm"))
        self.target = spm.SentencePieceProcessor(model_file=str(converted / "target.spm"))
        config = _generation_config(converted)
        self.default_beams = config.get("num_beams") or 1
        self.min_new_tokens = config.get("min_new_tokens") or 0
        self.model_max_length = 512

    def describe(self) -> dict:
        # Thread counts change speed, not output: they stay out of the cache key and the
        # fingerprint (another machine must hit the same cache entries).
        return {"engine": self.name, "device": self.device, "compute_type": self.compute_type}

    def tokens(self, text: str) -> list[str]:
        # as MarianTokenizer: sentencepiece pieces, then the end-of-sentence token
        return [*self.source.encode(text, out_type=str), "</s>"]

    def count_tokens(self, text: str) -> int:
        return len(self.source.encode(text)) + 1

    def generate(self, batches, beams, max_new_tokens, greedy_retry=False, on_batch=None):
        # Keep every worker busy: with fewer batches than workers, split them, then regroup.
        parts, owners = [], []
        ways = self.inter_threads if len(batches) < self.inter_threads else 1
        for k, batch in enumerate(batches):
            for part in _split(batch, ways):
                parts.append(part)
                owners.append(k)
        results: list[list[str]] = [[] for _ in batches]
        outputs = self._run(parts, beams, max_new_tokens, greedy_retry, on_batch)
        for k, out in zip(owners, outputs, strict=True):
            results[k].extend(out)
        return results

    def _run(self, batches, beams, max_new_tokens, greedy_retry, on_batch):
        pending = []
        for batch in batches:
            tokens = [self.tokens(t) for t in batch]
            options = {
                "beam_size": 1 if greedy_retry else beams,
                "max_decoding_length": max_new_tokens(max(len(t) for t in tokens)),
                "min_decoding_length": self.min_new_tokens,
                "max_batch_size": len(batch),
                "asynchronous": True,
            }
            if greedy_retry:
                options["no_repeat_ngram_size"] = 3
            pending.append((len(batch), self.translator.translate_batch(tokens, **options)))
        results = []
        for size, futures in pending:
            results.append([self.target.decode(f.result().hypotheses[0]) for f in futures])
            if on_batch:
                on_batch(size)
        return results


def _split(batch: list[str], parts: int) -> list[list[str]]:
    """`batch` in up to `parts` consecutive pieces."""
    size = -(-len(batch) // parts)
    return [batch[i : i + size] for i in range(0, len(batch), size)]


def load_engine(
    name: str,
    path: Path,
    model: str,
    revision: str | None,
    compute_type: str = "int8",
    threads: tuple[int, int] | None = None,
    device: str = "auto",
) -> Engine:
    """The engine `name`; `auto` is CTranslate2 when installed and convertible, else torch.
    `threads` = (inter, intra) for CTranslate2 (default: one batch per core); `device`:
    auto, cpu or cuda (resolve_device)."""
    device = resolve_device(device)
    if name in ("auto", "ctranslate2"):
        inter, intra = threads or (None, None)
        try:
            return CTranslate2Engine(path, model, revision, compute_type, inter, intra, device)
        except TranslatorUnavailable as exc:
            if name == "ctranslate2":
                raise
            log.info("CTranslate2 engine unavailable (%s); using transformers", exc)
    return TransformersEngine(path, quantize=compute_type == "int8-dynamic", device=device)
