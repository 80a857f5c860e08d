"""The runner: find inputs, prepare each document through the stages, translate documents in
batches, write outputs, and report what failed. Stages know nothing of files; this does.

A run goes group by group (a few documents at a time): prepare the group (in worker processes
with --jobs > 1), translate all of its sentences in one batched call, write its files. A killed
run therefore keeps every finished group, and the next run skips documents whose input,
settings and pipeline version are unchanged (`--force` redoes them).
"""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from glob import glob
from pathlib import Path

import yaml

from pipeline import __version__
from pipeline.document import Document, evolve
from pipeline.read import HTML_SUFFIXES, MARKDOWN_SUFFIXES, EmptyInput, InputError, read_document
from pipeline.settings import Settings
from pipeline.stages import CLEANING, convert, split, words
from pipeline.text import han_count
from pipeline.translate import NONE_DESCRIPTION, Translator, translate_all
from pipeline.write.files import remove_stale_temp_files, write_atomic
from pipeline.write.index import render_index
from pipeline.write.json_doc import json_chunks
from pipeline.write.markdown import render_markdown

log = logging.getLogger(__name__)

INPUT_SUFFIXES = (".txt", *MARKDOWN_SUFFIXES, *HTML_SUFFIXES)
MAX_CLEANING_ROUNDS = 3
NO_CHINESE_NOTE = "no Chinese text: written through without translation"


@dataclass(frozen=True)
class InputFile:
    path: Path
    display: str  # how the file is named in output and messages
    out_stem: Path  # output path without suffix, relative to the output dir


@dataclass
class RunReport:
    written: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed


# -- discovery -------------------------------------------------------------------------------


