"""The one small interface every translator backend implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class TranslatorUnavailable(Exception):
    """The requested backend cannot run here; the message says why."""


@dataclass(frozen=True)
class Translation:
    en: str
    flag: str | None = None  # "suspect": empty or looping even after a greedy retry


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
