"""`output/<stem>.md`: the bilingual article a person reads, anchored by the JSON's ids.

Every block keeps its kind: headings, paragraphs, lists (nested, ordered or not), quotes, tables
and code fences come out as real Markdown, each Chinese block with its English beside it.

Layouts: `paragraph` (each block, its English as a quote below), `sentence` (a paragraph as one
anchored pair per sentence), `table` (a paragraph as a two-column table, one row per sentence),
`translation` (English only, same anchors), `english_first` (English, the Chinese quoted below).

Flavors — one output is read right by markdown-it/GitHub, MkDocs, Pandoc and MDX 3 (`common`);
Hugo's default configuration drops raw HTML, so `hugo` writes anchors as heading ids:
- common: anchors are `<a id="…"></a>` before the text; the audit is plain HTML in `<details>`
  (no Markdown inside, which Python-Markdown would leave unparsed); `{ } < >` are escaped and a
  line never starts with `import`/`export` (MDX would read an expression or a module line).
- hugo: a heading carries `{#id}`; any other block is preceded by an empty `###### {#id}`
  (goldmark's default parser reads attributes on headings only); the audit is Hugo's built-in
  `details` shortcode around a Markdown list. Table cells and table-layout sentences cannot
  carry ids there: the table is anchored by its first block's id.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import compress, groupby
from operator import attrgetter, not_

import yaml

from pipeline import __version__
from pipeline.document import Block, Document
from pipeline.registry import stage_kinds
from pipeline.text import has_han
from pipeline.write.escape import escape_inline

TITLE_MAX_CHARS = 120


def render_markdown(
    doc: Document, translator: dict, layout: str = "paragraph", flavor: str = "common"
) -> str:
    """`translator` is the translator's description; a `label` in it ("gloss") marks English
    that is not a translation: printed before every English line, with its `note` at the end."""
    writer = _Writer(translator.get("label"), layout, FLAVORS[flavor])
    audited = audited_edits(doc)
    parts = [front_matter(doc, translator, audited)]
    parts += writer.body(doc.blocks)
    label = translator.get("label")
    if label:
        parts.append(f"*English lines marked ({label}) are a {translator.get('note', label)}.*")
    audit = writer.flavor.audit(audited)
    if audit:
        parts.append(audit)
    return "\n\n".join(parts) + "\n"


def shorten(text: str | None, limit: int = TITLE_MAX_CHARS) -> str | None:
    """A title for metadata and lists: a long title is cut."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def document_title(doc: Document) -> tuple[str, str | None]:
    """The document's title (its first level-1 heading), else its source path."""
    block = doc.title_block()
    if block is None:
        return doc.source.path, None
    return shorten(block.zh) or doc.source.path, shorten(block.en)


_stage = attrgetter("stage")
_stage_kind = attrgetter("stage", "kind")


def _stage_kind_pairs(attribute: str) -> frozenset[tuple[str, str]]:
    """(stage, kind) for each of the kinds a stage lists under `attribute`."""
    return frozenset((s, k) for s, kinds in stage_kinds(attribute).items() for k in kinds)


def _edits_without(edits: tuple, pairs: frozenset[tuple[str, str]]) -> list:
    """The edits whose (stage, kind) is not among `pairs`. C iterators, no Python call per
    edit: a page has a hundred thousand readings."""
    return list(compress(edits, map(not_, map(pairs.__contains__, map(_stage_kind, edits)))))


def audited_edits(doc: Document) -> list:
    return _edits_without(doc.edits, _stage_kind_pairs("unaudited_kinds"))


def front_matter(doc: Document, translator: dict, audited: list | None = None) -> str:
    """`title` and `description` (which every doc tool reads as such); everything else under
    one `pipeline` key, so no theme takes one of our keys for one of its own. `audited`:
    `audited_edits(doc)`, if already at hand."""
    audited = audited_edits(doc) if audited is None else audited
    title, title_en = document_title(doc)
    prose = [b.zh for b in doc.blocks if b.kind == "paragraph"]
    description = next((zh for zh in prose if len(zh) >= 40), prose[0] if prose else "")[:160]
    ours = {
        "source": doc.source.path,
        "source_sha256": doc.source.sha256,
        "title_en": title_en,
        "translator": translator.get("backend"),
        "model": translator.get("model"),
        "generated_by": f"pipeline {__version__}",
        "blocks": len(doc.blocks),
        "sentences": sum(len(b.sentences) for b in doc.blocks),
        "removals": dict(sorted(Counter(map(_stage, audited)).items())),
    }
    if translator.get("note"):
        ours["translator_note"] = translator["note"]
    meta = {"title": title, "description": description, "pipeline": ours}
    dumped = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000)
    return f"---\n{dumped}---"


