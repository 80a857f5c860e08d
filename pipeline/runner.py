"""The runner: find inputs, prepare documents through the stages, translate them in batches,
write their outputs, and report what failed. Stages know nothing of files; this does.

Inputs are files (text, Markdown, HTML) and datasets (JSONL, Parquet: a record is a document).
A run goes group by group (a few documents at a time): prepare the group (in worker processes
with --jobs > 1), translate all of its sentences in one batched call, write its outputs —
Markdown + JSON per document, or for dataset output one shard per `--shard-size` inputs. A
killed or interrupted run therefore keeps every finished group or shard, and the next run skips
documents (shards) whose input and fingerprint are unchanged (`--force` redoes them). Datasets
are streamed: one shard's records are in memory at a time.

This is the local executor; pipeline/ray_executor.py runs the same steps on Ray Data.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import multiprocessing
import re
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from pipeline import __version__
from pipeline.context import Context
from pipeline.datasets import (
    Fields,
    Record,
    RecordError,
    dataset_format,
    dataset_stem,
    is_dataset,
    iter_records,
    record_sha256,
)
from pipeline.discover import InputFile, discover
from pipeline.document import Document, evolve
from pipeline.prepare import Prepared, cyclic_gc_paused, prepare_file, prepare_record
from pipeline.ray_executor import RayBatches
from pipeline.translate import Translator, describe, translate_all
from pipeline.translate.engines import available_cores
from pipeline.write.files import remove_stale_temp_files
from pipeline.write.output import Written, is_unchanged, write_document, write_index
from pipeline.write.records import ShardSink, document_record, records_digest

log = logging.getLogger(__name__)


@dataclass
class RunReport:
    written: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        return not self.failed and not self.interrupted


def translate_documents(
    docs: list[Document], translator: Translator, ctx: Context
) -> list[Document]:
    """Translate every sentence of every document in one call, so the backend can batch.
    Documents without Chinese are left untranslated."""
    todo = [d for d in docs if not d.no_chinese]
    sentences = [s.zh for d in todo for b in d.blocks for s in b.sentences]
    english = iter(translate_all(translator, sentences, ctx.settings))
    translated = {}
    for doc in todo:
        blocks = []
        for b in doc.blocks:
            if not b.sentences:  # code is never translated
                blocks.append(b)
                continue
            sents = []
            for s in b.sentences:
                t = next(english)
                sents.append(evolve(s, en=t.en, flag=t.flag))
            en = " ".join(s.en for s in sents if s.en)
            blocks.append(evolve(b, sentences=tuple(sents), en=en))
        translated[id(doc)] = doc.replace(blocks=tuple(blocks))
    return [translated.get(id(d), d) for d in docs]


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the main process handles it, workers stay quiet.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pool(jobs: int) -> ProcessPoolExecutor:
    """Workers for the text stages. Fork is fast and shares the loaded dictionaries, but a
    process that has started torch's thread pool is not safe to fork: then spawn."""
    method = "spawn" if "torch" in sys.modules else "fork"
    context = multiprocessing.get_context(method)
    return ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_interrupts)


Item = InputFile | tuple[Record, str]  # a file, or a dataset record with its dataset's name


def prepare_item(item: Item, ctx: Context) -> Prepared:
    if isinstance(item, InputFile):
        return prepare_file(item, ctx)
    return prepare_record(*item, ctx)


def _prepare_one(args: tuple[Item, Context]) -> Prepared:
    return prepare_item(*args)