def _walk(directory: Path) -> Iterator[Path]:
    """Input files below `directory`, in a stable order, never following a link in circles."""
    for root, dirs, files in os.walk(directory, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            if Path(name).suffix.lower() in INPUT_SUFFIXES:
                yield Path(root) / name


def discover(inputs: list[Path]) -> tuple[list[InputFile], list[tuple[str, str]]]:
    """Input files (files, directories searched recursively, globs), each with a unique output
    name, and (input, problem) for inputs that match nothing."""
    found: list[tuple[Path, Path]] = []  # (path, output stem)
    problems: list[tuple[str, str]] = []
    for inp in inputs:
        if inp.is_dir():
            found += [(p, p.relative_to(inp).with_suffix("")) for p in _walk(inp)]
        elif inp.exists() or inp.is_symlink():
            found.append((inp, Path(inp.stem)))
        elif any(c in str(inp) for c in "*?["):
            matches = sorted(Path(p) for p in glob(str(inp), recursive=True))
            files = [p for p in matches if p.is_file() and p.suffix.lower() in INPUT_SUFFIXES]
            if not files:
                problems.append((str(inp), "no input files match this pattern"))
            found += [(p, Path(p.stem)) for p in files]
        else:
            problems.append((str(inp), "no such file or directory"))
    return _unique_names(found), problems


def _unique_names(found: list[tuple[Path, Path]]) -> list[InputFile]:
    """Two inputs never share an output: `a.txt` + `a.md` become `a.txt.*` + `a.md.*`, and
    same-named files from different folders get `-2`, `-3`…"""
    seen_paths: set[Path] = set()
    unique = []
    for path, stem in found:
        key = path.resolve() if not path.is_symlink() else path.absolute()
        if key not in seen_paths:
            seen_paths.add(key)
            unique.append((path, stem))
    counts: dict[str, int] = {}
    for _, stem in unique:
        counts[stem.as_posix().lower()] = counts.get(stem.as_posix().lower(), 0) + 1
    taken: set[str] = set()
    files = []
    for path, stem in unique:
        if counts[stem.as_posix().lower()] > 1:
            stem = stem.with_name(path.name)
        candidate, n = stem, 2
        while candidate.as_posix().lower() in taken:
            candidate = stem.with_name(f"{stem.name}-{n}")
            n += 1
        taken.add(candidate.as_posix().lower())
        files.append(InputFile(path, str(path), candidate))
    return files


# -- the text stages -------------------------------------------------------------------------


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
    with _cyclic_gc_paused():
        doc = split(clean_document(doc, settings))
        doc = convert(doc)
        doc = words(doc, settings.user_dicts)
    if han_count(doc.original) == 0:
        doc = doc.with_note(NO_CHINESE_NOTE)
    return doc


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """The text stages build hundreds of thousands of small objects (edits, sentences, token
    tuples) that never form cycles: reference counting frees them, and the cyclic collector only
    re-traverses them, about a tenth of the stages' time on a long page (bench/)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class Prepared:
    file: InputFile
    doc: Document | None = None
    error: str | None = None
    warning: str | None = None


def prepare_file(file: InputFile, settings: Settings) -> Prepared:
    """Read and prepare one file; every problem becomes a message, never an exception."""
    try:
        return Prepared(file, prepare(read_document(file.path, file.display), settings))
    except EmptyInput as exc:
        return Prepared(file, warning=str(exc))
    except InputError as exc:
        return Prepared(file, error=str(exc))
    except RecursionError:
        return Prepared(file, error="too deeply nested to process")
    except Exception as exc:  # a bug must not stop the batch; report it with the file
        log.debug("failure preparing %s", file.display, exc_info=True)
        return Prepared(file, error=f"internal error: {type(exc).__name__}: {exc}")


def _prepare_one(args: tuple[InputFile, Settings]) -> Prepared:
    return prepare_file(*args)


# -- translation -----------------------------------------------------------------------------


def translate_documents(
    docs: list[Document], translator: Translator, settings: Settings
) -> list[Document]:
    """Translate every sentence of every document in one call, so the backend can batch.
    Documents without Chinese are left untranslated."""
    todo = [d for d in docs if NO_CHINESE_NOTE not in d.notes]
    sentences = [s.zh for d in todo for p in d.paragraphs for s in p.sentences]
    english = iter(translate_all(translator, sentences, settings))
    translated = {}
    for doc in todo:
        paragraphs = []
        for p in doc.paragraphs:
            sents = []
            for s in p.sentences:
                t = next(english)
                sents.append(evolve(s, en=t.en, flag=t.flag))
            en = " ".join(s.en for s in sents if s.en)
            paragraphs.append(evolve(p, sentences=tuple(sents), en=en))
        translated[id(doc)] = doc.replace(paragraphs=tuple(paragraphs))
    return [translated.get(id(d), d) for d in docs]


# -- incremental runs ------------------------------------------------------------------------


def run_fingerprint(settings: Settings, translator: dict) -> str:
    """What, besides the input, decides a document's output."""
    parts = [__version__, settings.fingerprint(), settings.layout, translator]
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def _up_to_date(file: InputFile, out_dir: Path, fingerprint: str) -> bool:
    json_path = out_dir / f"{file.out_stem}.json"
    md_path = out_dir / f"{file.out_stem}.md"
    if not (json_path.is_file() and md_path.is_file()):
        return False
    try:
        data = json.loads(json_path.read_text(encoding="utf-8"))
        digest = hashlib.sha256(file.path.read_bytes()).hexdigest()
    except (OSError, ValueError):
        return False
    return (
        data.get("pipeline", {}).get("fingerprint") == fingerprint
        and data.get("source", {}).get("sha256") == digest
    )


def _front_matter(md_path: Path) -> dict | None:
    """The YAML front matter of a written .md, read without reading the (maybe huge) rest."""
    try:
        with md_path.open(encoding="utf-8") as fh:
            if fh.readline().rstrip("\n") != "---":
                return None
            lines = []
            for line in fh:
                if line.rstrip("\n") == "---":
                    return yaml.safe_load("".join(lines)) or {}
                lines.append(line)
    except (OSError, yaml.YAMLError):
        return None
    return None


def _index_row(file: InputFile, out_dir: Path) -> dict | None:
    meta = _front_matter(out_dir / f"{file.out_stem}.md")
    if meta is None:
        return None
    return {
        "md": f"{file.out_stem.as_posix()}.md",
        "source": file.display,
        "title": meta.get("title") or file.display,
        "title_en": meta.get("title_en"),
        "sentences": meta.get("sentences", 0),
        "removals": sum((meta.get("removals") or {}).values()),
        "translator": meta.get("translator"),
    }


# -- the run ---------------------------------------------------------------------------------


def _groups(items: list[InputFile], size: int) -> Iterator[list[InputFile]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _progress(total: int, desc: str):
    if sys.stderr.isatty() and log.getEffectiveLevel() <= logging.INFO and total > 1:
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit="doc", leave=False)
    return None


def _pool(jobs: int) -> ProcessPoolExecutor:
    """Workers for the text stages. Fork is fast and shares the loaded dictionaries, but a
    process that has started torch's thread pool is not safe to fork: then spawn."""
    method = "spawn" if "torch" in sys.modules else "fork"
    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method))


