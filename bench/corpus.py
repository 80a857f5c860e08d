"""A corpus of real-looking dirty pages for whole-process benchmarks and output checks.

Pages are put together from the two seed articles and the labeled cleaning fixtures
(tests/fixtures/cleaning, tests/fixtures/structure), with the noise real pages carry, varied
page by page from a fixed random seed (the same corpus every run): Traditional or Simplified
script, pinyin readings after characters and words (toned, toneless, full-width brackets),
chrome and spam lines at the top, bottom and between paragraphs, invisible characters, lost
`?`, CRLF line ends, Latin, digits and URLs in the prose, and a few Markdown pages with
headings, lists, tables and code.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from bench.common import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
DEFAULT_DOCS = 53
# Latin, digits and URLs as pages mix them into Chinese prose: what segmenters disagree on.
_LATIN_BITS = (
    "详见 https://research.google/pubs/pub49988/ 。",
    "模型在MLPerf 2.0上的成绩提升了3.5倍",
    "GPT-4和Llama-2-70B都用了RLHF",
    "下载地址：www.example.com/a_b-c.html?id=42&x=1",
    "联系邮箱 team.ai@example.org，或者拨打400-800-1234",
    "TPU v4的峰值算力为275 TFLOPS（bf16）",
    "版本号v1.2.3-rc1，发布于2023.06.12",
    "research.google和arxiv.org上都有论文",
    "C++与C#以及Node.js 18.x的性能对比约为1:2.5",
    "价格下调了12.5%，约合¥1,299元",
)


@dataclass(frozen=True)
class Page:
    name: str
    text: str


def _fixture_rows() -> tuple[list[str], list[str]]:
    """(content lines, junk lines) of the labeled cleaning fixtures."""
    content, junk = [], []
    for path in sorted((FIXTURES / "cleaning").glob("*.tsv")):
        for row in path.read_text(encoding="utf-8").splitlines():
            label, _, rest = row.partition("\t")
            text = rest.split("\t")[0]
            if label == "junk":
                junk.append(text)
            elif label in ("keep", "anno", "cut") and text.strip():
                content.append(text)
    return content, junk


def _paragraphs() -> list[list[str]]:
    """The seed articles as runs of consecutive non-blank lines (kept together: a page's
    prose reads in order)."""
    runs = []
    for path in sorted((ROOT / "input").glob("*.txt")):
        lines = [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        runs += [lines[i : i + 6] for i in range(0, len(lines), 6)]
    return runs


class _Noise:
    def __init__(self, rng: random.Random):
        from pypinyin import Style, pinyin

        self.rng = rng
        self._pinyin = pinyin
        self._style = Style

    def readings(self, line: str, rate: float, toned: bool, wide: bool) -> str:
        """`字(zì)` after some Han characters, as mirror sites paste them."""
        style = self._style.TONE if toned else self._style.NORMAL
        out = []
        for ch in line:
            out.append(ch)
            if "\u4e00" <= ch <= "\u9fff" and self.rng.random() < rate:
                syllable = self._pinyin(ch, style=style)[0][0]
                out.append(f"（{syllable}）" if wide else f"({syllable})")
        return "".join(out)

    def scatter(self, line: str, what: str, rate: float) -> str:
        """`what` (an invisible character, a lost `?`) between some characters."""
        return "".join(c + (what if self.rng.random() < rate else "") for c in line)


def _page(n: int, rng: random.Random, target: int, pools: dict) -> Page:
    noise = _Noise(rng)
    traditional = rng.random() < 0.5
    annotate = rng.random() < 0.6
    toned = rng.random() < 0.5
    wide = rng.random() < 0.2
    invisible = rng.random() < 0.3
    lost = rng.random() < 0.3
    junk = pools["junk"]
    lines: list[str] = [rng.choice(junk) for _ in range(rng.randint(2, 8))]  # page chrome on top
    size = 0
    while size < target:
        block = list(rng.choice(pools["paragraphs"]))
        if rng.random() < 0.3:
            block.insert(rng.randrange(len(block) + 1), rng.choice(pools["content"]))
        if rng.random() < 0.25:
            block.append(rng.choice(_LATIN_BITS) + rng.choice(pools["content"]))
        if rng.random() < 0.15:
            block.insert(rng.randrange(len(block) + 1), rng.choice(junk))
        for line in block:
            if annotate and rng.random() < 0.3:
                line = noise.readings(line, rng.uniform(0.05, 0.5), toned, wide)
            if invisible and rng.random() < 0.1:
                line = noise.scatter(line, "\u200b", 0.02)
            if lost and rng.random() < 0.05:
                line = noise.scatter(line, "?", 0.01)
            lines += [line, ""]
            size += len(line.encode("utf-8")) + 2
    lines += [rng.choice(junk) for _ in range(rng.randint(2, 10))]  # footer chrome
    text = "\n".join(lines) + "\n"
    if not traditional:
        text = pools["simplify"](text)
    if rng.random() < 0.15:
        text = text.replace("\n", "\r\n")
    return Page(f"page{n:03d}.txt", text)


def _markdown_page(n: int, rng: random.Random, target: int, pools: dict) -> Page:
    """A Markdown page: the structure fixture's guide, repeated with seed prose between."""
    guide = (FIXTURES / "structure" / "guide.md").read_text(encoding="utf-8")
    head, _, body = guide.partition("\n---\n")
    parts = [f"{head}\n---\n"]
    size = 0
    while size < target:
        prose = "\n\n".join(rng.choice(pools["paragraphs"]))
        parts += [body, f"\n\n## 第{len(parts)}节\n\n{prose}\n\n- {rng.choice(_LATIN_BITS)}\n"]
        size += len(body.encode("utf-8")) + len(prose.encode("utf-8"))
    return Page(f"page{n:03d}.md", "".join(parts))


