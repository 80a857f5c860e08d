"""Corpus scale: a generated JSONL dataset (default 200,000 records) through the real CLI with
`--format parquet --translator none`, on the local executor and on Ray, then a `kill -9` in the
middle of a run and a resume.

    python -m bench.corpus_scale [--records N] [--jobs 2] [--keep DIR]

Reports wall time, MB/s, the driver's peak RSS, whether the Ray output equals the local output
byte for byte, and which shards the resumed run redid (it must redo none that had finished).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import CLI_CHILD, ROOT

_NOISE = [
    "首页 | 新闻 | 体育 | 财经 | 登录 | 注册",
    "返回搜狐，查看更多",
    "责任编辑：王小明",
    "haidaobuyujiuyoubanmianfeixiazai【bangpaiduizhanwei】",
    "image_2023_0412.jpg",
    "分享到：微信 微博 QQ空间",
    "上一篇：谷歌发布年度总结  下一篇：人工智能的未来",
]


def generate(path: Path, records: int, seed: int = 0) -> int:
    """Records cut from the seeds and fixtures, with chrome lines, pinyin readings and titles
    sprinkled in; returns the file's size in bytes."""
    sources = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "input").glob("*.txt"))]
    sources += [
        p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "tests" / "fixtures").glob("*.txt"))
        if p.stat().st_size > 200
    ]
    lines = [line for text in sources for line in text.split("\n") if line.strip()]
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for i in range(records):
            start = rng.randrange(len(lines))
            body = lines[start : start + rng.randint(1, 4)]
            if rng.random() < 0.3:
                body.insert(rng.randrange(len(body) + 1), rng.choice(_NOISE))
            record = {"id": f"r{i:07d}", "text": "\n".join(body)}
            if rng.random() < 0.2:
                record["title"] = re.sub(r"[。！？].*", "", body[0])[:30]
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path.stat().st_size


def _command(src: Path, out: Path, jobs: int, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-c",
        CLI_CHILD,
        "run",
        str(src),
        "-o",
        str(out),
        "--format",
        "parquet",
        "--translator",
        "none",
        "--id-field",
        "id",
        "--title-field",
        "title",
        "--shard-size",
        "5000",
        "--jobs",
        str(jobs),
        "-q",
        *extra,
    ]


def _timed_run(command: list[str]) -> tuple[float, int]:
    t0 = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, int(result.stdout.strip().splitlines()[-1])


def _shards(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("part-*.parquet"))}


def kill_and_resume(src: Path, out: Path, jobs: int, reference: dict[str, bytes]) -> dict:
    manifest = out / src.stem / "_manifest.json"
    proc = subprocess.Popen(_command(src, out, jobs), cwd=ROOT, start_new_session=True)
    while proc.poll() is None:
        if manifest.is_file() and len(json.loads(manifest.read_text())["shards"]) >= 3:
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = json.loads(manifest.read_text())["shards"]
    stamps = {name: (manifest.parent / name).stat().st_mtime_ns for name in finished}
    _timed_run(_command(src, out, jobs))
    redone = [n for n, t in stamps.items() if (manifest.parent / n).stat().st_mtime_ns != t]
    return {
        "finished_before_kill": len(finished),
        "redone_after_resume": len(redone),
        "same_as_uninterrupted": _shards(manifest.parent) == reference,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="keep the data and outputs here")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="corpus_scale."))
    work.mkdir(parents=True, exist_ok=True)
    src = work / "pages.jsonl"
    size = generate(src, args.records)
    mb = size / 1e6
    results: dict = {"records": args.records, "mb": round(mb, 1), "jobs": args.jobs}
    for name, extra in (("local", ()), ("ray", ("--executor", "ray"))):
        seconds, rss = _timed_run(_command(src, work / name, args.jobs, *extra))
        results[name] = {
            "seconds": round(seconds, 1),
            "mb_per_s": round(mb / seconds, 2),
            "driver_peak_rss_mb": rss,
        }
        print(name, results[name], flush=True)
    reference = _shards(work / "local" / "pages")
    results["ray_equals_local"] = _shards(work / "ray" / "pages") == reference
    results["resume"] = kill_and_resume(src, work / "killed", args.jobs, reference)
    results["ray_overhead"] = round(results["ray"]["seconds"] / results["local"]["seconds"], 2)
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
