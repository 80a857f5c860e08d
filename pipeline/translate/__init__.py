"""Translator backends behind one small interface (base.py), and the run-wide translation step.

`select_translator` picks the backend for --translator; `translate_all` translates every
sentence of a run in one call: text with no Han characters is passed through, duplicates are
translated once, and the persistent cache answers what it already knows.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pipeline.settings import Settings
from pipeline.translate.base import Translation, Translator, TranslatorUnavailable
from pipeline.translate.cache import TranslationCache
from pipeline.translate.protect import has_han

log = logging.getLogger(__name__)

NONE_DESCRIPTION = {"backend": "none", "model": None, "revision": None}
__all__ = ["Translation", "Translator", "TranslatorUnavailable", "select_translator"]


def cache_dir(settings: Settings) -> Path:
    if settings.cache_dir:
        return Path(settings.cache_dir)
    import platformdirs

    return Path(platformdirs.user_cache_dir("pipeline"))


def _gloss(settings: Settings) -> Translator:
    from pipeline.translate.gloss import GlossTranslator

    return GlossTranslator(str(cache_dir(settings)))


def select_translator(settings: Settings) -> Translator | None:
    """The backend for `settings.translator`; None for `none`.

    `marian` raises TranslatorUnavailable when the model cannot load; `auto` then warns once,
    saying which model, why and how to provide it, and falls back to the gloss.
    """
    if settings.translator == "none":
        return None
    if settings.translator == "gloss":
        return _gloss(settings)
    from pipeline.translate.marian import MarianTranslator, how_to_provide

    try:
        return MarianTranslator(
            settings.model, settings.beams, settings.max_new_tokens, engine=settings.engine
        )
    except TranslatorUnavailable as exc:
        message = (
            f"Marian model {settings.model} unavailable: {exc}. {how_to_provide(settings.model)}"
        )
        if settings.translator == "marian":
            raise TranslatorUnavailable(message) from exc
        log.warning("%s Falling back to the CC-CEDICT word gloss (not a translation).", message)
        return _gloss(settings)


def translate_all(
    translator: Translator, sentences: list[str], settings: Settings
) -> list[Translation]:
    """Translate `sentences` (any number of documents' worth) in one batched, cached call."""
    todo = list(dict.fromkeys(s for s in sentences if has_han(s)))
    known: dict[str, Translation] = {}
    cache = None
    if translator.cacheable and settings.use_cache and todo:
        namespace = {**translator.describe(), **translator.settings()}
        cache = TranslationCache(cache_dir(settings), namespace)
        known = {s: Translation(en, flag) for s, (en, flag) in cache.get_many(todo).items()}
    missing = [s for s in todo if s not in known]
    if missing:
        log.info("translating %d sentence(s) (%d from cache)", len(missing), len(known))
        fresh = dict(zip(missing, translator.translate(missing), strict=True))
        known.update(fresh)
        if cache:
            cache.put_many({s: (t.en, t.flag) for s, t in fresh.items()})
    if cache:
        cache.close()
    return [known.get(s, Translation(s)) for s in sentences]
