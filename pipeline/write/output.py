"""Writing a run's outputs: each document's Markdown and JSON, and the index.

A document is done when its JSON is written (last, atomically); the JSON records the run's
fingerprint, so the next run can tell an unchanged document from one to redo. The index lists
every document in the output folder, read back from their JSON files (never by re-parsing
Markdown), so running one file into a folder of ten keeps all eleven in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import msgspec

from pipeline import __version__
from pipeline.document import Document
from pipeline.settings import Settings
from pipeline.write.documents import IndexDocument, index_document, index_of
from pipeline.write.files import write_atomic
from pipeline.write.index import render_index
from pipeline.write.json_doc import json_chunks
from pipeline.write.markdown import render_markdown
from pipeline.write.terms import write_term_table


class _Stamp(msgspec.Struct):
    fingerprint: str | None = None


class _Source(msgspec.Struct):
    sha256: str | None = None


class _Done(msgspec.Struct):
    """The two fields that tell whether a document is unchanged: msgspec decodes only these
    and skips the rest of the file (the blocks) without building it."""

    pipeline: _Stamp = msgspec.field(default_factory=_Stamp)
    source: _Source = msgspec.field(default_factory=_Source)


_read_done = msgspec.json.Decoder(_Done).decode


class Written(NamedTuple):
    """What the index reads of a document this run wrote, and its JSON file's stamp then."""

    stamp: tuple[int, int, int]
    data: IndexDocument


def write_document(
    doc: Document,
    out_stem: Path,
    out_dir: Path,
    translator: dict,
    fingerprint: str,
    settings: Settings,
) -> tuple[Path, Written] | None:
    """Write `<stem>.md`, then `<stem>.json` (`out_stem` relative to `out_dir`). Returns the
    JSON's path and what the index reads of it, for `write_index` (None: it decodes the file)."""
    stem = out_dir / out_stem
    meta = {"version": __version__, "fingerprint": fingerprint}
    markdown = render_markdown(doc, translator, settings.layout, settings.flavor)
    write_atomic(Path(f"{stem}.md"), markdown)
    # JSON last: it is what marks a document as done for the next run.
    json_path = Path(f"{stem}.json")
    write_atomic(json_path, json_chunks(doc, translator, meta, settings.pretty))
    data = index_of(doc, translator)
    return None if data is None else (json_path, Written(_stamp(json_path), data))


def _stamp(path: Path) -> tuple[int, int, int]:
    """Changes whenever the file is written again (an atomic write makes a new inode)."""
    st = path.stat()
    return st.st_mtime_ns, st.st_size, st.st_ino


def is_unchanged(out_stem: Path, sha256: str, out_dir: Path, fingerprint: str) -> bool:
    """Whether a document's outputs are there and were made from input with this SHA-256 and
    with the same fingerprint."""
    json_path = out_dir / f"{out_stem}.json"
    if not (json_path.is_file() and (out_dir / f"{out_stem}.md").is_file()):
        return False
    try:
        done = _read_done(json_path.read_bytes())
    except (OSError, msgspec.DecodeError):  # ValidationError is a DecodeError
        return False
    return done.pipeline.fingerprint == fingerprint and done.source.sha256 == sha256


def folder_documents(
    out_dir: Path, written: Mapping[Path, Written] | None = None
) -> list[tuple[str, IndexDocument]]:
    """(Markdown path relative to `out_dir`, what the index reads of its JSON) for every
    document in the folder: a JSON file of ours whose Markdown is beside it. Other runs'
    documents count too; a document whose files are gone drops out. `written`: what this
    run wrote, by JSON path, taken as it is while the file is the one written."""
    written = written or {}
    found = []
    for json_path in sorted(out_dir.rglob("*.json")):
        md = json_path.with_suffix(".md")
        if json_path.name.startswith(".") or not md.is_file():
            continue
        try:
            data = _index_data(json_path, written.get(json_path))
        except (OSError, msgspec.DecodeError):
            continue
        if data is not None:
            found.append((md.relative_to(out_dir).as_posix(), data))
    return found


def _index_data(json_path: Path, written: Written | None) -> IndexDocument | None:
    if written is not None and written.stamp == _stamp(json_path):
        return written.data
    return index_document(json_path.read_bytes())


def index_name(flavor: str) -> str:
    """Hugo reads `index.md` as a leaf bundle that hides the folder's other pages; its
    section page is `_index.md`."""
    return "_index.md" if flavor == "hugo" else "index.md"


def write_index(
    out_dir: Path, flavor: str = "common", written: Mapping[Path, Written] | None = None
) -> None:
    """`index.md` and `terms.tsv` for every document in the folder (`written`: see
    `folder_documents`)."""
    documents = folder_documents(out_dir, written)
    if documents:
        terms = write_term_table(out_dir, [data for _, data in documents])
        write_atomic(out_dir / index_name(flavor), render_index(documents, terms))
