"""The runner: find inputs, prepare documents through the stages, translate them in batches,
write their outputs, and report what failed. Stages know nothing of files; this does.

A run goes group by group (a few documents at a time): prepare the group (in worker processes
with --jobs > 1), translate all of its sentences in one batched call, write its files. A killed
or interrupted run therefore keeps every finished group, and the next run skips documents whose
input and fingerprint are unchanged (`--force` redoes them).
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.context import Context
from pipeline.discover import InputFile, discover
from pipeline.document import Document, evolve
from pipeline.prepare import Prepared, prepare_file
from pipeline.translate import Translator, describe, translate_all
from pipeline.translate.engines import available_cores
from pipeline.write.files import remove_stale_temp_files
from pipeline.write.output import unchanged_row, write_document, write_index
from pipeline.write.terms import write_term_table

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
    sentences = [s.zh for d in todo for p in d.paragraphs for s in p.sentences]
    english = iter(translate_all(translator, sentences, ctx.settings))
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


def _groups(items: list[InputFile], size: int) -> Iterator[list[InputFile]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _progress(total: int, desc: str):
    if sys.stderr.isatty() and log.getEffectiveLevel() <= logging.INFO and total > 1:
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit="doc", leave=False)
    return None


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the main process handles it, workers stay quiet.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pool(jobs: int) -> ProcessPoolExecutor:
    """Workers for the text stages. Fork is fast and shares the loaded dictionaries, but a
    process that has started torch's thread pool is not safe to fork: then spawn."""
    method = "spawn" if "torch" in sys.modules else "fork"
    context = multiprocessing.get_context(method)
    return ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_interrupts)


def _prepare_one(args: tuple[InputFile, Context]) -> Prepared:
    return prepare_file(*args)


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
    description = describe(translator)
    fingerprint = ctx.fingerprint(description)

    rows: dict[str, dict] = {}
    todo = []
    for f in files:
        row = None if ctx.settings.force else unchanged_row(f, out_dir, fingerprint)
        if row:
            rows[f.display] = row
            report.skipped.append(f.display)
        else:
            todo.append(f)
    if report.skipped:
        log.info("%d document(s) unchanged since the last run, skipped", len(report.skipped))

    jobs = ctx.settings.jobs or available_cores()
    with ExitStack() as stack:
        pool = None
        if jobs > 1 and len(todo) >= 4:
            pool = stack.enter_context(_pool(jobs))
        progress = _progress(len(todo), "documents")
        if progress:
            stack.callback(progress.close)
        try:
            for group in _groups(todo, max(8, 4 * jobs)):
                if pool:
                    results = list(pool.map(_prepare_one, [(f, ctx) for f in group]))
                else:
                    results = [prepare_file(f, ctx) for f in group]
                ready = _sort_results(results, report, progress)
                docs = [r.doc for r in ready]
                if translator and docs:
                    docs = translate_documents(docs, translator, ctx)
                for r, doc in zip(ready, docs, strict=True):
                    layout = ctx.settings.layout
                    rows[r.file.display] = write_document(
                        doc, r.file, out_dir, description, fingerprint, layout
                    )
                    report.written.append(r.file.display)
                    log.debug("wrote %s", r.file.display)
        except KeyboardInterrupt:
            report.interrupted = True
            if pool:
                pool.shutdown(wait=False, cancel_futures=True)
            remove_stale_temp_files(out_dir)
    done = [f for f in files if f.display in rows]
    json_files = [out_dir / f"{f.out_stem}.json" for f in done]
    terms = write_term_table(out_dir, json_files) if done else ""
    write_index(out_dir, [rows[f.display] for f in done], terms)
    return report


def _sort_results(results: list[Prepared], report: RunReport, progress) -> list[Prepared]:
    """Record failures and warnings; return the prepared documents to translate and write."""
    ready = []
    for r in results:
        if r.error:
            report.failed.append((r.file.display, r.error))
            log.error("%s: %s", r.file.display, r.error)
        elif r.doc is None:
            report.warnings.append((r.file.display, r.warning or "nothing to write"))
            log.warning("%s: %s (nothing written)", r.file.display, r.warning)
        else:
            if r.warning:
                report.warnings.append((r.file.display, r.warning))
                log.warning("%s: %s", r.file.display, r.warning)
            ready.append(r)
            if not progress:
                log.info("prepared: %s", r.file.display)
    if progress:
        progress.update(len(results))
    return ready
