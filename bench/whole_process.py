"""The cleaning pass as a user runs it: the whole CLI process (`--translator none --jobs 1`)
against the by-hand script (bench/by_hand.py) on the same ~5 MB of generated pages
(bench/corpus.py), alternating, in the same run.

Each is a fresh process timed from outside (start-up, imports, dictionary loading, reading and
writing every file included). Reported: wall seconds, CPU seconds (user + system, so "per
core"), MB/s of input, peak RSS (each process reports its own), and the ratio by-hand / pipeline
of the best of each, with every repetition's own ratio beside it (the machine is shared: a
ratio from one pair of neighbouring runs is what to trust, not an absolute time).
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import corpus
from bench.by_hand import BY_HAND_SITE
from bench.common import CLI_CHILD, ROOT


def _timed(cmd: list[str]) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": int(result.stdout.split()[-1])}


def _summary(name: str, runs: list[dict], mb: float) -> dict:
    best = min(runs, key=lambda r: r["wall_s"])
    return {
        "name": name,
        "wall_s": round(best["wall_s"], 2),
        "cpu_s": round(best["cpu_s"], 2),
        "mb_per_s": round(mb / best["wall_s"], 2),
        "mb_per_cpu_s": round(mb / best["cpu_s"], 2),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
        "walls": [round(r["wall_s"], 2) for r in runs],
    }


def run(target_bytes: int = 5_000_000, repeat: int = 3) -> dict:
    if not (BY_HAND_SITE / "opencc").is_dir():
        raise SystemExit(
            f"the by-hand baseline needs opencc-python-reimplemented in {BY_HAND_SITE}: "
            "`make bench` installs it (pip install --target)"
        )
    with tempfile.TemporaryDirectory(prefix="bench-whole-") as tmp_name:
        tmp = Path(tmp_name)
        inputs = tmp / "in"
        size = corpus.write(inputs, target_bytes)
        mb = size / 1e6
        pipeline, by_hand = [], []
        for i in range(repeat):
            out = tmp / f"out-{i}"
            pipeline.append(
                _timed(
                    [sys.executable, "-c", CLI_CHILD, "run", str(inputs), "-o", str(out)]
                    + ["--translator", "none", "--jobs", "1", "-q"]
                )
            )
            by_hand.append(_timed([sys.executable, "-m", "bench.by_hand", str(inputs), str(out)]))
        ours = _summary("pipeline run --translator none --jobs 1", pipeline, mb)
        theirs = _summary("by-hand (opencc-python-reimplemented, jieba, a regex)", by_hand, mb)
        return {
            "mb": round(mb, 2),
            "documents": len(list(inputs.iterdir())),
            "pipeline": ours,
            "by_hand": theirs,
            "vs_by_hand": round(theirs["wall_s"] / ours["wall_s"], 2),
            "vs_by_hand_cpu": round(theirs["cpu_s"] / ours["cpu_s"], 2),
            "vs_by_hand_each": [
                round(h["wall_s"] / p["wall_s"], 2) for p, h in zip(pipeline, by_hand, strict=True)
            ],
        }