def generate(target_bytes: int = 5_000_000, docs: int = DEFAULT_DOCS, seed: int = 14) -> list[Page]:
    """`docs` pages of about `target_bytes` in all (UTF-8), the same for the same arguments."""
    import opencc

    content, junk = _fixture_rows()
    converter = opencc.OpenCC("t2s")
    pools = {
        "content": content,
        "junk": junk,
        "paragraphs": _paragraphs(),
        "simplify": converter.convert,
    }
    rng = random.Random(seed)
    per_doc = max(1, target_bytes // docs)
    pages = []
    for n in range(docs):
        size = int(per_doc * rng.uniform(0.5, 1.5))
        make = _markdown_page if n % 10 == 9 else _page
        pages.append(make(n, rng, size, pools))
    return pages


def write(directory: Path, target_bytes: int = 5_000_000, docs: int = DEFAULT_DOCS) -> int:
    """Write the corpus into `directory`; returns its size in bytes."""
    directory.mkdir(parents=True, exist_ok=True)
    total = 0
    for page in generate(target_bytes, docs):
        data = page.text.encode("utf-8")
        (directory / page.name).write_bytes(data)
        total += len(data)
    return total


def fixture_pages() -> list[Page]:
    """The seeds and every fixture as pages of their own (the cleaning fixtures' text column
    joined, as the cleaning tests read them)."""
    pages = [
        Page(p.name, p.read_text(encoding="utf-8")) for p in sorted((ROOT / "input").glob("*.txt"))
    ]
    for path in sorted((FIXTURES / "cleaning").glob("*.tsv")):
        rows = [
            r.partition("\t")[2].split("\t")[0]
            for r in path.read_text(encoding="utf-8").splitlines()
        ]
        pages.append(Page(f"fixture-{path.stem}.txt", "\n".join(rows) + "\n"))
    for path in sorted((FIXTURES / "structure").iterdir()):
        pages.append(Page(f"structure-{path.name}", path.read_text(encoding="utf-8")))
    adversarial = FIXTURES / "adversarial.txt"
    pages.append(Page("adversarial.txt", adversarial.read_text(encoding="utf-8")))
    return pages
