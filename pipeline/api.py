"""The Python API: what the command line does, for text and records already in memory.

    import pipeline

    doc = pipeline.process_text("發(fā)展很快。", translator="none")
    doc.blocks[0].zh                       # '发展很快。'

    records = [{"id": "a", "text": "…"}, {"id": "b", "text": "…"}]
    for out in pipeline.process(records, id_field="id", translator="gloss"):
        out["blocks"]                      # the same content as the JSON file / a JSONL record

`settings` is a `pipeline.Settings` (defaults when omitted; `pipeline.build_settings` builds
one from dicts, as `pipeline.toml` does); `translator` names a backend (`none`, `gloss`,
`marian`, `auto`) or is one already built, so a loop over many calls loads the model once.
Both executors (local, Ray) run documents through these same functions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from pathlib import Path

from pipeline import __version__
from pipeline.context import Context
from pipeline.datasets import Fields, Record, RecordError, record_document, to_record
from pipeline.document import Document
from pipeline.prepare import prepare
from pipeline.settings import Settings
from pipeline.translate import Translator, describe, select_translator
from pipeline.write.records import document_record

BATCH = 64  # documents translated in one call by `process`


def context(settings: Settings | None = None) -> Context:
    """Settings with the files they name read (word lists, glossaries): build once, reuse."""
    return Context.load(settings or Settings())


def translator_for(ctx: Context, translator: str | Translator | None) -> Translator | None:
    """A backend by name (`none` gives None), or the one passed in."""
    if translator is None or isinstance(translator, str):
        name = translator or ctx.settings.translator
        settings = dataclasses.replace(ctx.settings, translator=name)
        return select_translator(dataclasses.replace(ctx, settings=settings))
    return translator


def process_text(
    text: str,
    settings: Settings | Context | None = None,
    *,
    translator: str | Translator | None = "none",
    title: str | None = None,
    name: str = "text",
) -> Document:
    """One text through every stage (and the translator): the cleaned, segmented document."""
    ctx = settings if isinstance(settings, Context) else context(settings)
    doc = prepare(record_document(Record(name, text, title), "text"), ctx)
    backend = translator_for(ctx, translator)
    if backend is None or doc.no_chinese:
        return doc
    from pipeline.runner import translate_documents

    return translate_documents([doc], backend, ctx)[0]


def process(
    records: Iterable[dict | str],
    settings: Settings | Context | None = None,
    *,
    translator: str | Translator | None = "none",
    text_field: str | None = None,
    id_field: str | None = None,
    title_field: str | None = None,
    dataset: str = "records",
) -> Iterator[dict]:
    """Records (dicts with a text field, or plain strings) → output records, in order, with
    the content of the JSON contract plus `id`. A record that cannot be a document yields
    `{"id", "error"}` instead; nothing is dropped silently."""
    ctx = settings if isinstance(settings, Context) else context(settings)
    s = ctx.settings
    fields = Fields(
        text_field or s.text_field, id_field or s.id_field, title_field or s.title_field
    )
    backend = translator_for(ctx, translator)
    description = describe(backend)
    meta = {"version": __version__, "fingerprint": ctx.fingerprint(description)}
    batch: list[Document | dict] = []
    for number, raw in enumerate(records, 1):
        row = {fields.text: raw} if isinstance(raw, str) else raw
        record = to_record(row, number, Path(dataset), fields)
        if isinstance(record, RecordError):
            batch.append({"id": record.key, "error": record.problem})
        else:
            batch.append(prepare(record_document(record, dataset), ctx))
        if len(batch) >= BATCH:
            yield from _finish(batch, backend, ctx, description, meta)
            batch = []
    yield from _finish(batch, backend, ctx, description, meta)


def _finish(
    batch: list, backend: Translator | None, ctx: Context, description: dict, meta: dict
) -> Iterator[dict]:
    docs = [d for d in batch if isinstance(d, Document)]
    if backend is not None:
        from pipeline.runner import translate_documents

        translated = iter(translate_documents(docs, backend, ctx))
    else:
        translated = iter(docs)
    for item in batch:
        if isinstance(item, Document):
            doc = next(translated)
            key = doc.source.path.partition("#")[2]
            yield document_record(doc, key, description, meta)
        else:
            yield item
