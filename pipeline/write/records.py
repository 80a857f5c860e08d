"""Documents as dataset records: one JSONL line or one Parquet row per document, holding the
same content as the JSON file (pipeline/document@2) plus the record's `id`.

Shards: a dataset's records go to `<out>/<dataset>/part-00000.jsonl` (or `.parquet`),
`--shard-size` records each, in input order. A shard is written atomically, then entered in
`_manifest.json` with a digest of the input records it was made from and the run's
fingerprint; a re-run (after a crash, a `kill -9`) skips every shard the manifest vouches for.

Parquet has a fixed schema (below): nested blocks and sentences as lists of structs, so a
column like `blocks.zh` is queryable; the parts whose keys vary (`translator`, `metadata`,
`pipeline`) are JSON strings. A key absent from a JSON record is null in Parquet.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from pipeline.document import Document
from pipeline.write.files import write_atomic
from pipeline.write.json_doc import document_to_dict

MANIFEST = "_manifest.json"
JSON_COLUMNS = ("translator", "metadata", "pipeline")


def document_record(doc: Document, key: str, translator: dict, pipeline: dict) -> dict:
    return {"id": key, **document_to_dict(doc, translator, pipeline)}


def jsonl_line(record: dict) -> bytes:
    """One compact JSON line (msgspec: UTF-8, keys in the record's order)."""
    return msgspec.json.encode(record) + b"\n"


def shard_name(number: int, fmt: str) -> str:
    return f"part-{number:05d}.{fmt}"


def records_digest(parts: list[tuple[str, str, str | None]]) -> str:
    """What a shard was made from: its records' ids, texts and titles, in order."""
    digest = hashlib.sha256()
    for key, text, title in parts:
        for value in (key, text, title or ""):
            data = value.encode("utf-8")
            digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


@dataclass
class ShardSink:
    """The shards of one output dataset and their manifest."""

    folder: Path
    fmt: str
    fingerprint: str
    shards: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            manifest = json.loads((self.folder / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            manifest = {}
        if manifest.get("fingerprint") == self.fingerprint and manifest.get("format") == self.fmt:
            self.shards = manifest.get("shards", {})

    def done(self, number: int, digest: str) -> bool:
        name = shard_name(number, self.fmt)
        entry = self.shards.get(name)
        return bool(entry) and entry["input"] == digest and (self.folder / name).is_file()

    def write(self, number: int, digest: str, records: list[dict]) -> None:
        name = shard_name(number, self.fmt)
        path = self.folder / name
        if self.fmt == "jsonl":
            write_atomic(path, (jsonl_line(r) for r in records))
        else:
            write_atomic(path, parquet_bytes(records))
        self.shards[name] = {"input": digest, "records": len(records)}
        self._save()

    def finish(self, shard_count: int) -> None:
        """Drop shards of an earlier, longer run of the same dataset."""
        keep = {shard_name(i, self.fmt) for i in range(shard_count)}
        for name in sorted(set(self.shards) - keep):
            (self.folder / name).unlink(missing_ok=True)
            del self.shards[name]
        self._save()

    def _save(self) -> None:
        manifest = {"fingerprint": self.fingerprint, "format": self.fmt, "shards": self.shards}
        write_atomic(self.folder / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")


# --- Parquet -----------------------------------------------------------------------------------


def parquet_schema():
    import pyarrow as pa

    edit = pa.struct(
        [
            ("start", pa.int64()),
            ("end", pa.int64()),
            ("text", pa.string()),
            ("replacement", pa.string()),
            ("stage", pa.string()),
            ("reason", pa.string()),
            ("kind", pa.string()),
        ]
    )
    term = pa.struct(
        [("zh", pa.string()), ("en", pa.string()), ("start", pa.int64()), ("end", pa.int64())]
    )
    sentence = pa.struct(
        [
            ("id", pa.string()),
            ("start", pa.int64()),
            ("end", pa.int64()),
            ("zh", pa.string()),
            ("tokens", pa.list_(pa.string())),
            ("en", pa.string()),
            ("terms", pa.list_(term)),
            ("flag", pa.string()),
        ]
    )
    block = pa.struct(
        [
            ("id", pa.string()),
            ("n", pa.int64()),
            ("kind", pa.string()),
            ("level", pa.int64()),
            ("ordered", pa.bool_()),
            ("group", pa.int64()),
            ("row", pa.int64()),
            ("col", pa.int64()),
            ("lang", pa.string()),
            ("start", pa.int64()),
            ("end", pa.int64()),
            ("zh", pa.string()),
            ("en", pa.string()),
            ("sentences", pa.list_(sentence)),
        ]
    )
    undecodable = pa.struct([("start", pa.int64()), ("end", pa.int64()), ("bytes", pa.string())])
    source = pa.struct(
        [
            ("path", pa.string()),
            ("sha256", pa.string()),
            ("encoding", pa.string()),
            ("chars", pa.int64()),
            ("format", pa.string()),
            ("undecodable", pa.list_(undecodable)),
        ]
    )
    title = pa.struct([("block", pa.string()), ("zh", pa.string()), ("en", pa.string())])
    return pa.schema(
        [
            ("id", pa.string()),
            ("schema", pa.string()),
            ("pipeline", pa.string()),
            ("source", source),
            ("title", title),
            ("metadata", pa.string()),
            ("translator", pa.string()),
            ("removed", pa.list_(edit)),
            ("repaired", pa.list_(edit)),
            ("notes", pa.list_(pa.string())),
            ("blocks", pa.list_(block)),
        ]
    )


def parquet_bytes(records: list[dict]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        {k: json.dumps(v, ensure_ascii=False) if k in JSON_COLUMNS else v for k, v in r.items()}
        for r in records
    ]
    table = pa.Table.from_pylist(rows, schema=parquet_schema())
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def parquet_records(path: Path) -> list[dict]:
    """A shard's rows as JSON records again (JSON columns parsed; a key the JSON record does
    not have is None here)."""
    import pyarrow.parquet as pq

    return [_from_row(row) for row in pq.read_table(path).to_pylist()]


def _from_row(row: dict) -> dict:
    return {k: json.loads(v) if k in JSON_COLUMNS and v is not None else v for k, v in row.items()}