class _Batches:
    """Prepares and translates documents a group at a time: the text stages in worker
    processes (started on first need), then one batched translation call per group."""

    def __init__(self, ctx: Context, translator: Translator | None, stack: ExitStack):
        self.ctx = ctx
        self.translator = translator
        self.stack = stack
        self.jobs = ctx.settings.jobs or available_cores()
        self.pool: ProcessPoolExecutor | None = None
        self.progress = None

    def group_size(self) -> int:
        return max(8, 4 * self.jobs)

    def process(self, items: list[Item], report: RunReport) -> list[Prepared]:
        """The prepared (and translated) documents of `items`; failures and warnings go to
        the report."""
        if self.pool is None and self.jobs > 1 and len(items) >= 4:
            self.pool = self.stack.enter_context(_pool(self.jobs))
        if self.pool:
            size = max(1, len(items) // (4 * self.jobs))
            results = list(
                self.pool.map(_prepare_one, [(i, self.ctx) for i in items], chunksize=size)
            )
        else:
            results = [prepare_item(i, self.ctx) for i in items]
        ready = _sort_results(results, report, self.progress)
        if self.translator and ready:
            docs = translate_documents([r.doc for r in ready], self.translator, self.ctx)
            ready = [dataclasses.replace(r, doc=d) for r, d in zip(ready, docs, strict=True)]
        return ready

    def shutdown(self) -> None:
        if self.pool:
            self.pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class _Run:
    out_dir: Path
    ctx: Context
    description: dict
    fingerprint: str
    batches: _Batches | RayBatches
    report: RunReport
    # what the index reads of each document written, by JSON path: no decoding it again
    written: dict[Path, Written] = field(default_factory=dict)

    @property
    def settings(self):
        return self.ctx.settings

    def markdown_files(self, files: list[InputFile]) -> None:
        todo = []
        for f in files:
            digest = _file_sha256(f.path)
            if (
                not self.settings.force
                and digest
                and is_unchanged(f.out_stem, digest, self.out_dir, self.fingerprint)
            ):
                self.report.skipped.append(f.display)
            else:
                todo.append(f)
        if self.report.skipped:
            log.info(
                "%d document(s) unchanged since the last run, skipped", len(self.report.skipped)
            )
        self.batches.progress = _progress(len(todo), "documents")
        stems = {f.display: f.out_stem for f in todo}
        try:
            for group in _groups(todo, self.batches.group_size()):
                self._process_and_write(group, stems)
        finally:
            if self.batches.progress:
                self.batches.progress.close()

    def markdown_records(self, dataset: InputFile, chunks: Iterator[_Chunk]) -> None:
        folder = dataset.out_stem.parent / dataset_stem(dataset.path)
        names = _RecordNames()
        for chunk in chunks:
            todo: list[Item] = []
            stems: dict[str, Path] = {}
            for item, (name, key) in zip(chunk.items, chunk.keys, strict=True):
                stem = folder / names.next(key)
                sha = record_sha256(item[0])
                if not self.settings.force and is_unchanged(
                    stem, sha, self.out_dir, self.fingerprint
                ):
                    self.report.skipped.append(name)
                else:
                    todo.append(item)
                    stems[name] = stem
            self._process_and_write(todo, stems)

    def _process_and_write(self, items: list[Item], stems: dict[str, Path]) -> None:
        """Prepare, translate and write a group. The cyclic collector stays paused from the
        first document to the last write: between two documents it would traverse every
        object of those already prepared and waiting to be written (a tenth of a million
        per page), about 3% of a run; once the group is written they are freed by reference
        counting, so it resumes with little to look at."""
        with cyclic_gc_paused():
            for r in self.batches.process(items, self.report):
                self._write_markdown(r, stems[r.name])

    def _write_markdown(self, r: Prepared, stem: Path) -> None:
        with cyclic_gc_paused():
            entry = write_document(
                r.doc, stem, self.out_dir, self.description, self.fingerprint, self.settings
            )
        if entry is not None:
            self.written[entry[0]] = entry[1]
        self.report.written.append(r.name)
        log.debug("wrote %s", r.name)

    def shards(self, folder: Path, fmt: str, chunks: Iterator[_Chunk]) -> None:
        """Dataset output: each chunk of input becomes one shard, skipped when the manifest
        says it was made from the same records with the same fingerprint."""
        sink = ShardSink(folder, fmt, self.fingerprint)
        meta = {"version": __version__, "fingerprint": self.fingerprint}
        count = 0
        for number, chunk in enumerate(chunks):
            count = number + 1
            names = [name for name, _ in chunk.keys]
            if not self.settings.force and sink.done(number, chunk.digest):
                self.report.skipped += names
                continue
            key_of = dict(chunk.keys)
            ready = self.batches.process(chunk.items, self.report)
            records = [
                document_record(r.doc, key_of[r.name], self.description, meta) for r in ready
            ]
            sink.write(number, chunk.digest, records)
            self.report.written += [r.name for r in ready]
            log.info("%s: shard %d written (%d records)", folder.name, number, len(records))
        sink.finish(count)


@dataclass
class _Chunk:
    """Up to --shard-size inputs: their items, (message name, record id) pairs, and a digest
    of what they hold."""

    items: list[Item]
    keys: list[tuple[str, str]]
    digest: str


def _file_chunks(files: list[InputFile], size: int) -> Iterator[_Chunk]:
    for group in _groups(files, size):
        parts = [(f.relative or f.display, _file_sha256(f.path) or "", None) for f in group]
        keys = [(f.display, f.relative or f.display) for f in group]
        yield _Chunk(list(group), keys, records_digest(parts))


def _record_chunks(dataset: InputFile, settings, report: RunReport) -> Iterator[_Chunk]:
    fields = Fields(settings.text_field, settings.id_field, settings.title_field)
    name = dataset_stem(dataset.path)
    chunk: list[Record] = []

    def flush() -> _Chunk:
        parts = [(r.key, r.text, r.title) for r in chunk]
        keys = [(f"{name}#{r.key}", r.key) for r in chunk]
        return _Chunk([(r, name) for r in chunk], keys, records_digest(parts))

    try:
        for record in iter_records(dataset.path, fields):
            if isinstance(record, RecordError) and record.no_text and record.number == 1:
                # e.g. a labels or metadata file beside the pages: one error, not one per line
                problem = f"its first record has no {fields.text!r} field: not a dataset of "
                problem += "documents (set --text-field)"
                report.failed.append((dataset.display, problem))
                log.error("%s: %s", dataset.display, problem)
                return
            if isinstance(record, RecordError):
                where = f"{dataset.display} record {record.number}"
                report.failed.append((where, record.problem))
                log.error("%s: %s", where, record.problem)
                continue
            chunk.append(record)
            if len(chunk) >= settings.shard_size:
                yield flush()
                chunk = []
    except (OSError, ValueError) as exc:  # an unreadable or truncated file
        report.failed.append((dataset.display, f"cannot read the dataset: {exc}"))
        log.error("%s: cannot read the dataset: %s", dataset.display, exc)
    if chunk:
        yield flush()


class _RecordNames:
    """File names for records written as Markdown: the id made safe, unique in the folder."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def next(self, key: str) -> str:
        base = re.sub(r"[^\w.-]+", "_", key).strip("._")[:100] or "record"
        name, n = base, 2
        while name.lower() in self.taken:
            name, n = f"{base}-{n}", n + 1
        self.taken.add(name.lower())
        return name


def _file_sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def run(
    inputs: list[Path],
    out_dir: Path,
    ctx: Context,
    translator: Translator | None = None,
) -> RunReport:
    """Process `inputs` into `out_dir`. Ctrl-C stops after cleaning up temporary files; the
    report says what was written (`interrupted` is set)."""
    report = RunReport()
    if removed := remove_stale_temp_files(out_dir):
        log.info("removed %d temporary file(s) left by an interrupted run", removed)
    files, problems = discover(inputs, exclude=out_dir)
    report.failed.extend(problems)
    datasets = [f for f in files if is_dataset(f.path)]
    documents = [f for f in files if not is_dataset(f.path)]
    description = describe(translator)
    settings = ctx.settings
    with ExitStack() as stack:
        batches: _Batches | RayBatches
        if settings.executor == "ray":
            batches = RayBatches(ctx, translate=translator is not None)
            stack.callback(batches.shutdown)
            description = batches.describe() or description
        else:
            batches = _Batches(ctx, translator, stack)
        this = _Run(out_dir, ctx, description, ctx.fingerprint(description), batches, report)
        try:
            if documents and (settings.format or "md") == "md":
                this.markdown_files(documents)
            elif documents:
                chunks = _file_chunks(documents, settings.shard_size)
                this.shards(out_dir / "documents", settings.format, chunks)
            for dataset in datasets:
                fmt = settings.format or dataset_format(dataset.path)
                chunks = _record_chunks(dataset, settings, report)
                if fmt == "md":
                    this.markdown_records(dataset, chunks)
                else:
                    folder = out_dir / dataset.out_stem.parent / dataset_stem(dataset.path)
                    this.shards(folder, fmt, chunks)
        except KeyboardInterrupt:
            report.interrupted = True
            batches.shutdown()
            remove_stale_temp_files(out_dir)
    with cyclic_gc_paused():
        write_index(out_dir, settings.flavor, this.written)
    return report


def _groups(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _progress(total: int, desc: str):
    if sys.stderr.isatty() and log.getEffectiveLevel() <= logging.INFO and total > 1:
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit="doc", leave=False)
    return None


def _sort_results(results: list[Prepared], report: RunReport, progress) -> list[Prepared]:
    """Record failures and warnings; return the prepared documents to translate and write."""
    ready = []
    for r in results:
        if r.error:
            report.failed.append((r.name, r.error))
            log.error("%s: %s", r.name, r.error)
        elif r.doc is None:
            report.warnings.append((r.name, r.warning or "nothing to write"))
            log.warning("%s: %s (nothing written)", r.name, r.warning)
        else:
            if r.warning:
                report.warnings.append((r.name, r.warning))
                log.warning("%s: %s", r.name, r.warning)
            ready.append(r)
            if not progress:
                log.info("prepared: %s", r.name)
    if progress:
        progress.update(len(results))
    return ready
