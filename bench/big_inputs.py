"""Big inputs in bounded memory: a ~50 MB file and a ~5 MB single line through the real CLI
(`--translator none`), each in its own process, reporting wall time and peak RSS."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import CLI_CHILD, ROOT, sample_text


def _run(path: Path, out: Path) -> dict:
    t0 = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", CLI_CHILD, "run", str(path), "-o", str(out)]
        + ["--translator", "none", "--jobs", "1", "-q"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    mb = path.stat().st_size / 1e6
    return {
        "input": path.name,
        "mb": round(mb, 1),
        "seconds": round(seconds, 1),
        "mb_per_s": round(mb / seconds, 2),
        "peak_rss_mb": int(result.stdout.strip().splitlines()[-1]),
    }


def run() -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        line = tmp / "single-line-5mb.txt"
        line.write_text(sample_text(5_000_000).replace("\n", " "), encoding="utf-8")
        big = tmp / "file-50mb.txt"
        big.write_text(sample_text(50_000_000), encoding="utf-8")
        return [_run(line, tmp / "out"), _run(big, tmp / "out")]
