"""`output/<stem>.json`: the stable contract other programs read (schema pipeline/document@2).

The file is written as a stream of pieces (block by block, removal by removal) that
join to exactly `json.dumps(document_to_dict(...), indent=2)`: a 50 MB article never has to
exist as one giant dict and one giant string at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from pipeline.document import Block, Document, Edit, Sentence

SCHEMA = "pipeline/document@2"


def _dumps(value: object, indent: int) -> str:
    """`value` as json.dumps(indent=2) renders it nested `indent` spaces deep."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return text.replace("\n", "\n" + " " * indent)


def _edit(e: Edit) -> dict:
    """A removal, or a repair (which also says what replaced the text)."""
    out: dict = {"start": e.start, "end": e.end, "text": e.text}
    if not e.is_removal:
        out["replacement"] = e.replacement
    out.update(stage=e.stage, reason=e.reason)
    if e.kind:
        out["kind"] = e.kind
    return out


def _sentence(s: Sentence) -> dict:
    out = {
        "id": s.id,
        "start": s.start,
        "end": s.end,
        "zh": s.zh,
        "tokens": list(s.tokens),
        "en": s.en,
    }
    if s.terms:  # absent when the sentence has no glossary term
        out["terms"] = [{"zh": t.zh, "en": t.en, "start": t.start, "end": t.end} for t in s.terms]
    if s.flag:
        out["flag"] = s.flag
    return out


def _block(b: Block, n: int) -> dict:
    out: dict = {"id": b.id, "n": n, "kind": b.kind}
    if b.kind in ("heading", "item", "quote"):
        out["level"] = b.level
    if b.kind == "item":
        out["ordered"] = b.ordered
    if b.kind in ("item", "quote", "cell"):
        out["group"] = b.group
    if b.kind == "cell":
        out.update(row=b.row, col=b.col)
    if b.kind == "code":
        out["lang"] = b.lang
    out.update(
        start=b.start,
        end=b.end,
        zh=b.zh,
        en=b.en,
        sentences=[_sentence(s) for s in b.sentences],
    )
    return out


def _title(doc: Document) -> dict | None:
    block = doc.title_block()
    if block is None:
        return None
    return {"block": block.id, "zh": block.zh, "en": block.en}


def _undecodable(doc: Document) -> dict:
    spans = [{"start": i, "end": i + 1, "bytes": b} for i, b in doc.source.undecodable]
    return {"undecodable": spans} if spans else {}


def _fields(doc: Document, translator: dict, pipeline: dict | None) -> list[tuple[str, object]]:
    """Top-level keys in order; the long lists are generators."""
    return [
        ("schema", SCHEMA),
        ("pipeline", pipeline or {}),
        (
            "source",
            {
                "path": doc.source.path,
                "sha256": doc.source.sha256,
                "encoding": doc.source.encoding,
                "chars": doc.source.chars,
                "format": doc.source.format,
                **_undecodable(doc),
            },
        ),
        ("title", _title(doc)),
        ("metadata", doc.metadata),
        ("translator", translator),
        ("removed", (_edit(e) for e in doc.edits if e.is_removal)),
        ("repaired", (_edit(e) for e in doc.edits if not e.is_removal)),
        ("notes", list(doc.notes)),
        ("blocks", (_block(b, n) for n, b in enumerate(doc.blocks, 1))),
    ]


def document_to_dict(doc: Document, translator: dict, pipeline: dict | None = None) -> dict:
    return {
        key: list(value) if not isinstance(value, dict | list | str | None) else value
        for key, value in _fields(doc, translator, pipeline)
    }


def _stream_list(items: Iterable[object]) -> Iterator[str]:
    first = True
    for item in items:
        yield ("[\n    " if first else ",\n    ") + _dumps(item, 4)
        first = False
    yield "[]" if first else "\n  ]"


def json_chunks(doc: Document, translator: dict, pipeline: dict | None = None) -> Iterator[str]:
    """The JSON file, piece by piece."""
    yield "{"
    for i, (key, value) in enumerate(_fields(doc, translator, pipeline)):
        yield ("\n  " if i == 0 else ",\n  ") + json.dumps(key, ensure_ascii=False) + ": "
        if isinstance(value, dict | list | str | None):
            yield _dumps(value, 2)
        else:
            yield from _stream_list(value)
    yield "\n}\n"
