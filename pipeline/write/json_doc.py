"""`output/<stem>.json`: the stable contract other programs read (schema pipeline/document@1)."""

from __future__ import annotations

import json

from pipeline.document import Document

SCHEMA = "pipeline/document@1"


def document_to_dict(doc: Document, translator: dict, pipeline: dict | None = None) -> dict:
    return {
        "schema": SCHEMA,
        "pipeline": pipeline or {},
        "source": {
            "path": doc.source.path,
            "sha256": doc.source.sha256,
            "encoding": doc.source.encoding,
            "chars": doc.source.chars,
            "format": doc.source.format,
        },
        "translator": translator,
        "removed": [
            {"start": e.start, "end": e.end, "text": e.text, "stage": e.stage, "reason": e.reason}
            for e in doc.edits
            if e.is_removal
        ],
        "repaired": [
            {
                "start": e.start,
                "end": e.end,
                "text": e.text,
                "replacement": e.replacement,
                "stage": e.stage,
                "reason": e.reason,
            }
            for e in doc.edits
            if not e.is_removal
        ],
        "notes": list(doc.notes),
        "paragraphs": [
            {
                "id": p.id,
                "start": p.start,
                "end": p.end,
                "zh": p.zh,
                "en": p.en,
                "sentences": [_sentence(s) for s in p.sentences],
            }
            for p in doc.paragraphs
        ],
    }


def _sentence(s) -> dict:
    out = {
        "id": s.id,
        "start": s.start,
        "end": s.end,
        "zh": s.zh,
        "tokens": list(s.tokens),
        "en": s.en,
    }
    if s.flag:
        out["flag"] = s.flag
    return out


def render_json(doc: Document, translator: dict, pipeline: dict | None = None) -> str:
    data = document_to_dict(doc, translator, pipeline)
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
