"""Batch runs over real-world inputs: encodings, bad files, HTML, names, incremental runs."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import opencc
import pytest

from pipeline.read import InputError, decode, read_document
from pipeline.stages.convert import to_simplified
from tests.conftest import SEEDS, clean, load_json, run_cli

SEED_TEXT = SEEDS[1].read_text(encoding="utf-8")


def encoded_sample(encoding: str) -> tuple[bytes, str]:
    """The seed converted to what the encoding can carry, its bytes, and the text they hold."""
    if encoding == "gb2312":
        text = to_simplified(SEED_TEXT)
    elif encoding == "big5":
        text = opencc.OpenCC("s2t").convert(to_simplified(SEED_TEXT))
    else:
        text = SEED_TEXT
    if encoding == "utf-8-sig":
        return b"\xef\xbb\xbf" + text.encode("utf-8"), text
    data = text.encode(encoding, errors="ignore")
    return data, data.decode(encoding)


@pytest.mark.parametrize(
    ("encoding", "reported"),
    [
        ("utf-8", "utf-8"),
        ("utf-8-sig", "utf-8-sig"),
        ("utf-16", "utf-16"),
        ("gb18030", "gb18030"),
        ("gbk", "gb18030"),
        ("gb2312", "gb18030"),
        ("big5", "big5"),
    ],
)
def test_encodings_are_detected_and_decoded(tmp_path, encoding, reported):
    data, text = encoded_sample(encoding)
    assert len(text) > 10000
    decoded, name, undecodable = decode(data)
    assert undecodable == ()
    assert decoded == text
    assert name == reported
    path = tmp_path / f"{encoding}.txt"
    path.write_bytes(data)
    assert run_cli(path, "-o", tmp_path / "out", "--translator", "none", "-q") == 0
    record = load_json(tmp_path / "out" / f"{encoding}.json")
    assert record["source"]["encoding"] == reported
    assert record["blocks"][0]["zh"].startswith("让大模型的训练和推理")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"abc\x00\x01\x02def" * 10, "NUL"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 50, "PNG image"),
        (b"PK\x03\x04" + b"\x14\x00" * 20, "zip archive"),
        (b"\xff\xfe\xff\xfe\x00\xd8", "UTF-16"),  # BOM, then a lone surrogate
        ("中文".encode() + b"\xff\xff\xff\x80\xff", "cannot decode"),
    ],
)
def test_bad_files_get_a_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        read_document(path)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_one_bad_file_never_stops_the_batch(tmp_path, capsys, monkeypatch):
    src = tmp_path / "in"
    write(src / "good.txt", SEED_TEXT)
    (src / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    write(src / "empty.txt", "   \n\n ")
    write(src / "locked.txt", "不可读的文件。")
    os.symlink(src / "loop-b.txt", src / "loop-a.txt")
    os.symlink(src / "loop-a.txt", src / "loop-b.txt")
    original_read = Path.read_bytes

    def read_bytes(self):  # tests run as root, for whom chmod 000 changes nothing
        if self.name == "locked.txt":
            raise PermissionError(13, "Permission denied", str(self))
        return original_read(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    # --jobs 1: the patched read must run in this process
    code = run_cli(
        src, tmp_path / "missing.txt", "-o", tmp_path / "out", "--translator", "none", "--jobs", "1"
    )
    err = capsys.readouterr().err
    assert code == 1
    assert (tmp_path / "out" / "good.md").is_file()
    for name, problem in [
        ("image.txt", "PNG"),
        ("locked.txt", "Permission denied"),
        ("loop-a.txt", "symbolic links"),
        ("missing.txt", "no such file"),
    ]:
        line = next(ln for ln in err.splitlines() if name in ln and "ERROR" not in ln)
        assert problem in line, line
    assert "empty.txt: empty file" in err  # a warning, not a failure
    assert "5 failed" in err  # loop-a and loop-b both
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == ["good.json", "good.md", "index.md", "terms.tsv"]


def test_only_warnings_exit_0(tmp_path):
    write(tmp_path / "in" / "empty.txt", "\n")
    write(tmp_path / "in" / "a.txt", "一篇很短的文章。")
    assert run_cli(tmp_path / "in", "-o", tmp_path / "out", "--translator", "none", "-q") == 0


def test_file_without_chinese_is_written_through_untranslated(tmp_path):
    path = write(tmp_path / "english.txt", "Just an English note.\nNothing Chinese here.")
    assert run_cli(path, "-o", tmp_path / "out", "--translator", "gloss", "-q") == 0
    data = load_json(tmp_path / "out" / "english.json")
    assert any("no Chinese" in n for n in data["notes"])
    assert [p["zh"] for p in data["blocks"]] == [
        "Just an English note.",
        "Nothing Chinese here.",
    ]
    assert all(p["en"] is None for p in data["blocks"])


def test_odd_file_names(tmp_path, monkeypatch):
    src = tmp_path / "in"
    names = ["with space.txt", "中文名.txt", "-dash.txt"]
    for name in names:
        write(src / name, "谷歌发布了新的模型。")
    assert run_cli(src, "-o", tmp_path / "out", "--translator", "none", "-q") == 0
    for name in names:
        assert (tmp_path / "out" / name.replace(".txt", ".md")).is_file()
    monkeypatch.chdir(src)
    assert run_cli("--translator", "none", "-q", "-o", tmp_path / "o2", "--", "-dash.txt") == 0
    assert (tmp_path / "o2" / "-dash.md").is_file()


def test_subfolders_are_mirrored_and_names_never_collide(tmp_path):
    src = tmp_path / "in"
    write(src / "a" / "x.txt", "第一篇文章。")
    write(src / "b" / "x.txt", "第二篇文章。")
    write(src / "a" / "y.txt", "第三篇文章。")
    write(src / "a" / "y.md", "第四篇文章。")
    other = write(tmp_path / "elsewhere" / "x.txt", "第五篇文章。")
    assert run_cli(src, other, "-o", tmp_path / "out", "--translator", "none", "-q") == 0
    # Paths relative to the inputs' common folder (tmp_path), in the outputs too.
    out = tmp_path / "out"
    expected = {
        "in/a/x": "第一篇文章。",
        "in/b/x": "第二篇文章。",
        "in/a/y.txt": "第三篇文章。",
        "in/a/y.md": "第四篇文章。",
        "elsewhere/x": "第五篇文章。",
    }
    for stem, text in expected.items():
        data = load_json(out / f"{stem}.json")
        assert data["blocks"][0]["zh"] == text
        assert not data["source"]["path"].startswith("/"), data["source"]["path"]
        assert stem.split(".")[0] == data["source"]["path"].rsplit(".", 1)[0]
    index = (out / "index.md").read_text(encoding="utf-8")
    for stem in expected:
        assert f"]({stem}.md)" in index


def test_output_names_do_not_depend_on_how_inputs_are_given(tmp_path, monkeypatch):
    src = tmp_path / "in"
    write(src / "a" / "x.txt", "第一篇文章。")
    write(src / "b" / "y.txt", "第二篇文章。")
    monkeypatch.chdir(tmp_path)
    ways = {
        "folder": ["in"],
        "glob": ["in/*/*.txt"],
        "files": ["in/a/x.txt", str(src / "b" / "y.txt")],
    }
    for name, inputs in ways.items():
        out = tmp_path / name
        assert run_cli(*inputs, "-o", out, "--translator", "none", "-q") == 0
        listing = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
        assert listing == ["a/x.json", "b/y.json"], (name, listing)
        assert load_json(out / "a" / "x.json")["source"]["path"] == "a/x.txt"
        front = (out / "a" / "x.md").read_text(encoding="utf-8").split("---")[1]
        assert "source: a/x.txt" in front and str(tmp_path) not in front


def test_globs(tmp_path, monkeypatch):
    write(tmp_path / "d" / "one.txt", "一。")
    write(tmp_path / "d" / "two.txt", "二。")
    write(tmp_path / "d" / "skip.csv", "三。")
    monkeypatch.chdir(tmp_path)
    assert run_cli("d/*", "-o", "out", "--translator", "none", "-q") == 0
    assert sorted(p.name for p in (tmp_path / "out").glob("*.json")) == ["one.json", "two.json"]
    assert run_cli("nothing/*.txt", "-o", "out", "--translator", "none", "-q") == 1


HTML_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>谷歌發布新模型</title></head>
<body><nav><a href="/">首页</a> | <a href="/news">新闻</a> | <a href="/login">登录</a></nav>
<article><h1>谷歌發布新模型</h1>
<p>谷(gu)歌(ge)近日發(fā)布了一個新的大語言模型，性能比上一代提高了兩倍。</p>
<p>研究人員表示，新模型在多項基準測試中取得了最好的成績，並且推理速度更快。</p>
<p>該模型將首先用於搜索和翻譯等產品，隨後向開發者開放。</p>
</article><footer>Copyright © 2023 某某網 版权所有 京ICP备12345678号</footer></body></html>"""


