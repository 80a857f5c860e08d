"""Datasets as input: JSONL (plain or gzipped) and Parquet files whose records are documents.

Records are streamed: a JSONL file line by line, a Parquet file a row group batch at a time
(only the columns asked for), so a file of any size runs in bounded memory. Each record becomes
a `Record`: its text, an id (the `--id-field`, else `<file>:<record number>`) and an optional
title. A record that cannot be a document (not an object, no text field, text not a string)
is a `RecordError` naming file and record; the rest of the file goes on.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pipeline.document import Document, Source

DATASET_SUFFIXES = (".jsonl", ".jsonl.gz", ".parquet")
PARQUET_BATCH_ROWS = 1024


@dataclass(frozen=True)
class Fields:
    text: str = "text"
    id: str | None = None
    title: str | None = None


@dataclass(frozen=True)
class Record:
    key: str  # the record's id: unique within its dataset
    text: str
    title: str | None = None
    number: int = 0  # 1-based place in its file


@dataclass(frozen=True)
class RecordError:
    key: str
    problem: str
    number: int = 0
    no_text: bool = False  # the record has no text field at all


def is_dataset(path: Path) -> bool:
    name = path.name.lower()
    return any(name.endswith(suffix) for suffix in DATASET_SUFFIXES)


def dataset_stem(path: Path) -> str:
    """`pages.jsonl.gz` → `pages`."""
    name = path.name
    for suffix in DATASET_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def dataset_format(path: Path) -> str:
    return "parquet" if path.name.lower().endswith(".parquet") else "jsonl"


def iter_records(path: Path, fields: Fields) -> Iterator[Record | RecordError]:
    """Every record of a dataset file, in order."""
    rows = _parquet_rows(path, fields) if dataset_format(path) == "parquet" else _jsonl_rows(path)
    for number, row in enumerate(rows, 1):
        yield to_record(row, number, path, fields)


def to_record(row: object, number: int, path: Path, fields: Fields) -> Record | RecordError:
    fallback = f"{dataset_stem(path)}:{number}"
    if isinstance(row, RecordError):
        return row
    if not isinstance(row, dict):
        return RecordError(fallback, "not a JSON object", number)
    key = row.get(fields.id) if fields.id else None
    key = fallback if key is None or key == "" else str(key)
    text = row.get(fields.text)
    if text is None:
        return RecordError(key, f"no {fields.text!r} field (set --text-field)", number, True)
    if not isinstance(text, str):
        return RecordError(key, f"{fields.text!r} is a {type(text).__name__}, not text", number)
    title = row.get(fields.title) if fields.title else None
    title = str(title).strip() if title not in (None, "") else None
    return Record(key, text, title, number)


def _jsonl_rows(path: Path) -> Iterator[object]:
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rb") as raw:
        for number, line in enumerate(io.BufferedReader(raw), 1):
            if not line.strip():
                yield RecordError(f"{dataset_stem(path)}:{number}", "empty line", number)
                continue
            try:
                yield json.loads(line)
            except ValueError as exc:
                yield RecordError(f"{dataset_stem(path)}:{number}", f"invalid JSON: {exc}", number)


def _parquet_rows(path: Path, fields: Fields) -> Iterator[object]:
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(path)
    names = set(parquet.schema_arrow.names)
    wanted = [f for f in (fields.text, fields.id, fields.title) if f and f in names]
    for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=wanted):
        yield from batch.to_pylist()


def record_text(record: Record) -> str:
    """A record's document text: its title (if any) on the first line, then its text."""
    return f"{record.title}\n\n{record.text}" if record.title else record.text


def record_sha256(record: Record) -> str:
    """The SHA-256 a record's document names as its source's (what a resume compares)."""
    return hashlib.sha256(record_text(record).encode("utf-8")).hexdigest()


def record_document(record: Record, dataset: str) -> Document:
    text = record_text(record)
    source = Source(
        path=f"{dataset}#{record.key}",
        sha256=record_sha256(record),
        encoding="utf-8",
        chars=len(text),
        format="text",
    )
    return Document(original=text, source=source, title=record.title)
