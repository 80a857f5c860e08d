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
    cacheable: bool

    def describe(self) -> dict:
        """{backend, model, revision} for the output metadata."""
        ...

    def settings(self) -> dict:
        """Settings that change the output (part of the cache key)."""
        ...

    def translate(self, sentences: list[str]) -> list[Translation]:
        """English for each sentence, same length and order."""
        ...
