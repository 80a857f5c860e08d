"""Writing a run's outputs: each document's Markdown and JSON, and the index.

A document is done when its JSON is written (last, atomically); the JSON records the run's
fingerprint, so the next run can tell an unchanged document from one to redo. The index is
built from data — each written document's own summary, or for an unchanged one, the summary
read back from its JSON — never by re-parsing Markdown.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pipeline import __version__
from pipeline.discover import InputFile
from pipeline.document import Document
from pipeline.write.files import write_atomic
from pipeline.write.index import render_index
from pipeline.write.json_doc import json_chunks
from pipeline.write.markdown import document_title, render_markdown, shorten


def index_row(
    file: InputFile,
    title: str,
    title_en: str | None,
    sentences: int,
    removals: int,
    translator: dict,
) -> dict:
    backend = translator.get("backend")
    label = translator.get("label")
    return {
        "md": f"{file.out_stem.as_posix()}.md",
        "source": file.display,
        "title": title or file.display,
        "title_en": title_en,
        "sentences": sentences,
        "removals": removals,
        "translator": f"{backend} ({label})" if label and label != backend else backend,
    }


def write_document(
    doc: Document,
    file: InputFile,
    out_dir: Path,
    translator: dict,
    fingerprint: str,
    layout: str,
) -> dict:
    """Write `<stem>.md` then `<stem>.json`; return the document's index row."""
    stem = out_dir / file.out_stem
    meta = {"version": __version__, "fingerprint": fingerprint}
    write_atomic(Path(f"{stem}.md"), render_markdown(doc, translator, layout))
    # JSON last: it is what marks a document as done for the next run.
    write_atomic(Path(f"{stem}.json"), json_chunks(doc, translator, meta))
    title, title_en = document_title(doc)
    sentences = sum(len(p.sentences) for p in doc.paragraphs)
    return index_row(file, title, title_en, sentences, len(doc.edits), translator)


def unchanged_row(file: InputFile, out_dir: Path, fingerprint: str) -> dict | None:
    """The index row of a document whose outputs are there and were made from the same input
    bytes with the same fingerprint; None when it must be (re)done."""
    json_path = out_dir / f"{file.out_stem}.json"
    if not (json_path.is_file() and (out_dir / f"{file.out_stem}.md").is_file()):
        return None
    try:
        data = json.loads(json_path.read_text(encoding="utf-8"))
        digest = hashlib.sha256(file.path.read_bytes()).hexdigest()
    except (OSError, ValueError):
        return None
    if (
        data.get("pipeline", {}).get("fingerprint") != fingerprint
        or data.get("source", {}).get("sha256") != digest
    ):
        return None
    paragraphs = data.get("paragraphs") or []
    first = paragraphs[0] if paragraphs else {}
    return index_row(
        file,
        shorten(first.get("zh")) or file.display,
        shorten(first.get("en")),
        sum(len(p.get("sentences", ())) for p in paragraphs),
        len(data.get("removed", ())) + len(data.get("repaired", ())),
        data.get("translator") or {},
    )


def write_index(out_dir: Path, rows: list[dict], appendix: str = "") -> None:
    if rows:
        write_atomic(out_dir / "index.md", render_index(rows, appendix))
