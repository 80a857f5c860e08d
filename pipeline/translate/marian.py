"""marian: MarianMT (default Helsinki-NLP/opus-mt-zh-en) through transformers + sentencepiece.

- The model loads once per run with `from_pretrained`, from a local directory or the Hugging
  Face cache; the hub is asked only when the model is not cached, HF_HUB_OFFLINE is unset and
  the hub answers within seconds — a run never hangs on the network.
- Sentences from every document of the run are de-duplicated, sorted by length and batched by
  a token budget; the original order is restored.
- Nothing is truncated: a sentence longer than `max_input_tokens` is split at clause boundaries
  (，；： then 、 then spaces) and the parts' translations joined.
- Protected spans (URLs, numbers, Latin names…) go through as placeholders (protect.py); so
  do the user's glossary terms, which come back as the glossary's English. A term whose
  placeholder the model lost is put back in place and the sentence flagged `term_restored`.
- Generation follows the model's generation_config unless --beams / --max-new-tokens say
  otherwise; output length is capped relative to the input; an empty or looping output is
  retried greedily with no_repeat_ngram_size, and flagged "suspect" if still bad.
- The engine (engines.py) runs the model: CTranslate2 int8 when available, else transformers.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from pipeline.context import Context
from pipeline.glossary import TermFinder
from pipeline.registry import translator
from pipeline.text import has_han
from pipeline.translate.base import Translation, TranslatorUnavailable, term_finder
from pipeline.translate.engines import load_engine
from pipeline.translate.protect import mask, unmask

log = logging.getLogger(__name__)

DEFAULT_MODEL = "Helsinki-NLP/opus-mt-zh-en"
MODEL_FILES = ["*.json", "*.spm", "*.safetensors", "*.bin", "*.txt"]
HUB_PROBE_TIMEOUT_S = 3.0
_CLAUSE_SEPARATORS = ("，；：,;:", "、", " ")
_PLACEHOLDER = re.compile(r"XPH\d+X")
_SIMILAR_LENGTH = 1.2  # longest / shortest input in one batch (padding waste)
_LOOP = re.compile(r"(.{2,40}?)(?:\s*\1){3,}", re.S)


def _is_path(model: str) -> bool:
    return model.startswith((".", "/", "~")) or model.count("/") > 1 or Path(model).exists()


def how_to_provide(model: str) -> str:
    if _is_path(model):
        return (
            "--model names a local directory: it must hold a Marian model saved with "
            "save_pretrained (config.json, the weights, source.spm, target.spm, vocab.json)."
        )
    return (
        f"To use MarianMT, give a local copy with --model /path/to/dir, or on a connected "
        f"machine run `hf download {model}` (older: `huggingface-cli download {model}`) and "
        f"copy the Hugging Face cache here (set HF_HOME to where it lies)."
    )


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _hub_reachable() -> bool:
    from huggingface_hub import constants

    url = urlparse(constants.ENDPOINT)
    try:
        with socket.create_connection((url.hostname, url.port or 443), HUB_PROBE_TIMEOUT_S):
            return True
    except OSError:
        return False


_SAMPLE = 1 << 20  # bytes read from each end of a weights file for the revision


def _local_revision(path: Path) -> str:
    """A stand-in revision for a local directory, from its content — the configs, and each
    weights file's size and first and last megabyte — never its path or dates: the same model
    copied to another machine or folder keeps its cache entries and fingerprint."""
    import hashlib

    digest = hashlib.sha256()
    for name in ("config.json", "generation_config.json"):
        if (path / name).is_file():
            digest.update((path / name).read_bytes())
    for weights in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
        size = weights.stat().st_size
        digest.update(f"{weights.name}:{size}".encode())
        with weights.open("rb") as fh:
            digest.update(fh.read(_SAMPLE))
            fh.seek(max(size - _SAMPLE, 0))
            digest.update(fh.read(_SAMPLE))
    return "local-" + digest.hexdigest()[:12]


def resolve_model(model: str) -> tuple[Path, str | None]:
    """A local directory holding `model`, and its revision; or TranslatorUnavailable."""
    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise TranslatorUnavailable(f"{path} is not a model directory (no config.json)")
        return path, _local_revision(path)
    if _is_path(model):
        raise TranslatorUnavailable(f"model directory {model} does not exist")
    from huggingface_hub import constants, snapshot_download

    try:
        cached = snapshot_download(model, local_files_only=True, allow_patterns=MODEL_FILES)
        return Path(cached), Path(cached).name
    except Exception as exc:  # not in the cache (or a broken cache entry)
        reason = f"{model} is not in the Hugging Face cache ({constants.HF_HUB_CACHE})"
        if constants.HF_HUB_OFFLINE or _env_flag("HF_HUB_OFFLINE"):
            raise TranslatorUnavailable(f"{reason} and HF_HUB_OFFLINE is set") from exc
    if not _hub_reachable():
        raise TranslatorUnavailable(f"{reason} and the hub cannot be reached")
    try:
        fetched = snapshot_download(model, allow_patterns=MODEL_FILES, etag_timeout=10)
    except Exception as exc:
        raise TranslatorUnavailable(f"could not download {model}: {exc}") from exc
    return Path(fetched), Path(fetched).name


def is_bad_output(text: str) -> bool:
    """Empty, or a loop: a chunk repeated four times or more, or very few distinct words."""
    if not text.strip():
        return True
    if _LOOP.search(text):
        return True
    words = text.split()
    return len(words) >= 12 and len(set(words)) / len(words) < 0.3


@dataclass
class _Unit:
    text: str  # masked text sent to the model
    tokens: int


class MarianTranslator:
    """Real MarianMT translation; `model_calls` counts the batches sent to the engine."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        beams: int | None = None,
        max_new_tokens: int | None = None,
        engine: str = "auto",
        compute_type: str = "int8",
        threads: tuple[int, int] | None = None,
        max_input_tokens: int = 200,
        token_budget: int = 6000,
        max_batch: int = 64,
        progress: bool | None = None,
        terms: TermFinder | None = None,
        device: str = "auto",
    ):
        path, self.revision = resolve_model(model)
        self.engine = load_engine(
            engine, path, model, self.revision, compute_type, threads, device=device
        )
        self.model_name = model
        self.max_input_tokens = min(max_input_tokens, self.engine.model_max_length - 2)
        self.token_budget = token_budget
        self.max_batch = max_batch
        self.beams = beams or self.engine.default_beams
        self.max_new_tokens = max_new_tokens
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.model_calls = 0
        self.terms = terms or TermFinder()

    def describe(self) -> dict:
        return {
            "backend": "marian",
            "model": self.model_name,
            "revision": self.revision,
            **self.engine.describe(),
            **self.terms.describe(),
        }

    def cache_key(self, sentence: str) -> str:
        return self.terms.cache_key(sentence)

    def settings(self) -> dict:
        """Generation settings that change the output (part of the cache key)."""
        return {
            "beams": self.beams,
            "max_new_tokens": self.max_new_tokens,
            "max_input_tokens": self.max_input_tokens,
        }

    # -- splitting -----------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        return self.engine.count_tokens(text)

    def split_long(self, text: str) -> list[str]:
        """Pieces of `text` of at most `max_input_tokens` tokens, cut at clause boundaries."""
        if self.count_tokens(text) <= self.max_input_tokens:
            return [text]
        for separators in _CLAUSE_SEPARATORS:
            parts = [p for p in re.split(f"(?<=[{re.escape(separators)}])", text) if p]
            if len(parts) > 1:
                return [piece for chunk in self._pack(parts) for piece in self.split_long(chunk)]
        middle = len(text) // 2
        for m in _PLACEHOLDER.finditer(text):  # never cut a placeholder in two
            if m.start() < middle < m.end():
                middle = m.end()
        if middle >= len(text):
            return [text]
        return self.split_long(text[:middle]) + self.split_long(text[middle:])

    def _pack(self, parts: list[str]) -> list[str]:
        chunks: list[str] = []
        for part in parts:
            joined = chunks[-1] + part if chunks else part
            if chunks and self.count_tokens(joined) <= self.max_input_tokens:
                chunks[-1] = joined
            else:
                chunks.append(part)
        return chunks

    # -- generation ----------------------------------------------------------------------

    def padding_waste(self, texts: list[str]) -> float:
        """Share of the token slots in this run's batches that would be padding."""
        units = [_Unit(t, self.count_tokens(t)) for t in dict.fromkeys(texts)]
        batches = self._batches(units)
        slots = sum(len(b) * max(units[i].tokens for i in b) for b in batches)
        return 1 - sum(u.tokens for u in units) / slots if slots else 0.0

    def _batches(self, units: list[_Unit]) -> list[list[int]]:
        """Length-sorted batches under the token budget; a batch also closes when the next
        sentence is much longer than its first, so little of it is padding."""
        order = sorted(range(len(units)), key=lambda i: units[i].tokens)
        batches: list[list[int]] = []
        for i in order:
            if batches:
                batch = batches[-1]
                tokens = units[i].tokens
                fits = tokens * (len(batch) + 1) <= self.token_budget
                similar = tokens <= _SIMILAR_LENGTH * units[batch[0]].tokens + 2
                if len(batch) < self.max_batch and fits and similar:
                    batch.append(i)
                    continue
            batches.append([i])
        return batches

    def _cap(self, longest_input: int) -> int:
        # Runaway guard: output length relative to the input, unless the user set a length.
        return self.max_new_tokens or 2 * longest_input + 16

    def _generate(
        self,
        units: list[_Unit],
        indices: list[int],
        beams: int,
        greedy_retry: bool = False,
        on_batch=None,
    ) -> dict[int, str]:
        """Translate `units[i] for i in indices` in length-sorted batches: index → output."""
        batches = [[indices[k] for k in b] for b in self._batches([units[i] for i in indices])]
        outputs = self.engine.generate(
            [[units[i].text for i in batch] for batch in batches],
            beams,
            self._cap,
            greedy_retry=greedy_retry,
            on_batch=on_batch,
        )
        self.model_calls += len(batches)
        return {
            i: out
            for batch, batch_out in zip(batches, outputs, strict=True)
            for i, out in zip(batch, batch_out, strict=True)
        }

    def _translate_units(self, units: list[_Unit]) -> tuple[list[str], set[int]]:
        progress = None
        if self.progress:
            from tqdm import tqdm

            progress = tqdm(total=len(units), desc="translating", unit="sent", leave=False)
        first = True

        def on_batch(size: int) -> None:
            nonlocal first
            if first:
                log.debug("first batch translated")  # bench/ times start-up by this line
                first = False
            if progress:
                progress.update(size)

        results = self._generate(units, list(range(len(units))), self.beams, on_batch=on_batch)
        if progress:
            progress.close()
        bad = [i for i, out in results.items() if is_bad_output(out)]
        suspect: set[int] = set()
        if bad:
            log.info("retrying %d empty or looping translation(s) greedily", len(bad))
            # Batched like the first pass: many bad outputs must not become one huge batch.
            for i, out in self._generate(units, bad, 1, greedy_retry=True).items():
                if is_bad_output(out):
                    suspect.add(i)
                    out = out if len(out) >= len(results[i]) else results[i]
                results[i] = out
        return [results[i] for i in range(len(units))], suspect

    def translate(self, sentences: list[str]) -> list[Translation]:
        masked = [mask(s, self.terms.find(s)) for s in sentences]
        pieces = [self.split_long(m.text) for m in masked]
        unique: dict[str, int] = {}
        for text in (p for ps in pieces for p in ps):
            if has_han(text) and text not in unique:
                unique[text] = len(unique)
        units = [_Unit(text, self.count_tokens(text)) for text in unique]
        outputs, suspect = self._translate_units(units) if units else ([], set())
        translations = []
        for m, parts in zip(masked, pieces, strict=True):
            english = [outputs[unique[p]] if p in unique else p for p in parts]
            text, lost = unmask(" ".join(english), m)
            if any(p in unique and unique[p] in suspect for p in parts):
                flag = "suspect"  # the worse news wins: the whole sentence is doubtful
            else:
                flag = "term_restored" if m.terms.intersection(lost) else None
            translations.append(Translation(text, flag))
        return translations


@translator("marian", "MarianMT (opus-mt-zh-en) through CTranslate2 or transformers")
def _marian(ctx: Context) -> MarianTranslator:
    settings = ctx.settings
    try:
        return MarianTranslator(
            settings.model,
            settings.beams,
            settings.max_new_tokens,
            engine=settings.engine,
            terms=term_finder(ctx),
            device=settings.device,
        )
    except TranslatorUnavailable as exc:
        message = (
            f"Marian model {settings.model} unavailable: {exc}. {how_to_provide(settings.model)}"
        )
        raise TranslatorUnavailable(message) from exc
