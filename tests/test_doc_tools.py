"""The Markdown rendered by the doc tools people feed it to: markdown-it (GitHub-style
CommonMark), MkDocs (default theme and Material, strict), Pandoc, MDX 3 (compiled and rendered
with React) and Hugo (default configuration, `--flavor hugo`).

Each check reads the rendered HTML: every anchor the JSON promises is an element id, the
cleaner's audit is a real list inside <details>, and no escape shows as a literal backslash.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.conftest import INPUT, ROOT, load_json, run_cli

STRUCTURE = ROOT / "tests" / "fixtures" / "structure"
ADVERSARIAL = ROOT / "tests" / "fixtures" / "adversarial.txt"
NODE_TOOLS = ROOT / "tests" / "doc_tools"
IDS = re.compile(r'\sid="([^"]+)"')  # an attribute, not `?id=` in a URL


def _site_inputs(tmp: Path) -> Path:
    """The seeds, the adversarial page and the structured fixtures in one folder."""
    src = tmp / "src"
    src.mkdir()
    for path in [*INPUT.glob("*.txt"), ADVERSARIAL, *STRUCTURE.iterdir()]:
        shutil.copy(path, src / path.name)
    return src


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("doc_tools")
    src = _site_inputs(tmp)
    out = {}
    for flavor in ("common", "hugo"):
        out[flavor] = tmp / flavor
        args = ["--translator", "gloss", "-q", "--flavor", flavor, "--no-cache"]
        assert run_cli(src, "-o", out[flavor], *args) == 0
    return out


def _documents(folder: Path) -> list[tuple[Path, dict]]:
    return [(p.with_suffix(".md"), load_json(p)) for p in sorted(folder.glob("*.json"))]


def expected_ids(data: dict, flavor: str) -> set[str]:
    """The anchors a page must have: every block's (in Hugo: a table's first cell's only)."""
    ids = set()
    seen_tables = set()
    for block in data["blocks"]:
        if flavor == "hugo" and block["kind"] == "cell":
            if block["group"] in seen_tables:
                continue
            seen_tables.add(block["group"])
        ids.add(block["id"])
    return ids


def _audit_ok(html: str, data: dict) -> None:
    """A page with removals has the audit as a list inside <details>; none without."""
    shown = [e for e in data["removed"] + data["repaired"] if e.get("kind") != "line-ending"]
    if not shown:
        assert "<details" not in html
        return
    details = re.search(r"<details.*?</details>", html, re.S)
    assert details, "audit missing"
    assert "Removed by the cleaner" in details.group()
    assert details.group().count("<li") >= 1
    assert "\\_" not in details.group() and "\\[" not in details.group()


def _check_page(html: str, data: dict, flavor: str, where: str) -> None:
    missing = expected_ids(data, flavor) - set(IDS.findall(html))
    assert not missing, f"{where}: anchors missing: {sorted(missing)[:5]}"
    assert "raw HTML omitted" not in html, where
    _audit_ok(html, data)


def _body(md: str) -> str:
    return md.split("---\n", 2)[2]


def test_markdown_it_renders_structure_and_every_anchor(sites):
    md_it = MarkdownIt("commonmark").enable("table")
    for md, data in _documents(sites["common"]):
        html = md_it.render(_body(md.read_text(encoding="utf-8")))
        _check_page(html, data, "common", md.name)
        kinds = {b["kind"] for b in data["blocks"]}
        for kind, tag in [("item", "<li"), ("cell", "<td"), ("code", "<pre"), ("quote", "<blockq")]:
            if kind in kinds:
                assert tag in html, (md.name, kind)


@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_mkdocs_strict_build_renders_anchors_and_audit(sites, tmp_path, theme):
    docs = tmp_path / "docs"
    shutil.copytree(sites["common"], docs)
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        f"site_name: test\ndocs_dir: {docs}\nsite_dir: {tmp_path / 'site'}\n"
        f"use_directory_urls: false\ntheme:\n  name: {theme}\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # Material's banner, not about us
    )
    assert result.returncode == 0, result.stderr
    assert not re.search(r"^WARNING\b", result.stderr, re.M), result.stderr
    for md, data in _documents(sites["common"]):
        html = (tmp_path / "site" / f"{md.stem}.html").read_text(encoding="utf-8")
        _check_page(html, data, "common", f"{theme}:{md.name}")
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "Cleaning summary" in index