def test_html_pages_are_extracted_and_cleaned(tmp_path):
    path = write(tmp_path / "page.html", HTML_PAGE)
    assert run_cli(path, "-o", tmp_path / "out", "--translator", "none", "-q") == 0
    data = load_json(tmp_path / "out" / "page.json")
    assert data["source"]["format"] == "html"
    text = "\n".join(p["zh"] for p in data["blocks"])
    assert data["blocks"][0]["zh"] == "谷歌发布新模型"
    assert "谷歌近日发布了一个新的大语言模型" in text
    assert "(gu)" not in text and "首页" not in text and "ICP" not in text


def test_unchanged_documents_are_skipped_and_force_redoes_them(tmp_path, capsys):
    src = tmp_path / "in"
    a = write(src / "a.txt", "第一篇。")
    write(src / "b.txt", "第二篇。")
    args = (src, "-o", tmp_path / "out", "--translator", "none")
    assert run_cli(*args) == 0
    stamps = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "out").glob("*.json")}
    capsys.readouterr()
    write(a, "第一篇，改过了。")
    assert run_cli(*args) == 0
    assert "1 document(s) written" in capsys.readouterr().err
    assert (tmp_path / "out" / "b.json").stat().st_mtime_ns == stamps["b.json"]
    assert (tmp_path / "out" / "a.json").stat().st_mtime_ns != stamps["a.json"]
    assert run_cli(*args, "--layout", "table") == 0  # other settings: everything redone
    assert "2 document(s) written" in capsys.readouterr().err
    assert run_cli(*args, "--layout", "table", "--force") == 0
    assert "2 document(s) written" in capsys.readouterr().err
    index = (tmp_path / "out" / "index.md").read_text(encoding="utf-8")
    assert "(a.md)" in index and "(b.md)" in index


