"""Structure of a Markdown source: its text, one line per block, and an outline of the blocks.

Markdown is parsed with markdown-it (CommonMark + tables + front matter). The cleaning stages work
on lines of prose, so the reader turns the source into *structured text*: each heading,
paragraph, list item, quote paragraph and table cell on a line of its own, a code block
verbatim, with an outline that says which span of that text is which block. Inline markup goes
(emphasis, raw HTML tags); what carries meaning stays: a link keeps its text and its target in
brackets, inline code keeps its backticks, an image its alt text. Soft line breaks inside a
paragraph join lines (no space between two Han characters or CJK punctuation marks). HTML
pages come here too, as the Markdown trafilatura extracts from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from pipeline.document import Block, evolve
from pipeline.text import has_han

_MARKDOWN = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)


@dataclass
class Outline:
    text: str = ""
    blocks: list[Block] = field(default_factory=list)
    title: str | None = None
    metadata: dict = field(default_factory=dict)


def read_markdown(source: str) -> Outline:
    """The structured text and outline of a Markdown document."""
    out = Outline()
    builder = _Builder(out)
    builder.walk(_MARKDOWN.parse(source))
    title = out.metadata.get("title")
    out.title = str(title).strip() if title else None
    if out.title and not any(b.kind == "heading" and b.level == 1 for b in out.blocks):
        # A title only in the front matter becomes the document's first heading: it is cleaned
        # and translated like every other line.
        builder.prepend_heading(out.title)
    return out


class _Builder:
    def __init__(self, out: Outline):
        self.out = out
        self.parts: list[str] = []
        self.length = 0
        self.group = 0
        self.containers: list[tuple[str, bool]] = []  # ("list", ordered) / ("quote", False)

    def walk(self, tokens: list[Token]) -> None:
        row = col = 0
        for i, tok in enumerate(tokens):
            t = tok.type
            if t == "front_matter":
                self.out.metadata = _front_matter(tok.content)
            elif t in ("bullet_list_open", "ordered_list_open"):
                if not self._depth("list"):
                    self.group += 1
                self.containers.append(("list", t == "ordered_list_open"))
            elif t in ("bullet_list_close", "ordered_list_close", "blockquote_close"):
                self.containers.pop()
            elif t == "blockquote_open":
                if not self._depth("quote"):
                    self.group += 1
                self.containers.append(("quote", False))
            elif t == "list_item_open":
                self._continues = False
            elif t == "table_open":
                self.group += 1
                row = -1
            elif t == "tr_open":
                row, col = row + 1, 0
            elif t in ("th_open", "td_open"):
                text = inline_text(tokens[i + 1])
                self.add(text, Block("", 0, 0, "", kind="cell", group=self.group, row=row, col=col))
                col += 1
            elif t == "heading_open" and not self._depth("list"):
                kind = "quote" if self._depth("quote") else "heading"
                level = self._depth("quote") if kind == "quote" else int(tok.tag[1])
                self.add(inline_text(tokens[i + 1]), self._block(kind, level))
            elif t == "paragraph_open" and not tok.hidden and self._depth("list") == 0:
                self._paragraph(inline_text(tokens[i + 1]))
            elif (
                t == "inline"
                and self._depth("list")
                and tokens[i - 1].type
                in (
                    "paragraph_open",
                    "heading_open",
                )
            ):
                self._item_paragraph(inline_text(tok))
            elif t in ("fence", "code_block"):
                code = tok.content[:-1] if tok.content.endswith("\n") else tok.content
                lang = tok.info.strip() if t == "fence" else ""
                self.add(code, Block("", 0, 0, "", kind="code", group=self.group, lang=lang))
            elif t == "html_block":
                self._paragraph(" ".join(tok.content.split()))
        # joined once at the end: joining after every block was quadratic in a long page
        self.out.text = "".join(self.parts)

    def _depth(self, kind: str) -> int:
        return sum(1 for k, _ in self.containers if k == kind)

    def _block(self, kind: str, level: int) -> Block:
        return Block("", 0, 0, "", kind=kind, level=level, group=self.group)

    def _paragraph(self, text: str) -> None:
        depth = self._depth("quote")
        self.add(text, self._block("quote" if depth else "paragraph", depth))

    def _item_paragraph(self, text: str) -> None:
        """An item's first paragraph is the item; a later one continues it on the same line."""
        ordered = next(o for k, o in reversed(self.containers) if k == "list")
        last = self.out.blocks[-1] if self.out.blocks else None
        depth = self._depth("list")
        if last is not None and last.kind == "item" and last.level == depth and self._continues:
            self._extend(text)
            return
        block = Block("", 0, 0, "", kind="item", level=depth, ordered=ordered, group=self.group)
        self.add(text, block)
        self._continues = True

    _continues = False

    def _extend(self, text: str) -> None:
        last = self.out.blocks[-1]
        self.parts.append(" " + text)
        self.length += 1 + len(text)
        self.out.blocks[-1] = _moved(last, last.start, self.length)

    def add(self, text: str, block: Block) -> None:
        if not text.strip():
            return
        self._continues = False
        prev = self.out.blocks[-1] if self.out.blocks else None
        # Items of one list and cells of one table sit on consecutive lines; blocks are
        # otherwise separated by a blank line, as in the source.
        tight = prev is not None and prev.group == block.group and block.kind in ("item", "cell")
        sep = "" if prev is None else "\n" if tight else "\n\n"
        self.parts += [sep, text]
        start = self.length + len(sep)
        self.length = start + len(text)
        self.out.blocks.append(_moved(block, start, self.length))

    def prepend_heading(self, title: str) -> None:
        title = " ".join(title.split())
        shift = len(title) + 2
        blocks = [_moved(b, b.start + shift, b.end + shift) for b in self.out.blocks]
        heading = Block("", 0, len(title), "", kind="heading", level=1)
        self.out.blocks = [heading, *blocks]
        self.out.text = title + ("\n\n" + self.out.text if self.out.text else "")


def _moved(block: Block, start: int, end: int) -> Block:
    return evolve(block, start=start, end=end)


def _front_matter(content: str) -> dict:
    try:
        data = yaml.safe_load(content)
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def inline_text(tok: Token) -> str:
    """The text of an inline token: markup dropped, link targets and inline code kept."""
    parts: list[str] = []
    href: list[str] = []
    link_start: list[int] = []
    for child in tok.children or ():
        t = child.type
        if t == "text":
            parts.append(child.content)
        elif t == "code_inline":
            ticks = "``" if "`" in child.content else "`"
            parts.append(f"{ticks}{child.content}{ticks}")
        elif t in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif t == "link_open":
            href.append(str(child.attrs.get("href", "")))
            link_start.append(len(parts))
        elif t == "link_close" and href:
            target, start = href.pop(), link_start.pop()
            shown = "".join(parts[start:])
            if target and target != shown and not target.startswith("#"):
                parts.append(f" ({target})")
        elif t == "image":
            parts.append(child.content)
        # emphasis, strong, strikethrough and inline HTML tags are markup only
    return _join_lines("".join(parts))


def _cjk(ch: str) -> bool:
    """A Han character or CJK punctuation (。，「」… and full-width forms)."""
    return has_han(ch) or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef"


def _join_lines(text: str) -> str:
    """One line: a line break between two Han characters disappears, others become a space."""
    lines = [line.strip() for line in text.split("\n")]
    out = lines[0] if lines else ""
    for line in lines[1:]:
        if not line:
            continue
        joiner = "" if out and _cjk(out[-1]) and _cjk(line[0]) else " "
        out = f"{out}{joiner}{line}" if out else line
    return out
