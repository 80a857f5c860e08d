"""The runner: find inputs, prepare each document through the stages, translate all documents
in one batch, write outputs, and report what failed. Stages know nothing of files; this does."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from pathlib import Path

from pipeline.document import Document
from pipeline.read import InputError, read_document
from pipeline.settings import Settings
from pipeline.stages import CLEANING, convert, split, words
from pipeline.translate import NONE_DESCRIPTION, Translator, translate_all
from pipeline.write.files import write_atomic
from pipeline.write.index import render_index
from pipeline.write.json_doc import render_json
from pipeline.write.markdown import document_title, render_markdown

log = logging.getLogger(__name__)

INPUT_SUFFIXES = (".txt", ".md")


@dataclass(frozen=True)
class InputFile:
    path: Path
    display: str  # how the file is named in output and messages
    out_stem: Path  # output path without suffix, relative to the output dir


@dataclass
class RunReport:
    written: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed


def discover(inputs: list[Path]) -> tuple[list[InputFile], list[tuple[str, str]]]:
    """Input files in a stable order, and (input, problem) for inputs that do not exist."""
    found: list[InputFile] = []
    missing: list[tuple[str, str]] = []
    for inp in inputs:
        if inp.is_dir():
            for path in sorted(p for p in inp.rglob("*") if p.suffix.lower() in INPUT_SUFFIXES):
                if path.is_file():
                    rel = path.relative_to(inp)
                    found.append(InputFile(path, str(path), rel.with_suffix("")))
        elif inp.is_file():
            found.append(InputFile(inp, str(inp), Path(inp.stem)))
        else:
            missing.append((str(inp), "no such file or directory"))
    return found, missing


MAX_CLEANING_ROUNDS = 3


def clean_document(doc: Document, settings: Settings) -> Document:
    """The removal stages (minus those turned off with --keep), repeated until nothing changes.

    One stage's cut can expose junk another stage recognises (a `?` left alone once an image
    name beside it is gone), so a second round makes cleaning idempotent: cleaning clean
    output removes nothing.
    """
    for _ in range(MAX_CLEANING_ROUNDS):
        before = doc.edits
        for name, stage in CLEANING:
            if settings.enabled(name):
                doc = stage(doc, settings)
        if doc.edits == before:
            break
    return doc


def prepare(doc: Document, settings: Settings) -> Document:
    """Every text stage: clean, split, convert to Simplified, segment words."""
    doc = split(clean_document(doc, settings))
    doc = convert(doc)
    return words(doc, settings.user_dicts)


def translate_documents(
    docs: list[Document], translator: Translator, settings: Settings
) -> list[Document]:
    """Translate every sentence of every document in one call, so the backend can batch."""
    sentences = [s.zh for d in docs for p in d.paragraphs for s in p.sentences]
    english = iter(translate_all(translator, sentences, settings))
    out = []
    for doc in docs:
        paragraphs = []
        for p in doc.paragraphs:
            sents = []
            for s in p.sentences:
                t = next(english)
                sents.append(replace(s, en=t.en, flag=t.flag))
            en = " ".join(s.en for s in sents if s.en)
            paragraphs.append(replace(p, sentences=tuple(sents), en=en))
        out.append(doc.replace(paragraphs=tuple(paragraphs)))
    return out


def run(
    inputs: list[Path],
    out_dir: Path,
    settings: Settings,
    translator: Translator | None = None,
) -> RunReport:
    report = RunReport()
    files, missing = discover(inputs)
    report.failed.extend(missing)
    prepared: list[tuple[InputFile, Document]] = []
    for f in files:
        try:
            doc = read_document(f.path, f.display)
        except InputError as exc:
            report.failed.append((f.display, str(exc)))
            log.error("%s: %s", f.display, exc)
            continue
        prepared.append((f, prepare(doc, settings)))
        log.info("prepared %s", f.display)

    description = translator.describe() if translator else NONE_DESCRIPTION
    if translator and prepared:
        docs = translate_documents([d for _, d in prepared], translator, settings)
        prepared = [(f, d) for (f, _), d in zip(prepared, docs, strict=True)]

    index_rows = []
    for f, doc in prepared:
        md_rel = f.out_stem.with_suffix(".md")
        write_atomic(out_dir / f.out_stem.with_suffix(".json"), render_json(doc, description))
        write_atomic(out_dir / md_rel, render_markdown(doc, description, settings.layout))
        report.written.append(f.display)
        title, title_en = document_title(doc)
        index_rows.append(
            {
                "md": md_rel.as_posix(),
                "source": f.display,
                "title": title,
                "title_en": title_en,
                "sentences": sum(len(p.sentences) for p in doc.paragraphs),
                "removals": len(doc.edits),
                "translator": description["backend"],
            }
        )
    if index_rows:
        write_atomic(out_dir / "index.md", render_index(index_rows))
    return report
