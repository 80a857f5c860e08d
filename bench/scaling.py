"""Scaling on this machine: the same generated JSONL dataset through the CLI with
`--translator none --format jsonl` on the local executor with one worker and with two, and on
Ray with two CPUs. Reported as ratios against the one-worker run of the same bench."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.common import ROOT
from bench.corpus_scale import generate

RECORDS = 4000


def _run(src: Path, out: Path, *extra: str) -> float:
    import subprocess
    import sys

    command = [sys.executable, "-m", "pipeline", "run", str(src), "-o", str(out)]
    command += ["--translator", "none", "--format", "jsonl", "--id-field", "id", "-q", *extra]
    t0 = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t0


def run(records: int = RECORDS) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        src = work / "pages.jsonl"
        mb = generate(src, records) / 1e6
        one = _run(src, work / "one", "--jobs", "1")
        two = _run(src, work / "two", "--jobs", "2")
        ray = _run(src, work / "ray", "--jobs", "2", "--executor", "ray")
        same = (work / "two" / "pages").is_dir() and all(
            (work / "ray" / "pages" / p.name).read_bytes() == p.read_bytes()
            for p in (work / "two" / "pages").glob("part-*")
        )
    rows = []
    for name, seconds in (
        ("local, 1 worker", one),
        ("local, 2 workers", two),
        ("ray, 2 CPUs", ray),
    ):
        rows.append(
            {
                "setup": name,
                "records": records,
                "mb": round(mb, 2),
                "seconds": round(seconds, 1),
                "mb_per_s": round(mb / seconds, 3),
                "speedup_vs_1_worker": round(one / seconds, 2),
            }
        )
    rows[-1]["same_output_as_local"] = same
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
