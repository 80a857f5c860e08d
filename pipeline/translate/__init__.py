"""Translator backends behind one small interface.

A backend turns a list of Simplified sentences into a list of English strings (same length,
same order) and describes itself for the output metadata.
"""

from __future__ import annotations

import logging
from typing import Protocol

from pipeline.settings import Settings

log = logging.getLogger(__name__)


class TranslatorUnavailable(Exception):
    """The requested backend cannot run here; the message says why and what to do."""


class Translator(Protocol):
    def describe(self) -> dict: ...

    def translate(self, sentences: list[str]) -> list[str]: ...


NONE_DESCRIPTION = {"backend": "none", "model": None}


def select_translator(settings: Settings) -> Translator | None:
    """The translator for `settings.translator`, or None for `none`."""
    if settings.translator == "none":
        return None
    raise TranslatorUnavailable(
        f"translator '{settings.translator}' is not available yet in this version; "
        "use --translator none"
    )
