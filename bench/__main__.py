"""`python -m bench`: print one table of throughput figures and write bench/results.json."""

from __future__ import annotations

import argparse
import json

from bench import text_stages
from bench.common import ROOT, peak_rss_mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=5.0, help="size of the replicated corpus")
    args = parser.parse_args()

    rows = text_stages.run(int(args.mb * 1e6))
    print(f"{'stage':28} {'seconds':>8} {'chars/s':>12} {'MB/s':>7}")
    for r in rows:
        print(f"{r['stage']:28} {r['seconds']:8.2f} {r['chars_per_s']:12,} {r['mb_per_s']:7.2f}")
    rss = peak_rss_mb()
    print(f"peak RSS: {rss:.0f} MB")
    results = {"text_stages": rows, "peak_rss_mb": round(rss)}
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
