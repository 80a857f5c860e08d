"""What the folder's index and term table read of each document's JSON (write/index.py,
write/terms.py): msgspec decodes these fields only and skips the rest of the file (offsets,
ids, block texts) without building it."""

from __future__ import annotations

from itertools import starmap
from operator import itemgetter

import msgspec

from pipeline.document import Document, Edit, Sentence
from pipeline.write.json_doc import SCHEMA, picked_edits

DOCUMENT_SCHEMA = "pipeline/document@"
_read_json = msgspec.json.Decoder().decode


class IndexTerm(msgspec.Struct, gc=False):
    zh: str
    start: int
    end: int
    en: str | None = None


class IndexSentence(msgspec.Struct, gc=False):
    zh: str = ""
    tokens: list[str] = msgspec.field(default_factory=list)
    en: str | None = None
    terms: list[IndexTerm] | None = None


class IndexBlock(msgspec.Struct, gc=False):
    sentences: list[IndexSentence] | None = None


class IndexEdit(msgspec.Struct, gc=False):
    text: str = ""
    stage: str | None = None
    reason: str | None = None
    kind: str = ""


class IndexTitle(msgspec.Struct, gc=False):
    zh: str | None = None
    en: str | None = None


class IndexSource(msgspec.Struct, gc=False):
    path: str | None = None


class IndexTranslator(msgspec.Struct, gc=False):
    backend: str | None = None
    label: str | None = None


class IndexDocument(msgspec.Struct, gc=False):
    schema: str = ""
    source: IndexSource | None = None
    title: IndexTitle | None = None
    translator: IndexTranslator | None = None
    removed: list[IndexEdit] | None = None
    repaired: list[IndexEdit] | None = None
    blocks: list[IndexBlock] | None = None


_read_index_document = msgspec.json.Decoder(IndexDocument).decode


def index_document(raw: bytes) -> IndexDocument | None:
    """The fields of a document's JSON the index reads; None for JSON that is not one. A
    document whose fields have other types than ours is read as plain JSON and converted
    leniently, or left out."""
    try:
        data = _read_index_document(raw)
    except msgspec.ValidationError:
        data = _read_json(raw)
        if not isinstance(data, dict) or not str(data.get("schema", "")).startswith(
            DOCUMENT_SCHEMA
        ):
            return None
        try:
            data = msgspec.convert(data, IndexDocument, strict=False)
        except msgspec.ValidationError:
            return None
    return data if data.schema.startswith(DOCUMENT_SCHEMA) else None


def index_of(doc: Document, translator: dict) -> IndexDocument | None:
    """What `index_document` reads back from the JSON `json_doc.json_chunks` writes for `doc`,
    built from the document itself: decoding a run's JSON again (tens of MB of tokens and
    readings) was most of writing the index. None when the translator's description is not
    of the types the index reads: then the file is decoded."""
    try:
        described = msgspec.convert(translator, IndexTranslator)
    except msgspec.ValidationError:
        return None
    title = doc.title_block()
    return IndexDocument(
        schema=SCHEMA,
        source=IndexSource(path=doc.source.path),
        title=None if title is None else IndexTitle(zh=title.zh, en=title.en),
        translator=described,
        removed=_index_edits(doc.edits, repairs=False),
        repaired=_index_edits(doc.edits, repairs=True),
        blocks=[IndexBlock([_index_sentence(s) for s in b.sentences]) for b in doc.blocks],
    )


# Edit (start, end, stage, reason, text, replacement, kind) → IndexEdit's fields in order
_INDEX_EDIT_FIELDS = itemgetter(4, 2, 3, 6)


def _index_edits(edits: tuple[Edit, ...], repairs: bool) -> list[IndexEdit]:
    """The removals (or repairs) as the index reads them, built by C iterators."""
    return list(starmap(IndexEdit, map(_INDEX_EDIT_FIELDS, picked_edits(edits, repairs))))


def _index_sentence(s: Sentence) -> IndexSentence:
    terms = [IndexTerm(zh=t.zh, start=t.start, end=t.end, en=t.en) for t in s.terms] or None
    return IndexSentence(zh=s.zh, tokens=list(s.tokens), en=s.en, terms=terms)
