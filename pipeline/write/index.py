"""`output/index.md`: every document in the output folder, and what the cleaner removed there.

Rows and summary come from the documents' JSON. The cleaning summary counts removals by stage
and reason and lists the texts removed from the most documents: a wrong rule that eats a real
line shows up at the top, in one place, instead of in the audit of each page.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from operator import attrgetter
from urllib.parse import quote

import yaml

from pipeline import __version__
from pipeline.registry import stage_kinds
from pipeline.write.documents import (
    IndexDocument,
    IndexEdit,
    IndexSource,
    IndexTitle,
    IndexTranslator,
)
from pipeline.write.escape import escape_inline
from pipeline.write.markdown import shorten

MOST_REMOVED = 15  # lines shown in "removed most often"
REMOVED_TEXT_CHARS = 80
_EDIT_KEY = attrgetter("stage", "kind", "reason")


def render_index(documents: list[tuple[str, IndexDocument]], appendix: str = "") -> str:
    """documents: (Markdown path relative to the index, what the index reads of the document's
    JSON); appendix: further sections (the terms, write/terms.py)."""
    rows = sorted((_row(md, data) for md, data in documents), key=lambda r: r["source"])
    meta = {"title": "Documents", "pipeline": {"generated_by": f"pipeline {__version__}"}}
    meta["pipeline"]["documents"] = len(rows)
    lines = [
        f"---\n{yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)}---",
        "",
        "# Documents",
        "",
        "| Document | English title | Blocks | Sentences | Removals | Translator |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        link = f"[{escape_inline(r['title'])}]({quote(r['md'])})"
        lines.append(
            f"| {link} | {escape_inline(r['title_en'] or '')} | {r['blocks']} | {r['sentences']} "
            f"| {r['removals']} | {escape_inline(r['translator'] or '')} |"
        )
    lines += ["", *cleaning_summary([data for _, data in documents])]
    return "\n".join(lines).rstrip("\n") + "\n" + (f"\n{appendix}" if appendix else "")


def _audited(data: IndexDocument) -> list[IndexEdit]:
    edits = [*(data.removed or ()), *(data.repaired or ())]
    hidden = stage_kinds("unaudited_kinds")  # a stage this version does not have: shown
    return [e for e in edits if e.kind not in hidden.get(e.stage, ())]


def _audited_groups(data: IndexDocument) -> Counter[tuple[str | None, str, str | None]]:
    """How many of the document's audited edits there are of each (stage, kind, reason), in
    order of first appearance: counted in C, a page has a hundred thousand readings."""
    hidden = stage_kinds("unaudited_kinds")
    groups = Counter(map(_EDIT_KEY, chain(data.removed or (), data.repaired or ())))
    return Counter({k: n for k, n in groups.items() if k[1] not in hidden.get(k[0], ())})


def _row(md: str, data: IndexDocument) -> dict:
    blocks = data.blocks or []
    title = data.title or IndexTitle()
    source = (data.source or IndexSource()).path or md
    translator = data.translator or IndexTranslator()
    backend, label = translator.backend, translator.label
    return {
        "md": md,
        "source": source,
        "title": shorten(title.zh) or source,
        "title_en": shorten(title.en),
        "blocks": len(blocks),
        "sentences": sum(len(b.sentences or ()) for b in blocks),
        "removals": sum(_audited_groups(data).values()),
        "translator": f"{backend} ({label})" if label and label != backend else backend,
    }


def cleaning_summary(documents: list[IndexDocument]) -> list[str]:
    """Markdown lines: removals by stage and reason, and the texts removed most often."""
    by_reason: Counter[tuple[str, str]] = Counter()
    docs_with: Counter[str] = Counter()
    counted = stage_kinds("counted_kinds")
    for data in documents:
        # Keys in order of their first edit, as counting edit by edit would insert them.
        for (stage, kind, reason), n in _audited_groups(data).items():
            # by the hundred (pinyin readings): one line for the kind
            by_reason[(stage, kind) if kind in counted.get(stage, ()) else (stage, reason)] += n
        listed = [
            " ".join(e.text.split())[:REMOVED_TEXT_CHARS]
            for e in _audited(data)
            if e.kind not in counted.get(e.stage, ())
        ]
        # Each text once per document, in order of appearance (not a set's order, which
        # changes with the hash seed): ties in most_common keep that order, run after run.
        docs_with.update(dict.fromkeys(t for t in listed if t).keys())
    if not by_reason:
        return []
    lines = [
        "## Cleaning summary",
        "",
        "| Stage | Reason | Removals |",
        "| --- | --- | --- |",
    ]
    for (stage, reason), n in by_reason.most_common():
        lines.append(f"| {stage} | {escape_inline(reason)} | {n} |")
    repeated = [(t, n) for t, n in docs_with.most_common(MOST_REMOVED) if n > 1]
    if repeated:
        lines += [
            "",
            "### Removed from the most documents",
            "",
            "| Text | Documents |",
            "| --- | --- |",
        ]
        lines += [f"| {escape_inline(t)} | {n} |" for t, n in repeated]
    return lines
