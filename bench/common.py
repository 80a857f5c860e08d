"""Shared benchmark helpers: the replicated sample corpus, timing, memory."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
# The CLI in a fresh interpreter (`python -c CLI_CHILD run …`) that prints its own peak RSS last:
# ru_maxrss of a child would include the benchmark's (large) process, whose memory a vfork'd
# child inherits until exec.
CLI_CHILD = (
    "import sys\n"
    "from bench.common import peak_rss_mb\n"
    "from pipeline.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(peak_rss_mb())\n"
    "sys.exit(code)\n"
)
T = TypeVar("T")


def sample_text(target_bytes: int = 5_000_000) -> str:
    """The seed articles, concatenated and replicated to about `target_bytes` of UTF-8."""
    seeds = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "input").glob("*.txt")))
    copies = max(1, round(target_bytes / len(seeds.encode("utf-8"))))
    return "\n".join([seeds] * copies)


def timed(fn: Callable[[], T], repeat: int = 1) -> tuple[float, T]:
    """Best wall time of `repeat` runs, and the last result."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def peak_rss_mb() -> int:
    """This process's own peak RSS (VmHWM): unlike ru_maxrss, not inherited across fork."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    return 0
