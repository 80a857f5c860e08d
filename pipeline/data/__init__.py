"""Data shipped with the package: word lists, patterns, the jieba user dictionary."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources


def data_lines(name: str, extra_texts: tuple[str, ...] = ()) -> list[str]:
    """Non-blank, non-comment lines of a packaged data file, then of each extra text (the
    content of a user's file, read by the context)."""
    texts = [resources.files(__name__).joinpath(name).read_text(encoding="utf-8")]
    texts += extra_texts
    return [
        line.rstrip("\n")
        for text in texts
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


@lru_cache(maxsize=4)
def data_pattern(name: str) -> re.Pattern:
    """The regular expressions of a packaged data file (one per line) as one case-insensitive
    alternation: one regex call per line of text."""
    return re.compile("|".join(f"(?:{p})" for p in data_lines(name)), re.I)


@lru_cache(maxsize=1 << 16)
def data_fullmatch(name: str, line: str) -> bool:
    """Does `line` match one of the regular expressions of data file `name` as a whole?
    Remembered: the cleaning rounds and the classifier ask about the same lines again, and an
    alternation of a few dozen patterns costs microseconds per line."""
    return data_pattern(name).fullmatch(line) is not None
