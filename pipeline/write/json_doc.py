"""`output/<stem>.json`: the stable contract other programs read (schema pipeline/document@2).

Compact JSON by default; `pretty` (`--pretty`) writes the indented form, exactly
`json.dumps(document_to_dict(...), ensure_ascii=False, indent=2)`. Both parse to the same data.

The file is written as a stream of byte pieces: the small header fields one by one, the long
lists (removals, repairs, blocks) a batch of items at a time, encoded by msgspec (C). A 50 MB
article never has to exist as one giant dict and one giant string at once, and the encoder's
per-call cost is paid once per batch, not once per item (stdlib `json` element by element was a
third of a whole `--translator none` run).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from itertools import compress, islice, starmap
from operator import itemgetter, not_, truth

import msgspec

from pipeline.document import Block, Document, Edit, Sentence

SCHEMA = "pipeline/document@2"
BATCH = 256  # list items per encoder call: big enough to amortise it, small for memory

_encode = msgspec.json.Encoder().encode


def _header(value: object, pretty: bool) -> bytes:
    """A small top-level value. Stdlib `json` keeps the bytes of everything it always wrote
    (front matter may hold floats, which encoders print differently); these are tiny."""
    if pretty:
        text = json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8")


class _Removal(msgspec.Struct, omit_defaults=True, gc=False):
    """A removal as the JSON writes it (`kind` only when set)."""

    start: int
    end: int
    text: str
    stage: str
    reason: str
    kind: str = ""


class _Repair(msgspec.Struct, omit_defaults=True, gc=False):
    """A repair: a removal that also says what replaced the text."""

    start: int
    end: int
    text: str
    replacement: str
    stage: str
    reason: str
    kind: str = ""


# Edit (start, end, stage, reason, text, replacement, kind) → the fields in the JSON's order
_REMOVAL_FIELDS = itemgetter(0, 1, 4, 2, 3, 6)
_REPAIR_FIELDS = itemgetter(0, 1, 4, 5, 2, 3, 6)
_replacement = itemgetter(5)
EditWriter = Callable[[Iterable[Edit], bool], Iterable[object]]


def _edit_dicts(edits: Iterable[Edit], repairs: bool) -> list[dict]:
    """The removals (or the repairs) of `edits` as dicts: the structs' own keys and order, so
    the dataset records and the JSON files cannot disagree."""
    return msgspec.to_builtins(list(_edit_structs(edits, repairs)))


def picked_edits(edits: Iterable[Edit], repairs: bool) -> Iterator[Edit]:
    """The removals (or the repairs) of `edits`, picked by C iterators without a Python call
    per edit: a page has a hundred thousand readings."""
    edits = tuple(edits)
    return compress(edits, map(truth if repairs else not_, map(_replacement, edits)))


def _edit_structs(edits: Iterable[Edit], repairs: bool) -> Iterator[object]:
    """The removals (or the repairs) of `edits` as structs msgspec encodes directly, built
    from the edits' fields by C iterators."""
    if repairs:
        return starmap(_Repair, map(_REPAIR_FIELDS, picked_edits(edits, True)))
    return starmap(_Removal, map(_REMOVAL_FIELDS, picked_edits(edits, False)))


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


def _fields(
    doc: Document, translator: dict, pipeline: dict | None, edits: EditWriter = _edit_dicts
) -> list[tuple[str, object]]:
    """Top-level keys in order; the long lists are generators (`edits` makes the removals
    and repairs)."""
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
        ("removed", edits(doc.edits, False)),
        ("repaired", edits(doc.edits, True)),
        ("notes", list(doc.notes)),
        ("blocks", (_block(b, n) for n, b in enumerate(doc.blocks, 1))),
    ]


def document_to_dict(doc: Document, translator: dict, pipeline: dict | None = None) -> dict:
    return {
        key: list(value) if not isinstance(value, dict | list | str | None) else value
        for key, value in _fields(doc, translator, pipeline)
    }


def _stream_list(items: Iterable[object], pretty: bool) -> Iterator[bytes]:
    """A list, BATCH items per encoder call; pretty: items nested four spaces deep."""
    items = iter(items)
    opening, between = (b"[\n    ", b",\n    ") if pretty else (b"[", b",")
    first = True
    while batch := list(islice(items, BATCH)):
        encoded = _encode(batch)
        if pretty:
            # "[\n  item,\n  item\n]" → the items, one level deeper than format() put them
            encoded = msgspec.json.format(encoded, indent=2)[4:-2].replace(b"\n", b"\n  ")
        else:
            encoded = encoded[1:-1]
        yield (opening if first else between) + encoded
        first = False
    yield b"[]" if first else (b"\n  ]" if pretty else b"]")


def json_chunks(
    doc: Document, translator: dict, pipeline: dict | None = None, pretty: bool = False
) -> Iterator[bytes]:
    """The JSON file (UTF-8), piece by piece: compact, or indented with `pretty`."""
    yield b"{"
    for i, (key, value) in enumerate(_fields(doc, translator, pipeline, _edit_structs)):
        name = json.dumps(key).encode("utf-8")
        if pretty:
            yield (b"\n  " if i == 0 else b",\n  ") + name + b": "
        else:
            yield (b"" if i == 0 else b",") + name + b":"
        if isinstance(value, dict | list | str | None):
            yield _header(value, pretty)
        else:
            yield from _stream_list(value, pretty)
    yield b"\n}\n" if pretty else b"}\n"
