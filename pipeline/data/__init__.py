"""Data shipped with the package: word lists, patterns, the jieba user dictionary."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_lines(name: str, extra_files: tuple[str, ...] = ()) -> list[str]:
    """Non-blank, non-comment lines of a packaged data file, then of each extra file."""
    texts = [resources.files(__name__).joinpath(name).read_text(encoding="utf-8")]
    texts += [Path(p).read_text(encoding="utf-8") for p in extra_files]
    return [
        line.rstrip("\n")
        for text in texts
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