# --- flavors -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Flavor:
    name: str
    inline_anchors: bool  # `<a id>` inside the line; else a heading id before the block
    audit: Callable[[list], str]

    def anchor(self, anchor_id: str) -> str:
        """Put before a block's text on its line (common), or "" (hugo: see `before`)."""
        return f'<a id="{anchor_id}"></a>' if self.inline_anchors else ""

    def before(self, anchor_id: str) -> list[str]:
        """Lines before a block that carry its anchor (hugo), or none."""
        return [] if self.inline_anchors else [f"###### {{#{anchor_id}}}"]

    def heading(self, level: int, anchor_id: str, text: str) -> str:
        if self.inline_anchors:
            return f"{'#' * level} {self.anchor(anchor_id)}{text}"
        return f"{'#' * level} {text} {{#{anchor_id}}}"


def _audit_lines(edits: list) -> Iterator[tuple[str, str]]:
    """(summary, plain-text line) for each line of the audit: counted kinds, then every edit."""
    counted_kinds = _stage_kind_pairs("counted_kinds")
    counted = Counter(map(_stage_kind, edits))
    for (stage, kind), n in sorted(counted.items()):
        if (stage, kind) in counted_kinds:
            yield "", f"{stage}: {n} × {kind} removed"
    for e in _edits_without(tuple(edits), counted_kinds):
        shown = e.text if len(e.text) <= 300 else e.text[:300] + "…"
        shown = " ".join(shown.split())
        what = f" → {e.replacement}" if e.replacement else ""
        yield "", f"{e.stage} ({e.reason}): {shown}{what}"


def _audit_summary(edits: list) -> str:
    counts = Counter(map(_stage, edits))
    return ", ".join(f"{stage}: {n}" for stage, n in sorted(counts.items()))


def _html_text(text: str) -> str:
    """Text inside HTML that MDX also reads as text: braces are expressions there."""
    return html.escape(text, quote=False).replace("{", "&#123;").replace("}", "&#125;")


def _audit_html(edits: list) -> str:
    if not edits:
        return ""
    items = [f"<li>{_html_text(line)}</li>" for _, line in _audit_lines(edits)]
    summary = _html_text(f"Removed by the cleaner ({_audit_summary(edits)})")
    # No blank line inside: CommonMark ends an HTML block at the first one.
    return "\n".join(
        ["<details>", f"<summary>{summary}</summary>", "<ul>", *items, "</ul>", "</details>"]
    )


def _audit_hugo(edits: list) -> str:
    if not edits:
        return ""
    summary = f"Removed by the cleaner ({_audit_summary(edits)})".replace('"', "'")
    items = [f"- {escape_inline(line)}" for _, line in _audit_lines(edits)]
    return "\n".join([f'{{{{< details summary="{summary}" >}}}}', *items, "{{< /details >}}"])


FLAVORS = {
    "common": Flavor("common", inline_anchors=True, audit=_audit_html),
    "hugo": Flavor("hugo", inline_anchors=False, audit=_audit_hugo),
}


# --- blocks ------------------------------------------------------------------------------------


