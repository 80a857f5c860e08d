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
from pipeline.write.escape import escape_inline

GLOSS_NOTE = "word-by-word dictionary gloss (CC-CEDICT), not a translation"
AUDIT_SAMPLE_STAGES = ("normalize", "spam", "boilerplate")


def render_markdown(doc: Document, translator: dict, layout: str = "paragraph") -> str:
    is_gloss = translator.get("backend") == "gloss"
    parts = [_front_matter(doc, translator)]
    if doc.paragraphs:
        parts.append(_title(doc.paragraphs[0], is_gloss))
    body = doc.paragraphs[1:]
    render = {"paragraph": _paragraph, "sentence": _sentences, "table": _table}[layout]
    parts.extend(render(p, is_gloss) for p in body)
    if is_gloss:
        parts.append(f"*English lines marked (gloss) are a {GLOSS_NOTE}.*")
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
    if translator.get("backend") == "gloss":
        meta["translator_note"] = GLOSS_NOTE
    dumped = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{dumped}---"


def _anchor(anchor_id: str) -> str:
    return f'<a id="{anchor_id}"></a>'


def _english(en: str | None, is_gloss: bool) -> str | None:
    if not en:
        return None
    return f"(gloss) {escape_inline(en)}" if is_gloss else escape_inline(en)


def _title(p: Paragraph, is_gloss: bool) -> str:
    lines = [_anchor(p.id), "", f"# {escape_inline(p.zh)}"]
    en = _english(p.en, is_gloss)
    if en:
        lines += ["", f"> {en}"]
    return "\n".join(lines)


def _paragraph(p: Paragraph, is_gloss: bool) -> str:
    lines = [_anchor(p.id), escape_inline(p.zh)]
    en = _english(p.en, is_gloss)
    if en:
        lines += ["", f"> {en}"]
    return "\n".join(lines)


def _sentences(p: Paragraph, is_gloss: bool) -> str:
    blocks = [_anchor(p.id)]
    for s in p.sentences:
        block = f"{_anchor(s.id)}{escape_inline(s.zh)}"
        en = _english(s.en, is_gloss)
        if en:
            block += f"\n\n> {en}"
        blocks.append(block)
    return "\n\n".join(blocks)


def _table(p: Paragraph, is_gloss: bool) -> str:
    has_en = any(s.en for s in p.sentences)
    header = "| 中文 | English |\n| --- | --- |" if has_en else "| 中文 |\n| --- |"
    rows = []
    for s in p.sentences:
        cell = f"{_anchor(s.id)}{escape_inline(s.zh)}"
        if has_en:
            rows.append(f"| {cell} | {_english(s.en, is_gloss) or ''} |")
        else:
            rows.append(f"| {cell} |")
    return "\n".join([_anchor(p.id), "", header, *rows])


def _audit(doc: Document) -> str:
    if not doc.edits:
        return ""
    counts = Counter(e.stage for e in doc.edits)
    summary = ", ".join(f"{stage}: {n}" for stage, n in sorted(counts.items()))
    lines = [
        "<details>",
        f"<summary>Removed by the cleaner ({summary})</summary>",
        "",
    ]
    if counts.get("pinyin"):
        lines.append(f"- pinyin: {counts['pinyin']} reading annotations removed")
    for e in doc.edits:
        if e.stage in AUDIT_SAMPLE_STAGES or (e.stage == "pinyin" and "broken" in e.reason):
            shown = e.text if len(e.text) <= 300 else e.text[:300] + "…"
            what = f" → {escape_inline(e.replacement)}" if e.replacement else ""
            lines.append(f"- {e.stage} ({escape_inline(e.reason)}): {escape_inline(shown)}{what}")
    lines += ["", "</details>"]
    return "\n".join(lines)
