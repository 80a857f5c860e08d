"""The one small interface every translator backend implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pipeline.glossary import TermFinder

if TYPE_CHECKING:
    from pipeline.context import Context


class TranslatorUnavailable(Exception):
    """The requested backend cannot run here; the message says why."""


@dataclass(frozen=True)
class Translation:
    en: str
    # "suspect": empty or looping even after a greedy retry; "term_restored": the model lost a
    # glossary term's placeholder, and its English was put back where it most likely belongs
    flag: str | None = None


class Translator(Protocol):
    def describe(self) -> dict:
        """{backend, model, revision, …} for the output metadata, the cache key and the
        fingerprint: everything about the backend that decides its output, nothing that does
        not (thread counts, paths). A `label` key ("gloss") marks output that is not a
        translation: the writers print it before every English line, with the `note`."""
        ...

    def settings(self) -> dict:
        """Settings that change the output (part of the cache key)."""
        ...

    def translate(self, sentences: list[str]) -> list[Translation]:
        """English for each sentence, same length and order."""
        ...

    # Optional: `cache_key(sentence) -> str`, what the cache keys a sentence by when more than
    # the sentence decides its English (the glossary terms found in it).


def term_finder(ctx: Context) -> TermFinder:
    """The user's glossary as a translator sees it; jieba is asked only when a one-character
    term needs a word boundary."""
    return TermFinder(ctx.glossary, lambda text: ctx.segmenter.words(text))