def test_parallel_jobs_give_the_same_output(tmp_path):
    src = tmp_path / "in"
    for i, seed in enumerate(SEEDS * 3):
        write(src / f"doc{i}.txt", seed.read_text(encoding="utf-8"))
    assert run_cli(src, "-o", tmp_path / "one", "--translator", "none", "--jobs", "1", "-q") == 0
    assert run_cli(src, "-o", tmp_path / "two", "--translator", "none", "--jobs", "2", "-q") == 0
    one = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.*"))
    two = sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*.*"))
    assert one == two and len(one) == 14  # 6 × (.md, .json), index.md, terms.tsv
    for rel in one:
        assert (tmp_path / "one" / rel).read_bytes() == (tmp_path / "two" / rel).read_bytes()


def test_nothing_is_written_outside_the_output_dir(tmp_path):
    src = tmp_path / "in"
    write(src / "a.txt", "一篇。")
    before = {p for p in tmp_path.rglob("*")}
    assert run_cli(src, "-o", tmp_path / "out", "--translator", "none", "-q") == 0
    new = {p for p in tmp_path.rglob("*")} - before
    assert all(tmp_path / "out" in p.parents or p == tmp_path / "out" for p in new)
    assert json.loads((tmp_path / "out" / "a.json").read_text())["source"]["path"] == "a.txt"


def test_preparing_a_document_leaves_the_garbage_collector_as_it_was():
    assert gc.isenabled()
    clean("發(fā)展很快。")
    assert gc.isenabled()
    gc.disable()
    try:
        clean("發(fā)展很快。")
        assert not gc.isenabled()
    finally:
        gc.enable()
