"""Command line: `python -m pipeline run INPUT... [options]`."""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import replace
from pathlib import Path

from pipeline import __version__
from pipeline.settings import CLEANING_STAGES, Settings, load_config
from pipeline.translate import TranslatorUnavailable, select_translator
from pipeline.translate.engines import available_cores

log = logging.getLogger("pipeline")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

EPILOG = """\
example:
  python -m pipeline run input/ -o output/
  python -m pipeline run article.txt --translator none --layout sentence

Writes output/<name>.md (bilingual Markdown), output/<name>.json (the full record: kept
sentences with offsets into the original, every removal and why) and output/index.md.
Exit status: 0 all documents written, 1 some failed (the rest are written), 2 usage error.
"""


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
        help="output directory (default: output/)",
    )
    run.add_argument(
        "--translator",
        choices=("auto", "marian", "gloss", "none"),
        default="auto",
        help="auto (default): MarianMT if the model loads, else a dictionary gloss; "
        "marian: MarianMT or fail; gloss: CC-CEDICT word gloss; none: Chinese only",
    )
    run.add_argument(
        "--model",
        default=Settings.model,
        metavar="ID_OR_DIR",
        help="Marian model: hub id or local directory (default: %(default)s)",
    )
    run.add_argument(
        "--engine",
        choices=("auto", "ctranslate2", "transformers"),
        default="auto",
        help="Marian inference engine: auto (default: CTranslate2 int8 when installed, "
        "else transformers), ctranslate2, transformers",
    )
    run.add_argument(
        "--beams",
        type=int,
        metavar="N",
        help="beam size for Marian (default: the model's generation_config)",
    )
    run.add_argument(
        "--max-new-tokens",
        type=int,
        metavar="N",
        help="most tokens Marian may generate per sentence (default: twice the input, +16)",
    )
    run.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="where translations and the gloss index are cached (default: user cache dir)",
    )
    run.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the translation cache"
    )
    run.add_argument(
        "--force",
        action="store_true",
        help="redo every document, even those unchanged since the last run",
    )
    run.add_argument(
        "--layout",
        choices=("paragraph", "sentence", "table"),
        default="paragraph",
        help="Markdown layout: paragraph (default), sentence pairs, or a table per paragraph",
    )
    run.add_argument(
        "--user-dict",
        action="append",
        default=[],
        metavar="FILE",
        help="extra jieba user dictionary (word [freq] [tag] per line); repeatable",
    )
    run.add_argument(
        "--spam-words",
        action="append",
        default=[],
        metavar="FILE",
        help="extra spam words, one per line; repeatable",
    )
    run.add_argument(
        "--keep",
        action="append",
        default=[],
        choices=CLEANING_STAGES,
        metavar="STAGE",
        help=f"turn a removal stage off ({', '.join(CLEANING_STAGES)}); repeatable",
    )
    run.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="settings file (default: ./pipeline.toml if present)",
    )
    run.add_argument(
        "--jobs",
        type=int,
        default=available_cores(),
        metavar="N",
        help="worker processes for the text stages (default: number of cores)",
    )
    verbosity = run.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="only errors and the summary")
    verbosity.add_argument("-v", "--verbose", action="store_true", help="log every step")
    return parser


def settings_from_args(args: argparse.Namespace) -> Settings:
    settings = Settings()
    config = args.config or (Path("pipeline.toml") if Path("pipeline.toml").is_file() else None)
    if config is not None:
        settings = load_config(config, settings)
    return replace(
        settings,
        translator=args.translator,
        model=args.model,
        layout=args.layout,
        user_dicts=settings.user_dicts + tuple(args.user_dict),
        spam_words=settings.spam_words + tuple(args.spam_words),
        keep=tuple(sorted(set(settings.keep) | set(args.keep))),
        jobs=max(1, args.jobs),
        engine=args.engine,
        beams=args.beams,
        max_new_tokens=args.max_new_tokens,
        cache_dir=args.cache_dir or settings.cache_dir,
        use_cache=settings.use_cache and not args.no_cache,
        force=args.force,
    )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.ERROR if args.quiet else logging.DEBUG if args.verbose else logging.INFO
    logging.basicConfig(level=level, format="%(levelname)s %(message)s", stream=sys.stderr)
    for noisy in ("jieba", "jieba_fast", "urllib3", "httpx", "filelock"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))

    try:
        settings = settings_from_args(args)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    for path in (*settings.user_dicts, *settings.spam_words):
        if not Path(path).is_file():
            parser.error(f"no such file: {path}")

    try:
        translator = select_translator(settings)
    except TranslatorUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE

    from pipeline.runner import run  # imported late so --help stays fast

    report = run(args.inputs, args.output, settings, translator)
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
