"""Preparing one document: read it, then every text stage of the registry in order.

The removal stages run in rounds until nothing changes (one stage's cut can expose junk another
recognises), then split, convert and words run once. Every problem with a file becomes a
message on its result, never an exception, so one bad file cannot stop a batch.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from pipeline.context import Context
from pipeline.datasets import Record, record_document
from pipeline.discover import InputFile
from pipeline.document import Document
from pipeline.read import EmptyInput, InputError, read_document
from pipeline.registry import stages
from pipeline.text import han_count

log = logging.getLogger(__name__)

MAX_CLEANING_ROUNDS = 3
NO_CHINESE_NOTE = "no Chinese text: written through without translation"


def clean_document(doc: Document, ctx: Context) -> Document:
    """The removal stages (minus those turned off with --keep): the rule stages repeated until
    nothing changes, then the stages that judge a whole page (the classifier); and again, until
    a round of both changes nothing.

    One stage's cut can expose junk another stage recognises (a `?` left alone once an image
    name beside it is gone), and the classifier judges a line by its neighbours, which a cut
    changes. Repeating to a fixed point makes cleaning idempotent: cleaning clean output
    removes nothing (tests/test_cleaning_properties.py, tests/test_fuzz.py).
    """
    cleaning = [s for s in stages() if s.removes and ctx.settings.enabled(s.name)]
    # A stage is a function of the document: handed the very state (the same edits object)
    # in which it last changed nothing, it would change nothing again, so it is not run (the
    # last round is mostly such runs).
    settled: dict[str, tuple] = {}

    def run_settling(spec, doc: Document) -> Document:
        if settled.get(spec.name) is doc.edits:
            return doc
        edits = doc.edits
        doc = spec.run(doc, ctx)
        if doc.edits is edits:
            settled[spec.name] = edits
        return doc

    for _ in range(MAX_CLEANING_ROUNDS):
        page_before = doc.edits
        for _ in range(MAX_CLEANING_ROUNDS):
            before = doc.edits
            for spec in cleaning:
                if not spec.once:
                    doc = run_settling(spec, doc)
            if doc.edits == before:
                break
        for spec in cleaning:
            if spec.once:
                doc = run_settling(spec, doc)
        if doc.edits == page_before:
            break
    return doc


def prepare(doc: Document, ctx: Context) -> Document:
    """Every text stage: clean, then the others (split, convert, words, …) in order."""
    with cyclic_gc_paused():
        doc = clean_document(doc, ctx)
        for spec in stages():
            if not spec.removes:
                doc = spec.run(doc, ctx)
    if han_count(doc.original) == 0:
        doc = doc.replace(no_chinese=True, notes=(*doc.notes, NO_CHINESE_NOTE))
    return doc


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """The text stages build hundreds of thousands of small objects (edits, sentences, token
    tuples) that never form cycles: reference counting frees them, and the cyclic collector only
    re-traverses them, about a tenth of the stages' time on a long page (bench/). Reading
    (markdown-it's tokens) and writing (a dict per sentence and removal) are alike. Nested
    pauses leave the collector as the outermost found it; once it runs again, what was
    allocated meanwhile counts towards its next collection as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class Prepared:
    name: str  # how messages name the document: the file as given, or dataset#record
    doc: Document | None = None
    error: str | None = None
    warning: str | None = None


def prepare_file(file: InputFile, ctx: Context) -> Prepared:
    """Read and prepare one file; every problem becomes a message, never an exception."""
    return _guarded(
        file.display, lambda: read_document(file.path, file.relative or file.display), ctx
    )


def prepare_record(record: Record, dataset: str, ctx: Context) -> Prepared:
    """Prepare one dataset record, as `prepare_file` does a file."""

    def load() -> Document:
        if not record.text.strip():
            raise EmptyInput("empty text")
        return record_document(record, dataset)

    return _guarded(f"{dataset}#{record.key}", load, ctx)


def _guarded(name: str, load: Callable[[], Document], ctx: Context) -> Prepared:
    try:
        with cyclic_gc_paused():
            doc = prepare(load(), ctx)
        warnings = [w for w in (_decoding_warning(doc), _emptied_warning(doc)) if w]
        return Prepared(name, doc, warning="; ".join(warnings) or None)
    except EmptyInput as exc:
        return Prepared(name, warning=str(exc))
    except InputError as exc:
        return Prepared(name, error=str(exc))
    except RecursionError:
        return Prepared(name, error="too deeply nested to process")
    except Exception as exc:  # a bug must not stop the batch; report it with the document
        log.debug("failure preparing %s", name, exc_info=True)
        return Prepared(name, error=f"internal error: {type(exc).__name__}: {exc}")


def _emptied_warning(doc: Document) -> str | None:
    """A page the cleaner emptied is written (its audit says what went) but never silently."""
    if doc.blocks:
        return None
    return (
        f"the cleaner removed all of its text ({len(doc.edits)} removal(s)); "
        "the page is written with its audit — see the JSON's removed list, or rerun with --keep"
    )


def _decoding_warning(doc: Document) -> str | None:
    undecodable = doc.source.undecodable
    if not undecodable:
        return None
    count = len(undecodable)
    return (
        f"{count} undecodable byte sequence(s) replaced with U+FFFD "
        f"(first at character {undecodable[0][0]}); listed in the JSON's source.undecodable"
    )