def run(
    inputs: list[Path],
    out_dir: Path,
    settings: Settings,
    translator: Translator | None = None,
) -> RunReport:
    report = RunReport()
    if removed := remove_stale_temp_files(out_dir):
        log.info("removed %d temporary file(s) left by an interrupted run", removed)
    files, problems = discover(inputs)
    report.failed.extend(problems)
    description = translator.describe() if translator else NONE_DESCRIPTION
    fingerprint = run_fingerprint(settings, description)

    todo = []
    for f in files:
        if not settings.force and _up_to_date(f, out_dir, fingerprint):
            report.skipped.append(f.display)
            log.debug("unchanged, skipped: %s", f.display)
        else:
            todo.append(f)
    if report.skipped:
        log.info("%d document(s) unchanged since the last run, skipped", len(report.skipped))

    group_size = max(8, 4 * settings.jobs)
    pool = _pool(settings.jobs) if settings.jobs > 1 and len(todo) >= 4 else None
    progress = _progress(len(todo), "documents")
    done = 0
    try:
        for group in _groups(todo, group_size):
            if pool:
                results = list(pool.map(_prepare_one, [(f, settings) for f in group]))
            else:
                results = [prepare_file(f, settings) for f in group]
            ready = []
            for r in results:
                done += 1
                if r.error:
                    report.failed.append((r.file.display, r.error))
                    log.error("%s: %s", r.file.display, r.error)
                elif r.warning:
                    report.warnings.append((r.file.display, r.warning))
                    log.warning("%s: %s (nothing written)", r.file.display, r.warning)
                else:
                    ready.append(r)
                    if not progress:
                        log.info("prepared %d/%d: %s", done, len(todo), r.file.display)
            if progress:
                progress.update(len(group))
            docs = [r.doc for r in ready]
            if translator and docs:
                docs = translate_documents(docs, translator, settings)
            for r, doc in zip(ready, docs, strict=True):
                _write(doc, r.file, out_dir, description, fingerprint, settings)
                report.written.append(r.file.display)
                log.debug("wrote %s", r.file.display)
    finally:
        if progress:
            progress.close()
        if pool:
            pool.shutdown()

    rows = [row for f in files if (row := _index_row(f, out_dir))]
    if rows:
        write_atomic(out_dir / "index.md", render_index(rows))
    return report


def _write(
    doc: Document,
    file: InputFile,
    out_dir: Path,
    description: dict,
    fingerprint: str,
    settings: Settings,
) -> None:
    stem = out_dir / file.out_stem
    meta = {"version": __version__, "fingerprint": fingerprint}
    # JSON last: it is what marks a document as done for the next run.
    write_atomic(Path(f"{stem}.md"), render_markdown(doc, description, settings.layout))
    write_atomic(Path(f"{stem}.json"), json_chunks(doc, description, meta))
