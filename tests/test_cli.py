"""The command line never surprises: outputs are never inputs, bad output paths stop before any
work, Ctrl-C is one line, other libraries stay quiet under -q, and a few bad bytes are repaired
and reported instead of refusing the whole file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import pipeline.runner
from tests.conftest import ROOT, load_json, run_cli

ARTICLE = "谷歌的研究人员发布了新的大语言模型。\n训练和推理的效率都有提升，成本也下降了。\n"


def test_an_output_folder_inside_the_input_folder_is_never_read(tmp_path):
    (tmp_path / "a.txt").write_text(ARTICLE, encoding="utf-8")
    out = tmp_path / "out"
    for _ in range(3):
        assert run_cli(tmp_path, "-o", out, "--translator", "none", "-q", "--force") == 0
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md")) == ["a.md", "index.md"]


def test_output_that_is_a_file_stops_before_any_work(tmp_path, capsys, monkeypatch):
    (tmp_path / "a.txt").write_text(ARTICLE, encoding="utf-8")
    target = tmp_path / "taken"
    target.write_text("not a folder", encoding="utf-8")
    monkeypatch.setattr(pipeline.runner, "run", lambda *a, **k: pytest.fail("work was done"))
    with pytest.raises(SystemExit) as stop:
        run_cli(tmp_path / "a.txt", "-o", target, "--translator", "none")
    assert stop.value.code == 2
    assert "not a directory" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "not a folder"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_output_stops_before_any_work(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(SystemExit) as stop:
        run_cli(tmp_path, "-o", locked / "out", "--translator", "none")
    assert stop.value.code == 2


def test_interrupt_is_one_line_and_leaves_no_temp_files(tmp_path, capsys, monkeypatch):
    for i in range(5):
        (tmp_path / f"d{i}.txt").write_text(ARTICLE, encoding="utf-8")
    real_write = pipeline.runner.write_document
    calls = []

    def write_then_interrupt(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_write(*args, **kwargs)

    monkeypatch.setattr(pipeline.runner, "write_document", write_then_interrupt)
    out = tmp_path / "out"
    assert run_cli(tmp_path, "-o", out, "--translator", "none", "-q", "--jobs", "1") == 130
    err = capsys.readouterr().err
    assert err.strip() == "interrupted: 2 written, re-run to resume"
    assert not list(out.rglob("*.tmp"))
    assert len(list(out.glob("d*.json"))) == 2


def test_ctrl_c_on_a_real_run_prints_no_traceback(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for i in range(60):
        (inputs / f"d{i:02}.txt").write_text(ARTICLE * 400, encoding="utf-8")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "pipeline", "run", str(inputs), "-o", str(out)]
    proc = subprocess.Popen(
        [*command, "--translator", "none", "--jobs", "2"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # as from a terminal: a shell's background job (`make test &`) starts its children with
        # SIGINT ignored, and Python keeps it ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not list(out.glob("*.json")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip().splitlines()[-1].startswith("interrupted: ")
    assert not list(out.rglob("*.tmp"))
    # the next run finishes the rest and redoes nothing finished
    done = {p.name for p in out.glob("*.json")}
    rerun = subprocess.run(
        [*command, "--translator", "none"], cwd=ROOT, capture_output=True, text=True
    )
    assert rerun.returncode == 0
    assert f"{len(done)} unchanged" in rerun.stderr


def test_quiet_hides_other_libraries_log_lines(tmp_path, capfd):
    (tmp_path / "empty.html").write_text("<html><body></body></html>", encoding="utf-8")
    run_cli(tmp_path, "-o", tmp_path / "out", "--translator", "none", "-q")
    err = capfd.readouterr().err
    assert "parsed tree" not in err and "ERROR" not in err


def test_a_missing_local_model_directory_is_not_told_to_download(tmp_path, capsys):
    code = run_cli(tmp_path, "--translator", "marian", "--model", tmp_path / "mine", "-o", tmp_path)
    assert code == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "hf download" not in err


def test_a_cut_last_character_is_replaced_recorded_and_reported(tmp_path, capsys):
    data = ARTICLE.encode("utf-8") + "模型".encode()[:-1]  # one byte cut off
    (tmp_path / "cut.txt").write_bytes(data)
    assert run_cli(tmp_path / "cut.txt", "-o", tmp_path / "out", "--translator", "none") == 0
    err = capsys.readouterr().err
    assert "cut.txt" in err and "undecodable" in err
    record = load_json(tmp_path / "out" / "cut.json")
    (bad,) = record["source"]["undecodable"]
    assert bad["bytes"] == "e59e"  # 型 is e5 9e 8b; the 8b was cut
    zh = "".join(p["zh"] for p in record["blocks"])
    assert "\ufffd" not in zh and zh.endswith("模") and "效率都有提升" in zh
    assert any(r["reason"] == "undecodable bytes" for r in record["removed"])


def test_mostly_undecodable_files_are_still_refused(tmp_path):
    (tmp_path / "noise.txt").write_bytes(bytes(range(0x80, 0x100)) * 40)
    assert run_cli(tmp_path, "-o", tmp_path / "out", "--translator", "none", "-q") == 1


def test_index_rows_of_unchanged_documents_come_from_their_json(tmp_path):
    (tmp_path / "a.txt").write_text(ARTICLE, encoding="utf-8")
    (tmp_path / "b.txt").write_text("大模型的新进展\n" + ARTICLE, encoding="utf-8")
    out = tmp_path / "out"
    assert run_cli(tmp_path, "-o", out, "--translator", "none", "-q") == 0
    first = (out / "index.md").read_text(encoding="utf-8")
    (out / "a.md").write_text("---\ntitle: edited by hand\n---\n", encoding="utf-8")
    assert run_cli(tmp_path, "-o", out, "--translator", "none", "-q") == 0  # both unchanged
    assert (out / "index.md").read_text(encoding="utf-8") == first
    assert "大模型的新进展" in first and "edited by hand" not in first


def test_windows_line_endings_are_not_listed_as_removals(tmp_path):
    (tmp_path / "crlf.txt").write_bytes(ARTICLE.replace("\n", "\r\n").encode("utf-8"))
    assert run_cli(tmp_path, "-o", tmp_path / "out", "--translator", "none", "-q") == 0
    record = load_json(tmp_path / "out" / "crlf.json")
    assert {r["reason"] for r in record["removed"]} == {"CR of a CRLF line ending"}
    assert "Removed by the cleaner" not in (tmp_path / "out" / "crlf.md").read_text("utf-8")
    assert [p["zh"] for p in record["blocks"]] == ARTICLE.split()