def test_pandoc_renders_anchors_and_audit(sites):
    pypandoc = pytest.importorskip("pypandoc")
    for md, data in _documents(sites["common"]):
        html = pypandoc.convert_file(str(md), "html", format="markdown")
        _check_page(html, data, "common", f"pandoc:{md.name}")


def test_mdx3_compiles_and_renders_every_page(sites):
    node = shutil.which("node")
    if node is None or not (NODE_TOOLS / "node_modules").is_dir():
        pytest.fail("node and tests/doc_tools/node_modules are needed (make test installs them)")
    files = sorted(str(p) for p in sites["common"].glob("*.md"))
    result = subprocess.run(
        [node, str(NODE_TOOLS / "render_mdx.mjs"), *files],
        capture_output=True,
        text=True,
        check=True,
        cwd=NODE_TOOLS,
    )
    rendered = json.loads(result.stdout)
    errors = {f: r["error"] for f, r in rendered.items() if isinstance(r, dict)}
    assert not errors, errors
    for md, data in _documents(sites["common"]):
        _check_page(rendered[str(md)], data, "common", f"mdx:{md.name}")


def test_hugo_default_config_keeps_every_anchor(sites, tmp_path):
    site = tmp_path / "site"
    (site / "layouts").mkdir(parents=True)
    # The least a site has: pages render their content; nothing configured for us.
    (site / "layouts" / "single.html").write_text("<html><body>{{ .Content }}</body></html>")
    (site / "layouts" / "list.html").write_text("<html><body>{{ .Content }}</body></html>")
    (site / "hugo.toml").write_text('baseURL = "http://example.org/"\ntitle = "t"\n')
    shutil.copytree(sites["hugo"], site / "content" / "docs")
    hugo = Path(sys.executable).with_name("hugo")
    result = subprocess.run(
        [str(hugo), "--source", str(site), "--logLevel", "warn"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "WARN" not in result.stdout + result.stderr, result.stdout + result.stderr
    for md, data in _documents(sites["hugo"]):
        html = (site / "public" / "docs" / md.stem.lower() / "index.html").read_text()
        _check_page(html, data, "hugo", f"hugo:{md.name}")
    section = (site / "public" / "docs" / "index.html").read_text()
    assert "Cleaning summary" in section


def test_a_markdown_input_keeps_its_block_tree(tmp_path):
    """Headings, nested lists, table, code fence, quote: the output's tree is the input's."""
    src = STRUCTURE / "guide.md"
    assert run_cli(src, "-o", tmp_path, "--translator", "none", "-q") == 0
    ours = (tmp_path / "guide.md").read_text(encoding="utf-8")
    assert block_tree(_body(ours)) == block_tree(src.read_text(encoding="utf-8"))


def block_tree(markdown: str) -> list[str]:
    """The block structure markdown-it sees, without the text: a list of opening tags with
    their nesting, plus the table's shape and the code's language."""
    md_it = MarkdownIt("commonmark").enable("table")
    from mdit_py_plugins.front_matter import front_matter_plugin

    tree = []
    for tok in md_it.use(front_matter_plugin).parse(markdown):
        if tok.type.endswith("_open") and tok.type != "paragraph_open":
            tree.append(f"{'  ' * tok.level}{tok.tag}")
        elif tok.type == "fence":
            tree.append(f"{'  ' * tok.level}code:{tok.info.strip()}")
    return tree


def test_anchors_of_unchanged_blocks_survive_a_change_in_cleaning(tmp_path):
    """`--keep spam` brings back what spam cut; every block that was there before keeps its id."""
    seed = next(p for p in INPUT.glob("*.txt") if p.name.startswith("003"))
    assert run_cli(seed, "-o", tmp_path / "a", "--translator", "none", "-q") == 0
    assert run_cli(seed, "-o", tmp_path / "b", "--translator", "none", "-q", "--keep", "spam") == 0
    before = {b["zh"]: b["id"] for b in load_json(tmp_path / "a" / f"{seed.stem}.json")["blocks"]}
    after = {b["zh"]: b["id"] for b in load_json(tmp_path / "b" / f"{seed.stem}.json")["blocks"]}
    assert len(after) > len(before)  # spam came back: the blocks after it moved in the order
    # The title line shared its line with a pinyin ad: that block changed; every other stayed.
    unchanged = {zh: i for zh, i in before.items() if zh in after}
    assert len(unchanged) >= len(before) - 1
    assert {zh: after[zh] for zh in unchanged} == unchanged


def test_translation_only_and_english_first_layouts(tmp_path):
    src = STRUCTURE / "guide.md"
    for layout in ("translation", "english_first"):
        out = tmp_path / layout
        args = ["--translator", "gloss", "-q", "--layout", layout, "--no-cache"]
        assert run_cli(src, "-o", out, *args) == 0
        data = load_json(out / "guide.json")
        html = (
            MarkdownIt("commonmark")
            .enable("table")
            .render(_body((out / "guide.md").read_text(encoding="utf-8")))
        )
        assert expected_ids(data, "common") <= set(IDS.findall(html))
        heading = data["blocks"][0]
        h1 = re.search(r"<h1>(.*?)</h1>", html).group(1)
        assert heading["en"] in h1 and heading["zh"] not in h1
        if layout == "translation":
            assert "安装之前需要准备以下内容" not in html  # the Chinese is in the JSON only
        else:
            assert "安装之前需要准备以下内容" in html


def test_index_lists_every_document_in_the_folder(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(3):
        text = f"第{i}篇文章的内容。\n首页 | 新闻 | 登录\n"
        (src / f"d{i}.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert run_cli(src, "-o", out, "--translator", "none", "-q") == 0
    extra = tmp_path / "extra.txt"
    extra.write_text("另一篇文章。", encoding="utf-8")
    assert run_cli(extra, "-o", out, "--translator", "none", "-q") == 0  # one file, same folder
    index = (out / "index.md").read_text(encoding="utf-8")
    assert all(f"(d{i}.md)" in index for i in range(3)) and "(extra.md)" in index
    assert "documents: 4" in index
    # the menu line was cut from all three: the summary shows it once, with its count
    assert re.search(r"\| 首页 \\\| 新闻 \\\| 登录 \| 3 \|", index), index
    (out / "d0.md").unlink()  # a document whose files are gone drops out
    assert run_cli(extra, "-o", out, "--translator", "none", "-q") == 0
    assert "(d0.md)" not in (out / "index.md").read_text(encoding="utf-8")


def test_a_page_the_cleaner_empties_is_a_warning_naming_it(tmp_path, capsys):
    page = tmp_path / "chrome.txt"
    page.write_text("首页 | 新闻 | 登录 | 注册\n返回搜狐，查看更多\n", encoding="utf-8")
    assert run_cli(page, "-o", tmp_path / "out", "--translator", "none") == 0
    err = capsys.readouterr().err
    assert "chrome.txt" in err and "removed all of its text" in err
    md = (tmp_path / "out" / "chrome.md").read_text(encoding="utf-8")
    assert "返回搜狐" in md.split("<details>")[1]  # what went is listed in the audit


def test_an_html_article_keeps_its_headings_and_lists(tmp_path):
    src = STRUCTURE / "article.html"
    assert run_cli(src, "-o", tmp_path, "--translator", "none", "-q") == 0
    tree = [line.strip() for line in block_tree(_body((tmp_path / "article.md").read_text()))]
    # The <article>: h1, p, h2, ul (2 li), p, h2, p; the nav and footer are gone.
    assert tree == ["h1", "h2", "ul", "li", "li", "h2"]
    data = load_json(tmp_path / "article.json")
    assert data["title"]["zh"] == "城市公园改造完成"
    assert [b["kind"] for b in data["blocks"]] == [
        "heading",
        "paragraph",
        "heading",
        "item",
        "item",
        "paragraph",
        "heading",
        "paragraph",
    ]
    assert not any("版权所有" in b["zh"] or "首页" in b["zh"] for b in data["blocks"])
