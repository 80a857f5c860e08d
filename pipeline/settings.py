"""Run settings: one frozen object handed to every stage, so stages stay pure functions."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

CLEANING_STAGES = ("normalize", "pinyin", "spam", "boilerplate")


@dataclass(frozen=True)
class Settings:
    translator: str = "auto"  # auto | marian | gloss | none
    model: str = "Helsinki-NLP/opus-mt-zh-en"
    layout: str = "paragraph"  # paragraph | sentence | table
    user_dicts: tuple[str, ...] = ()
    spam_words: tuple[str, ...] = ()
    keep: tuple[str, ...] = ()  # cleaning stages turned off
    jobs: int = 1
    engine: str = "auto"  # auto | ctranslate2 | transformers (Marian only)
    beams: int | None = None
    max_new_tokens: int | None = None
    cache_dir: str | None = None
    use_cache: bool = True
    force: bool = False  # redo documents whose input and settings are unchanged
    # Spam thresholds (see stages/spam.py for what they mean).
    pinyin_run_min_letters: int = 24
    spam_line_max_chars: int = 120

    def enabled(self, stage: str) -> bool:
        return stage not in self.keep

    def fingerprint(self) -> str:
        """Everything that changes the output of the text stages, as a stable string."""
        keys = ("user_dicts", "spam_words", "keep", "pinyin_run_min_letters", "spam_line_max_chars")
        return repr({k: getattr(self, k) for k in keys})


def load_config(path: Path, base: Settings) -> Settings:
    """Overlay a `pipeline.toml` on `base`; unknown keys are an error, not a silent no-op."""
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    known = {f.name for f in fields(Settings)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{path}: unknown setting(s): {', '.join(unknown)}")
    for key, value in data.items():
        if isinstance(value, list):
            data[key] = tuple(value)
    return replace(base, **data)
