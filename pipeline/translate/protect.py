"""Protected spans: text the translation must carry through unchanged.

URLs, e-mail addresses, file names, code, version strings, numbers (with their units) and
Latin-script names and terms (`Jeff Dean`, `TPU v4`, `MLPerf 2.0`, `CollectiveEinsum`) are
replaced by numbered placeholders before the model sees the sentence and put back afterwards.
A placeholder the model dropped is appended, so nothing protected is ever lost.
"""

from __future__ import annotations

import re

from pipeline.text import URL_RE

_PROTECTED = re.compile(
    "|".join(
        [
            URL_RE.pattern,
            r"`[^`\n]+`",  # inline code
            r"\b[\w.-]+\.(?:pdf|html?|png|jpe?g|gif|py|js|json|csv|txt|md|zip|tar\.gz)\b",
            # Latin words, possibly with digits, dots, dashes, and the spaces between words:
            # a whole run such as `Jeff Dean`, `TPU v4`, `MLPerf 2.0`, `f(x)`
            r"[A-Za-z][\w.+#/-]*(?:\([\w, ]*\))?(?:[ \t]+[A-Za-z0-9][\w.+#/-]*(?:\([\w, ]*\))?)*",
            r"\d+(?:[.,:]\d+)*(?:\s?%|\s?[A-Za-z]+\b)?",  # numbers, with a Latin unit or %
        ]
    ),
    re.I | re.ASCII,  # \w is a Latin word character here, never a Han one
)
_PLACEHOLDER = re.compile(r"X\s*P\s*H\s*(\d+)\s*X", re.I)


def mask(text: str) -> tuple[str, list[str]]:
    """Replace protected spans with placeholders XPH0X, XPH1X, …; return text and the spans."""
    spans: list[str] = []

    def placeholder(m: re.Match) -> str:
        spans.append(m.group().rstrip(" .,"))
        trailing = m.group()[len(spans[-1]) :]
        return f"XPH{len(spans) - 1}X{trailing}"

    return _PROTECTED.sub(placeholder, text), spans


def unmask(translation: str, spans: list[str]) -> str:
    """Put protected spans back; append any whose placeholder the model lost."""
    seen: set[int] = set()

    def restore(m: re.Match) -> str:
        i = int(m.group(1))
        if i < len(spans) and i not in seen:
            seen.add(i)
            return spans[i]
        return ""

    out = _PLACEHOLDER.sub(restore, translation)
    missing = [s for i, s in enumerate(spans) if i not in seen]
    if missing:
        out = f"{out.rstrip()} {' '.join(missing)}".strip()
    return re.sub(r"\s{2,}", " ", out).strip()
