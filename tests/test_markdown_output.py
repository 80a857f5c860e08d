"""The Markdown writer: input text can never create structure; real consumers can read it."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from pipeline.write.escape import escape_inline
from tests.conftest import ROOT, load_json, run_cli

ADVERSARIAL = ROOT / "tests" / "fixtures" / "adversarial.txt"
# Tags the writer itself produces; anything else in rendered HTML came from the input.
WRITER_TAGS = {
    "p",
    "h1",
    "h2",
    "blockquote",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "details",
    "summary",
    "ul",
    "li",
}


class TagCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def rendered_tags(markdown: str) -> list[tuple[str, dict]]:
    body = markdown.split("---\n", 2)[2]  # drop the front matter
    html = MarkdownIt("commonmark").enable("table").render(body)
    collector = TagCollector()
    collector.feed(html)
    return collector.tags


@pytest.mark.parametrize("layout", ["paragraph", "sentence", "table"])
def test_adversarial_input_creates_no_tags_or_links(tmp_path, layout):
    assert run_cli(ADVERSARIAL, "-o", tmp_path, "--translator", "none", "--layout", layout) == 0
    md = (tmp_path / "adversarial.md").read_text(encoding="utf-8")
    tags = rendered_tags(md)
    assert {t for t, _ in tags} <= WRITER_TAGS, {t for t, _ in tags} - WRITER_TAGS
    for tag, attrs in tags:
        if tag == "a":
            assert set(attrs) == {"id"}, attrs  # anchors only: no href from the input
    headings = [
        b for b in load_json(tmp_path / "adversarial.json")["blocks"] if b["kind"] == "heading"
    ]
    assert sum(1 for t, _ in tags if t in ("h1", "h2")) == len(headings)
    if layout == "table":  # one table per paragraph
        blocks = load_json(tmp_path / "adversarial.json")["blocks"]
        paragraphs = [b for b in blocks if b["kind"] == "paragraph"]
        assert sum(1 for t, _ in tags if t == "table") == len(paragraphs)


def test_escaped_text_renders_back_to_itself():
    for text in ["# 井号", "1. 列表", "a*b*c", "<b>", "x|y", "[a](b)", "`c`", "&amp;", "- 项"]:
        html = MarkdownIt("commonmark").renderInline(escape_inline(text))
        unescaped = html.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
        assert unescaped.replace("&amp;", "&") == text


def test_without_english_there_are_no_empty_quotes(seed_output):
    md = (seed_output / "000_26b7244c99b2266e.md").read_text(encoding="utf-8")
    assert "\n> " not in md  # --translator none: the Chinese stands alone
    assert Path(seed_output / "index.md").read_text(encoding="utf-8").startswith("---\n")
