"""Translator backends behind one small interface (base.py), and the run-wide translation step.

Backends register a factory by name (`@translator("gloss", …)`, pipeline/registry.py);
`select_translator` builds the one `--translator` names (`auto`: Marian, else the gloss).
`translate_all` translates every sentence of a run in one call: text with no Han characters is
passed through, duplicates are translated once, and the persistent cache answers what it
already knows.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pipeline.context import Context
from pipeline.glossary import without_glossary
from pipeline.registry import translator, translators
from pipeline.settings import Settings
from pipeline.text import has_han
from pipeline.translate.base import Translation, Translator, TranslatorUnavailable
from pipeline.translate.cache import TranslationCache

log = logging.getLogger(__name__)

NONE_DESCRIPTION = {"backend": "none", "model": None, "revision": None}
AUTO = "auto"  # Marian when the model loads, else the gloss, with one warning
__all__ = [
    "Translation",
    "Translator",
    "TranslatorUnavailable",
    "describe",
    "select_translator",
    "translate_all",
]


@translator("none", "Chinese only (`en` is null)")
def _no_translator(ctx: Context) -> None:
    return None


def translator_choices() -> tuple[str, ...]:
    return (AUTO, *translators())


def describe(backend: Translator | None) -> dict[str, Any]:
    """Everything about the translator that decides its output: backend, model, revision, engine,
    decoding settings. The JSON records it; the cache key and the fingerprint are made of it."""
    if backend is None:
        return dict(NONE_DESCRIPTION)
    decoding = backend.settings()
    return {**backend.describe(), **({"decoding": decoding} if decoding else {})}


def cache_dir(settings: Settings) -> Path:
    if settings.cache_dir:
        return Path(settings.cache_dir)
    import platformdirs

    return Path(platformdirs.user_cache_dir("pipeline"))


def select_translator(ctx: Context) -> Translator | None:
    """The backend for `--translator`; None for `none`.

    A named backend raises TranslatorUnavailable when it cannot load; `auto` then warns once,
    saying which model, why and how to provide it, and falls back to the gloss.
    """
    name = ctx.settings.translator
    available = translators()
    if name != AUTO:
        if name not in available:
            choices = ", ".join(translator_choices())
            raise TranslatorUnavailable(f"unknown translator {name!r} (choose from {choices})")
        return available[name].factory(ctx)
    try:
        return available["marian"].factory(ctx)
    except TranslatorUnavailable as exc:
        log.warning("%s Falling back to the CC-CEDICT word gloss (not a translation).", exc)
        return available["gloss"].factory(ctx)


def translate_all(
    backend: Translator, sentences: list[str], settings: Settings
) -> list[Translation]:
    """Translate `sentences` (any number of documents' worth) in one batched, cached call."""
    todo = list(dict.fromkeys(s for s in sentences if has_han(s)))
    known: dict[str, Translation] = {}
    cache = None
    if settings.use_cache and todo:
        # A glossary keys each sentence by the terms found in it, not the cache as a whole:
        # a new glossary line re-translates only the sentences that contain it.
        key = getattr(backend, "cache_key", None) or str
        cache = TranslationCache(cache_dir(settings), without_glossary(describe(backend)), key)
        known = {s: Translation(en, flag) for s, (en, flag) in cache.get_many(todo).items()}
    missing = [s for s in todo if s not in known]
    if todo:
        log.info("translating %d sentence(s) (%d from cache)", len(missing), len(known))
    if missing:
        fresh = dict(zip(missing, backend.translate(missing), strict=True))
        known.update(fresh)
        if cache:
            cache.put_many({s: (t.en, t.flag) for s, t in fresh.items()})
    if cache:
        cache.close()
    return [known.get(s, Translation(s)) for s in sentences]
