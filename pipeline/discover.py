"""Which files a run reads, and the output name each one gets.

Inputs are files, directories (searched recursively) or glob patterns. A file's output name is
its path relative to the common folder of all inputs, however they were given (a folder, a
glob, a list of files); two inputs never share an output, and nothing inside the output
directory is ever read back as input (an `out/` folder inside the input folder would otherwise
grow `out/out/…` with every run).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from glob import glob
from pathlib import Path

from pipeline.datasets import is_dataset
from pipeline.read import HTML_SUFFIXES, MARKDOWN_SUFFIXES

INPUT_SUFFIXES = (".txt", *MARKDOWN_SUFFIXES, *HTML_SUFFIXES)


def is_input(path: Path) -> bool:
    """A document (text, Markdown, HTML) or a dataset of them (JSONL, Parquet)."""
    return path.suffix.lower() in INPUT_SUFFIXES or is_dataset(path)


@dataclass(frozen=True)
class InputFile:
    path: Path
    display: str  # how the file is named in messages: as the user gave it
    out_stem: Path  # output path without suffix, relative to the output dir
    relative: str = ""  # its path relative to the inputs' common folder: named so in outputs


def _inside(path: Path, directory: Path | None) -> bool:
    if directory is None:
        return False
    try:
        return path.resolve().is_relative_to(directory)
    except OSError:
        return False


def _walk(directory: Path, exclude: Path | None) -> Iterator[Path]:
    """Input files below `directory`, in a stable order, never following a link in circles
    and never entering `exclude`."""
    for root, dirs, files in os.walk(directory, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not _inside(Path(root) / d, exclude))
        for name in sorted(files):
            if is_input(Path(name)):
                yield Path(root) / name


def discover(
    inputs: list[Path], exclude: Path | None = None
) -> tuple[list[InputFile], list[tuple[str, str]]]:
    """Input files (files, directories searched recursively, globs), each with a unique output
    name, and (input, problem) for inputs that match nothing. Files inside `exclude` (the
    output directory) are skipped."""
    exclude = exclude.resolve() if exclude is not None else None
    paths: list[Path] = []
    problems: list[tuple[str, str]] = []
    for inp in inputs:
        if inp.is_dir():
            paths += _walk(inp, exclude)
        elif inp.exists() or inp.is_symlink():
            paths.append(inp)
        elif any(c in str(inp) for c in "*?["):
            matches = sorted(Path(p) for p in glob(str(inp), recursive=True))
            files = [p for p in matches if p.is_file() and is_input(p)]
            files = [p for p in files if not _inside(p, exclude)]
            if not files:
                problems.append((str(inp), "no input files match this pattern"))
            paths += files
        else:
            problems.append((str(inp), "no such file or directory"))
    root = common_root(paths)
    found = [(p, _relative(p, root)) for p in paths]
    return _unique_names(found), problems


def common_root(paths: list[Path]) -> Path | None:
    """The deepest folder that holds every one of `paths`."""
    if not paths:
        return None
    return Path(os.path.commonpath([os.path.abspath(p.parent) for p in paths]))


def _relative(path: Path, root: Path | None) -> Path:
    return Path(os.path.abspath(path)).relative_to(root) if root else Path(path.name)


def _unique_names(found: list[tuple[Path, Path]]) -> list[InputFile]:
    """`found`: (path, path relative to the common root). Two inputs never share an output:
    `a.txt` + `a.md` become `a.txt.*` + `a.md.*`; a name taken twice gets `-2`, `-3`…"""
    seen_paths: set[Path] = set()
    unique = []
    for path, stem in found:
        key = path.resolve() if not path.is_symlink() else path.absolute()
        if key not in seen_paths:
            seen_paths.add(key)
            unique.append((path, stem))
    counts: dict[str, int] = {}
    for _, relative in unique:
        key = relative.with_suffix("").as_posix().lower()
        counts[key] = counts.get(key, 0) + 1
    taken: set[str] = set()
    files = []
    for path, relative in unique:
        stem = relative.with_suffix("")
        if counts[stem.as_posix().lower()] > 1:
            stem = stem.with_name(path.name)
        candidate, n = stem, 2
        while candidate.as_posix().lower() in taken:
            candidate = stem.with_name(f"{stem.name}-{n}")
            n += 1
        taken.add(candidate.as_posix().lower())
        files.append(InputFile(path, str(path), candidate, relative.as_posix()))
    return files
