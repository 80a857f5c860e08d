"""`output/<stem>.md`: the bilingual article a person reads, anchored by the JSON's ids.

Layouts: `paragraph` (Chinese paragraph, its English as a blockquote), `sentence` (one anchored
pair per sentence), `table` (per paragraph a two-column table, one row per sentence). The file
ends with a collapsed audit of what the cleaner removed.
"""

from __future__ import annotations

from collections import Counter

import yaml

from pipeline import __version__
from pipeline.document import Document, Paragraph
from pipeline.registry import stage_spec
from pipeline.write.escape import escape_inline


def render_markdown(doc: Document, translator: dict, layout: str = "paragraph") -> str:
    """`translator` is the translator's description; a `label` in it ("gloss") marks English
    that is not a translation: printed before every English line, with its `note` at the end."""
    label = translator.get("label")
    parts = [_front_matter(doc, translator)]
    if doc.paragraphs:
        parts.append(_title(doc.paragraphs[0], label))
    body = doc.paragraphs[1:]
    render = {"paragraph": _paragraph, "sentence": _sentences, "table": _table}[layout]
    parts.extend(render(p, label) for p in body)
    if label:
        parts.append(f"*English lines marked ({label}) are a {translator.get('note', label)}.*")
    audit = _audit(doc)
    if audit:
        parts.append(audit)
    return "\n\n".join(parts) + "\n"


TITLE_MAX_CHARS = 120


def shorten(text: str | None, limit: int = TITLE_MAX_CHARS) -> str | None:
    """A title for metadata and lists: a first "line" of a whole-article paragraph is cut."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def document_title(doc: Document) -> tuple[str, str | None]:
    if not doc.paragraphs:
        return doc.source.path, None
    return shorten(doc.paragraphs[0].zh), shorten(doc.paragraphs[0].en)


def _front_matter(doc: Document, translator: dict) -> str:
    title, title_en = document_title(doc)
    # The first real paragraph after the title, not a byline.
    body = [p.zh for p in doc.paragraphs[1:]]
    description = next((zh for zh in body if len(zh) >= 40), body[0] if body else "")[:160]
    meta = {
        "title": title,
        "title_en": title_en,
        "description": description,
        "source": doc.source.path,
        "source_sha256": doc.source.sha256,
        "translator": translator.get("backend"),
        "model": translator.get("model"),
        "generated_by": f"pipeline {__version__}",
        "paragraphs": len(doc.paragraphs),
        "sentences": sum(len(p.sentences) for p in doc.paragraphs),
        "removals": dict(sorted(Counter(e.stage for e in doc.edits).items())),
    }
    if translator.get("note"):
        meta["translator_note"] = translator["note"]
    dumped = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{dumped}---"


def _anchor(anchor_id: str) -> str:
    return f'<a id="{anchor_id}"></a>'


def _english(en: str | None, label: str | None) -> str | None:
    if not en:
        return None
    return f"({label}) {escape_inline(en)}" if label else escape_inline(en)


def _title(p: Paragraph, label: str | None) -> str:
    lines = [_anchor(p.id), "", f"# {escape_inline(p.zh)}"]
    en = _english(p.en, label)
    if en:
        lines += ["", f"> {en}"]
    return "\n".join(lines)


def _paragraph(p: Paragraph, label: str | None) -> str:
    lines = [_anchor(p.id), escape_inline(p.zh)]
    en = _english(p.en, label)
    if en:
        lines += ["", f"> {en}"]
    return "\n".join(lines)


def _sentences(p: Paragraph, label: str | None) -> str:
    blocks = [_anchor(p.id)]
    for s in p.sentences:
        block = f"{_anchor(s.id)}{escape_inline(s.zh)}"
        en = _english(s.en, label)
        if en:
            block += f"\n\n> {en}"
        blocks.append(block)
    return "\n\n".join(blocks)


def _table(p: Paragraph, label: str | None) -> str:
    has_en = any(s.en for s in p.sentences)
    header = "| 中文 | English |\n| --- | --- |" if has_en else "| 中文 |\n| --- |"
    rows = []
    for s in p.sentences:
        cell = f"{_anchor(s.id)}{escape_inline(s.zh)}"
        if has_en:
            rows.append(f"| {cell} | {_english(s.en, label) or ''} |")
        else:
            rows.append(f"| {cell} |")
    return "\n".join([_anchor(p.id), "", header, *rows])


def _audit(doc: Document) -> str:
    edits = [e for e in doc.edits if e.kind not in stage_spec(e.stage).unaudited_kinds]
    if not edits:
        return ""
    counts = Counter(e.stage for e in edits)
    summary = ", ".join(f"{stage}: {n}" for stage, n in sorted(counts.items()))
    lines = [
        "<details>",
        f"<summary>Removed by the cleaner ({summary})</summary>",
        "",
    ]
    # Kinds a stage has by the hundred (pinyin readings) are counted; every other edit listed.
    counted = Counter(
        (e.stage, e.kind) for e in edits if e.kind in stage_spec(e.stage).counted_kinds
    )
    for (stage, kind), n in sorted(counted.items()):
        lines.append(f"- {stage}: {n} × {kind} removed")
    for e in edits:
        if e.kind not in stage_spec(e.stage).counted_kinds:
            shown = e.text if len(e.text) <= 300 else e.text[:300] + "…"
            what = f" → {escape_inline(e.replacement)}" if e.replacement else ""
            lines.append(f"- {e.stage} ({escape_inline(e.reason)}): {escape_inline(shown)}{what}")
    lines += ["", "</details>"]
    return "\n".join(lines)
