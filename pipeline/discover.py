"""Which files a run reads, and the output name each one gets.

Inputs are files, directories (searched recursively) or glob patterns. Two inputs never share an
output, and nothing inside the output directory is ever read back as input (an `out/` folder
inside the input folder would otherwise grow `out/out/…` with every run).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from glob import glob
from pathlib import Path

from pipeline.read import HTML_SUFFIXES, MARKDOWN_SUFFIXES

INPUT_SUFFIXES = (".txt", *MARKDOWN_SUFFIXES, *HTML_SUFFIXES)


@dataclass(frozen=True)
class InputFile:
    path: Path
    display: str  # how the file is named in output and messages
    out_stem: Path  # output path without suffix, relative to the output dir


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
            if Path(name).suffix.lower() in INPUT_SUFFIXES:
                yield Path(root) / name


def discover(
    inputs: list[Path], exclude: Path | None = None
) -> tuple[list[InputFile], list[tuple[str, str]]]:
    """Input files (files, directories searched recursively, globs), each with a unique output
    name, and (input, problem) for inputs that match nothing. Files inside `exclude` (the
    output directory) are skipped."""
    exclude = exclude.resolve() if exclude is not None else None
    found: list[tuple[Path, Path]] = []  # (path, output stem)
    problems: list[tuple[str, str]] = []
    for inp in inputs:
        if inp.is_dir():
            found += [(p, p.relative_to(inp).with_suffix("")) for p in _walk(inp, exclude)]
        elif inp.exists() or inp.is_symlink():
            found.append((inp, Path(inp.stem)))
        elif any(c in str(inp) for c in "*?["):
            matches = sorted(Path(p) for p in glob(str(inp), recursive=True))
            files = [p for p in matches if p.is_file() and p.suffix.lower() in INPUT_SUFFIXES]
            files = [p for p in files if not _inside(p, exclude)]
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