class _Writer:
    def __init__(self, label: str | None, layout: str, flavor: Flavor):
        self.label = label
        self.layout = layout
        self.flavor = flavor

    def english(self, en: str | None) -> str | None:
        if not en:
            return None
        return f"({self.label}) {escape_inline(en)}" if self.label else escape_inline(en)

    def pair(self, zh: str, en: str | None) -> tuple[str, str | None]:
        """(the line shown, the line quoted below it) for this layout."""
        chinese, english = escape_inline(zh), self.english(en)
        if self.layout == "translation":
            return english or chinese, None
        if self.layout == "english_first" and english:
            return english, chinese
        return chinese, english

    def body(self, blocks: tuple[Block, ...]) -> list[str]:
        parts: list[str] = []
        for (kind, _group), run in groupby(blocks, key=_container):
            run = list(run)
            if kind == "item":
                parts.append(self.items(run))
            elif kind == "cell":
                parts.append(self.table(run))
            else:
                parts += [self.block(b) for b in run]
        return parts

    def block(self, b: Block) -> str:
        a = self.flavor
        if b.kind == "code":
            return "\n".join([*a.before(b.id), *_anchor_line(a, b.id), fence(b.zh, b.lang)])
        if b.kind == "paragraph" and self.layout == "sentence":
            return self.sentences(b)
        if b.kind == "paragraph" and self.layout == "table":
            return self.sentence_table(b)
        main, second = self.pair(b.zh, b.en)
        if self.layout == "sentence" and a.inline_anchors and len(b.sentences) > 0:
            main = self.anchored_sentences(b)
        if b.kind == "heading":
            return "\n\n".join([a.heading(b.level, b.id, main), *_quoted(second, 1)])
        prefix = "> " * b.level if b.kind == "quote" else ""
        lines = [*a.before(b.id), f"{a.anchor(b.id)}{main}", *_quoted(second, 1)]
        # Inside a quote, the lines between its paragraphs keep the quote going.
        return f"\n{prefix.rstrip()}\n".join(f"{prefix}{line}" for line in lines)

    def anchored_sentences(self, b: Block) -> str:
        """A block's Chinese with an anchor before each sentence (sentence layout, for blocks
        that cannot be split into one pair per sentence: headings, items, quotes)."""
        out = ""
        for s in b.sentences:
            joiner = "" if not out or (has_han(out[-1]) or has_han(s.zh[0])) else " "
            out += f"{joiner}{self.flavor.anchor(s.id)}{escape_inline(s.zh)}"
        return out

    def sentences(self, b: Block) -> str:
        a = self.flavor
        parts = [*a.before(b.id), *_anchor_line(a, b.id)]
        for s in b.sentences:
            main, second = self.pair(s.zh, s.en)
            parts += [*a.before(s.id), f"{a.anchor(s.id)}{main}", *_quoted(second, 1)]
        return "\n\n".join(parts)

    def sentence_table(self, b: Block) -> str:
        a = self.flavor
        has_en = any(s.en for s in b.sentences) and self.layout == "table"
        header = "| 中文 | English |\n| --- | --- |" if has_en else "| 中文 |\n| --- |"
        rows = []
        for s in b.sentences:
            cell = f"{a.anchor(s.id)}{escape_inline(s.zh)}"
            rows.append(f"| {cell} | {self.english(s.en) or ''} |" if has_en else f"| {cell} |")
        return "\n\n".join([*a.before(b.id), *_anchor_line(a, b.id), "\n".join([header, *rows])])

    def items(self, run: list[Block]) -> str:
        a = self.flavor
        lines: list[str] = []
        for b in run:
            # Four spaces per level: Python-Markdown (MkDocs) nests only at four.
            indent = "    " * (b.level - 1)
            marker = "1." if b.ordered else "-"
            main, second = self.pair(b.zh, b.en)
            if a.inline_anchors:
                lines.append(f"{indent}{marker} {a.anchor(b.id)}{main}")
            else:
                lines.append(f"{indent}{marker} {a.before(b.id)[0]}")
                lines.append(f"{indent}    {main}")
            if second:
                lines += ["", f"{indent}    > {second}", ""]
        return "\n".join(lines).rstrip("\n")

    def table(self, run: list[Block]) -> str:
        a = self.flavor
        width = max(b.col for b in run) + 1
        rows: dict[int, list[str]] = {}
        for b in run:
            main, second = self.pair(b.zh, b.en)
            text = f"{main} ({second})" if second else main
            rows.setdefault(b.row, [""] * width)[b.col] = f"{a.anchor(b.id)}{text}"
        ordered = [rows[r] for r in sorted(rows)]
        lines = [_row(ordered[0]), _row(["---"] * width), *(_row(r) for r in ordered[1:])]
        return "\n\n".join([*a.before(run[0].id), "\n".join(lines)])


def _container(b: Block) -> tuple[str, int]:
    """Blocks that render together: the items of one list, the cells of one table."""
    if b.kind in ("item", "cell"):
        return b.kind, b.group
    return "single", id(b)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _anchor_line(flavor: Flavor, anchor_id: str) -> list[str]:
    """A line of its own holding the anchor, for blocks whose text cannot carry one inline."""
    return [flavor.anchor(anchor_id), ""] if flavor.inline_anchors else []


def _quoted(text: str | None, depth: int) -> list[str]:
    return [f"{'> ' * depth}{text}"] if text else []


def fence(code: str, lang: str = "") -> str:
    """A code fence longer than any backtick run inside the code."""
    longest = max((len(run) for run in _backtick_runs(code)), default=0)
    ticks = "`" * max(3, longest + 1)
    info = lang.split()[0] if lang else ""
    return f"{ticks}{info}\n{code}\n{ticks}"


def _backtick_runs(text: str) -> Iterator[str]:
    run = ""
    for ch in text:
        if ch == "`":
            run += ch
        elif run:
            yield run
            run = ""
    if run:
        yield run
