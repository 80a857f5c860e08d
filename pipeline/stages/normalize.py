"""normalize: (filled in by the cleaning work)."""

from __future__ import annotations

from pipeline.document import Document
from pipeline.settings import Settings


def normalize(doc: Document, settings: Settings) -> Document:
    return doc
