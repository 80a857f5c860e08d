"""`python -m bench`: print throughput tables and write bench/results.json."""

from __future__ import annotations

import argparse
import json

from bench import big_inputs, text_stages, translation
from bench.common import ROOT, peak_rss_mb


def _table(rows: list[dict]) -> str:
    keys = list(rows[0])
    widths = {k: max(len(k), *(len(str(r[k])) for r in rows)) for k in keys}
    lines = ["  ".join(k.ljust(widths[k]) for k in keys)]
    lines += ["  ".join(str(r[k]).ljust(widths[k]) for k in keys) for r in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=5.0, help="size of the replicated corpus")
    parser.add_argument("--sentences", type=int, default=128, help="sentences to translate")
    parser.add_argument("--skip-translation", action="store_true")
    parser.add_argument("--big", action="store_true", help="also time a 50 MB file (minutes)")
    args = parser.parse_args()

    results: dict = {}
    results["text_stages"] = text_stages.run(int(args.mb * 1e6))
    print(_table(results["text_stages"]), end="\n\n", flush=True)
    if not args.skip_translation:
        results["translation"] = translation.run(args.sentences)
        print(_table(results["translation"]["throughput"]), end="\n\n")
        waste = results["translation"]["padding_waste"]
        print(f"padding waste of length-sorted, token-budget batches: {waste:.1%}")
        print(_table(results["translation"]["startup"]), end="\n\n")
    if args.big:
        results["big_inputs"] = big_inputs.run()
        print(_table(results["big_inputs"]), end="\n\n")
    results["peak_rss_mb"] = round(peak_rss_mb())
    print(f"peak RSS: {results['peak_rss_mb']} MB")
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
