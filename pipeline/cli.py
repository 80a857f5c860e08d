"""Command line: `python -m pipeline run INPUT... [options]`.

Settings flow one way: defaults ← `pipeline.toml` (or `--config FILE`) ← the options actually
given on the command line (every option defaults to None, meaning "not given").
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.context import Context
from pipeline.registry import cleaning_stages, translators
from pipeline.settings import (
    DEVICES,
    ENGINES,
    EXECUTORS,
    FLAVORS,
    LAYOUTS,
    OUTPUT_FORMATS,
    Settings,
    SettingsError,
    build_settings,
    read_config,
)
from pipeline.translate import AUTO, TranslatorUnavailable, select_translator, translator_choices

log = logging.getLogger("pipeline")

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

EPILOG = """\
example:
  python -m pipeline run input/ -o output/
  python -m pipeline run article.txt --translator none --layout sentence

Writes output/<name>.md (bilingual Markdown), output/<name>.json (the full record: kept
sentences with offsets into the original, every removal and why) and output/index.md.
Settings: defaults, then ./pipeline.toml (or --config FILE), then the options given here.
Exit status: 0 all documents written, 1 some failed (the rest are written), 2 usage error,
130 interrupted (re-run to resume).
"""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline",
        description="Turn dirty Chinese web articles into clean, aligned Chinese-English docs.",
    )
    parser.add_argument("--version", action="version", version=f"pipeline {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser(
        "run",
        help="clean, convert, segment and translate articles",
        description="Clean, convert to Simplified, segment and translate Chinese articles.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "inputs",
        nargs="+",
        type=Path,
        metavar="INPUT",
        help="files, directories (searched recursively for .txt, .md, .html) or glob patterns",
    )
    run.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("output"),
        metavar="DIR",
        help="output directory (default: output/); never read as input",
    )
    default = Settings()
    names = ", ".join(f"{n}: {spec.summary}" for n, spec in translators().items())
    run.add_argument(
        "--translator",
        choices=translator_choices(),
        help=f"{AUTO} (default): MarianMT if the model loads, else the gloss; {names}",
    )
    run.add_argument(
        "--model",
        metavar="ID_OR_DIR",
        help=f"Marian model: hub id or local directory (default: {default.model})",
    )
    run.add_argument(
        "--engine",
        choices=ENGINES,
        help="Marian inference engine: auto (default: CTranslate2 int8 when "
        "installed, else transformers), ctranslate2, transformers",
    )
    run.add_argument(
        "--beams",
        type=_positive,
        metavar="N",
        help="beam size for Marian (default: the model's generation_config)",
    )
    run.add_argument(
        "--max-new-tokens",
        type=_positive,
        metavar="N",
        help="most tokens Marian may generate per sentence (default: twice the input, +16)",
    )
    run.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="where translations and the gloss index are cached (default: user cache dir)",
    )
    run.add_argument(
        "--no-cache",
        dest="use_cache",
        action="store_const",
        const=False,
        help="neither read nor write the translation cache",
    )
    run.add_argument(
        "--force",
        action="store_const",
        const=True,
        help="redo every document, even those unchanged since the last run",
    )
    run.add_argument(
        "--layout",
        choices=LAYOUTS,
        help="Markdown layout: paragraph (default: each block, its English quoted below), "
        "sentence (pairs), table (a table per paragraph), translation (English only, same "
        "anchors), english_first (English, the Chinese quoted below)",
    )
    run.add_argument(
        "--flavor",
        choices=FLAVORS,
        help="Markdown for: common (default: GitHub/markdown-it, MkDocs, Pandoc, MDX) or hugo "
        "(Hugo's default config drops raw HTML: anchors become heading ids)",
    )
    run.add_argument(
        "--pretty",
        action="store_const",
        const=True,
        help="indented JSON (default: compact; the same data either way)",
    )
    run.add_argument(
        "--user-dict",
        dest="user_dicts",
        action="append",
        metavar="FILE",
        help="extra jieba user dictionary (word [freq] [tag] per line); repeatable",
    )
    run.add_argument(
        "--spam-words",
        dest="spam_words",
        action="append",
        metavar="FILE",
        help="extra spam words, one per line (optional TAB weight); repeatable",
    )
    run.add_argument(
        "--glossary",
        dest="glossary",
        action="append",
        metavar="FILE",
        help="glossary, TSV or CSV: zh TAB en [TAB note] per line (a note `convert` pins a "
        "Traditional phrase's Simplified form); Marian and the gloss obey it; repeatable",
    )
    run.add_argument(
        "--junk-threshold",
        type=float,
        metavar="P",
        help="the classifier removes lines it judges junk with probability >= P, between 0 and 1 "
        "(default: the model's own; lower removes more junk and more content)",
    )
    stages = cleaning_stages()
    run.add_argument(
        "--keep",
        action="append",
        choices=stages,
        metavar="STAGE",
        help=f"turn a removal stage off ({', '.join(stages)}); repeatable",
    )
    run.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="settings file (default: ./pipeline.toml if present)",
    )
    data = run.add_argument_group("datasets (JSONL, JSONL.gz, Parquet inputs; dataset outputs)")
    data.add_argument(
        "--format",
        choices=OUTPUT_FORMATS,
        help="output: md (Markdown + JSON per document; the default for files), jsonl or "
        "parquet (one record per document, sharded; the default for a dataset is its own format)",
    )
    data.add_argument("--text-field", metavar="NAME", help="a record's text field (default: text)")
    data.add_argument(
        "--id-field", metavar="NAME", help="a record's id field (default: its number)"
    )
    data.add_argument("--title-field", metavar="NAME", help="a record's title field, if any")
    data.add_argument(
        "--shard-size", type=_positive, metavar="N", help="records per output shard (default 1000)"
    )
    scale = run.add_argument_group("scale")
    scale.add_argument(
        "--executor",
        choices=EXECUTORS,
        help="local (default: worker processes on this machine) or ray (Ray Data; pip install "
        "'.[ray]')",
    )
    scale.add_argument(
        "--ray-address", metavar="ADDR", help="a Ray cluster to join (default: start a local one)"
    )
    scale.add_argument(
        "--actors",
        type=_positive,
        metavar="N",
        help="with --executor ray: translation actors, one model each (default 1)",
    )
    scale.add_argument(
        "--device",
        choices=DEVICES,
        help="where Marian runs: auto (default: CUDA when a GPU is visible), cpu or cuda",
    )
    run.add_argument(
        "--jobs",
        type=_positive,
        metavar="N",
        help="worker processes for the text stages (default: number of cores)",
    )
    verbosity = run.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="only errors and the summary")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="log every step")
    return parser


def settings_from_args(args: argparse.Namespace) -> Settings:
    """defaults ← the config file ← the options given (those not None)."""
    config = args.config or (Path("pipeline.toml") if Path("pipeline.toml").is_file() else None)
    file_layer = read_config(config) if config is not None else {}
    # options whose destination is a setting's name; None means "not given"
    names = {f.name for f in fields(Settings)}
    given: dict[str, Any] = {
        key: value for key, value in vars(args).items() if key in names and value is not None
    }
    try:
        return build_settings(file_layer, given)
    except SettingsError as exc:
        raise SettingsError(f"command line: {exc}") from exc


def check_output_dir(out_dir: Path) -> str | None:
    """Why `out_dir` cannot take the outputs, or None: checked before any work is done."""
    if out_dir.exists() and not out_dir.is_dir():
        return f"output {out_dir} exists and is not a directory"
    probe = out_dir
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        return f"cannot create output directory {out_dir}: {probe} is not a directory"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"output directory {out_dir} is not writable"
    return None


class _QuietThirdParty(logging.Filter):
    """Other libraries' log lines (trafilatura's "parsed tree length: 0", jieba's start-up) are
    their own business: shown as warnings normally, hidden under -q. Ours say what matters."""

    def __init__(self, quiet: bool):
        super().__init__()
        self.quiet = quiet

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "pipeline" or record.name.startswith("pipeline."):
            return True
        return not self.quiet and record.levelno >= logging.WARNING


class _TqdmAwareHandler(logging.StreamHandler):
    """Log lines through `tqdm.write`: a line never lands on a progress bar's line, and the
    bars are redrawn below it. (The CLI's own handler: replaced, not stacked, when main() runs
    again in one process.)"""

    def emit(self, record: logging.LogRecord) -> None:
        from tqdm import tqdm

        try:
            tqdm.write(self.format(record), file=self.stream)
        except Exception:
            self.handleError(record)


def _setup_logging(quiet: bool, verbose: bool) -> None:
    level = logging.ERROR if quiet else logging.DEBUG if verbose else logging.INFO
    handler = _TqdmAwareHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(_QuietThirdParty(quiet))
    handler.setLevel(level)  # the handler decides what is shown; records still reach others
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not isinstance(h, _TqdmAwareHandler)]
    root.addHandler(handler)
    root.setLevel(min(level, logging.INFO))
    for noisy in ("trafilatura", "htmldate", "courlan", "justext"):
        # they log, at ERROR, pages they find no text in; the read step reports that itself
        logging.getLogger(noisy).setLevel(logging.CRITICAL)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(args.quiet, args.verbose)
    try:
        settings = settings_from_args(args)
        ctx = Context.load(settings)
    except SettingsError as exc:
        parser.error(str(exc))
    if problem := check_output_dir(args.output):
        parser.error(problem)

    from pipeline.ray_executor import RayUnavailable  # imported late so --help stays fast
    from pipeline.runner import run

    try:
        translator = select_translator(ctx)
        report = run(args.inputs, args.output, ctx, translator)
    except (TranslatorUnavailable, RayUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # before the run started (loading the model)
        print("interrupted: nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    if report.interrupted:
        print(f"interrupted: {len(report.written)} written, re-run to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    skipped = f", {len(report.skipped)} unchanged" if report.skipped else ""
    print(f"{len(report.written)} document(s) written to {args.output}/{skipped}", file=sys.stderr)
    for name, problem in report.warnings:
        print(f"warning: {name}: {problem}", file=sys.stderr)
    if report.failed:
        print(f"{len(report.failed)} failed:", file=sys.stderr)
        for name, problem in report.failed:
            print(f"  {name}: {problem}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
