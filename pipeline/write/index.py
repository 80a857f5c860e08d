"""`output/index.md`: one row per document of the run, sorted by path."""

from __future__ import annotations

from urllib.parse import quote

import yaml

from pipeline import __version__
from pipeline.write.escape import escape_inline


def render_index(rows: list[dict], appendix: str = "") -> str:
    """rows: {md: relative .md path, title, title_en, sentences, removals, translator, source};
    appendix: further sections (the run's terms, write/terms.py)."""
    rows = sorted(rows, key=lambda r: r["source"])
    meta = {"title": "Documents", "generated_by": f"pipeline {__version__}", "documents": len(rows)}
    lines = [
        f"---\n{yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)}---",
        "",
        "# Documents",
        "",
        "| Document | English title | Sentences | Removals | Translator |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        link = f"[{escape_inline(r['title'])}]({quote(r['md'])}#p1)"
        lines.append(
            f"| {link} | {escape_inline(r['title_en'] or '')} | {r['sentences']} "
            f"| {r['removals']} | {r['translator']} |"
        )
    return "\n".join(lines) + "\n" + (f"\n{appendix}" if appendix else "")
