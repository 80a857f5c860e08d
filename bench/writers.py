"""The JSON writer on one long prepared document: msgspec in batches (compact, and `--pretty`)
against stdlib `json` element by element as it was written before, and orjson when installed
(not a dependency: it is here to show whether it would be worth one)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib.util import find_spec

from bench.common import sample_text, timed
from pipeline.context import Context
from pipeline.document import Document, Source
from pipeline.prepare import prepare
from pipeline.write.json_doc import _fields, document_to_dict, json_chunks

TRANSLATOR = {"backend": "none", "model": None, "revision": None}


def _stdlib_before(doc: Document) -> int:
    """The writer before msgspec: stdlib json, indented, item by item (bytes written)."""
    size = 0
    for _key, value in _fields(doc, TRANSLATOR, {"v": 1}):
        items: Iterable = [value] if isinstance(value, dict | list | str | None) else value
        for item in items:
            size += len(json.dumps(item, ensure_ascii=False, indent=2).replace("\n", "\n    "))
    return size


def _streamed(doc: Document, pretty: bool) -> int:
    return sum(len(piece) for piece in json_chunks(doc, TRANSLATOR, {"v": 1}, pretty))


def run(target_bytes: int = 5_000_000) -> list[dict]:
    # A shorter text than the stages' (preparing it is the slow part; the ratios hold).
    text = sample_text(min(target_bytes, 2_000_000))
    doc = prepare(Document(text, Source("bench", "", "utf-8", len(text))), Context())
    size = _streamed(doc, pretty=False)
    mb = size / 1e6
    base = timed(lambda: _stdlib_before(doc), repeat=2)[0]
    rows = []

    def row(measure: str, seconds: float, baseline: tuple[str, float] | None = None) -> None:
        out = {"measure": measure, "seconds": round(seconds, 3), "mb_per_s": round(mb / seconds, 1)}
        if baseline:
            out |= {"baseline": baseline[0], "vs_baseline": round(baseline[1] / seconds, 1)}
        rows.append(out)

    before = ("stdlib json, indented, item by item (before)", base)
    compact = timed(lambda: _streamed(doc, pretty=False), repeat=3)[0]
    row("msgspec in batches, compact (default)", compact, before)
    row("msgspec in batches, --pretty", timed(lambda: _streamed(doc, True), repeat=3)[0], before)
    if find_spec("orjson"):
        import orjson

        whole = timed(lambda: len(orjson.dumps(document_to_dict(doc, TRANSLATOR))), repeat=3)[0]
        row("orjson, whole document at once, compact", whole, ("msgspec compact", compact))
    return rows
