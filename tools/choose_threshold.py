#!/usr/bin/env python3
"""Choose the classifier's operating point on labeled pages the model never saw.

usage: python tools/choose_threshold.py --splits holdout-ay,holdout-az [--max-loss 0.006]
                                        [--from 0.95 --to 0.80 --step 0.01] [--write]

For each threshold from `--from` down to `--to` it runs the whole cleaner on the splits
(tools/eval_cleaner.py with `--junk-threshold`) and pools the scorer's counts: junk lines
removed and content lines lost. The chosen threshold is the lowest at which the pooled content
loss stays at or below `--max-loss`, the sweep stopping at the first that exceeds it. `--write`
stores it as the model's `threshold` in pipeline/data/line_model.json.

Why not the training split: the model was fitted there, so its loss on those pages says little
about a new site; its out-of-fold loss on them (what tools/train_line_model.py uses) proved
pessimistic, about five times the loss on the test split and on fresh sets (session 15). Spent
hold-out sets are the right pages: scored once for a claim, never trained on.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "pipeline" / "data" / "line_model.json"
COUNTS = re.compile(r"^(junk_line_recall|content_line_loss)=\S+ \((\d+)/(\d+)\)", re.M)


def pooled(splits: str, threshold: float) -> dict[str, tuple[int, int]]:
    """(hits, total) of junk removed and content lost, summed over the splits."""
    command = [sys.executable, str(ROOT / "tools" / "eval_cleaner.py"), "--splits", splits,
               "--junk-threshold", f"{threshold:.4f}"]  # fmt: skip
    report = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    sums: dict[str, list[int]] = {"junk_line_recall": [0, 0], "content_line_loss": [0, 0]}
    for name, hits, total in COUNTS.findall(report):
        sums[name][0] += int(hits)
        sums[name][1] += int(total)
    return {"junk": tuple(sums["junk_line_recall"]), "lost": tuple(sums["content_line_loss"])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", required=True, help="e.g. holdout-ay,holdout-az")
    parser.add_argument("--max-loss", type=float, default=0.006)
    parser.add_argument("--from", dest="start", type=float, default=0.95)
    parser.add_argument("--to", dest="stop", type=float, default=0.80)
    parser.add_argument("--step", type=float, default=0.01)
    parser.add_argument("--write", action="store_true", help="store the chosen threshold")
    args = parser.parse_args()
    chosen, best = None, {}
    steps = int(round((args.start - args.stop) / args.step))
    for k in range(steps + 1):
        threshold = round(args.start - k * args.step, 4)
        figures = pooled(args.splits, threshold)
        (junk, junk_total), (lost, content_total) = figures["junk"], figures["lost"]
        loss = lost / max(content_total, 1)
        print(f"{threshold:.2f}  junk {junk}/{junk_total} = {junk / max(junk_total, 1):.1%}  "
              f"content lost {lost}/{content_total} = {loss:.2%}", flush=True)  # fmt: skip
        if loss > args.max_loss:
            break
        chosen, best = threshold, figures
    if chosen is None:
        print(f"no threshold from {args.start} keeps the loss at or below {args.max_loss:.2%}")
        return 1
    print(f"chosen: {chosen:.2f}")
    if args.write:
        model = json.loads(MODEL.read_text(encoding="utf-8"))
        metrics = model.setdefault("metrics", {})
        metrics.setdefault("threshold_from_training", model["threshold"])
        metrics["threshold_choice"] = {
            "splits": args.splits,
            "max_loss": args.max_loss,
            "junk": list(best["junk"]),
            "content_lost": list(best["lost"]),
        }
        model["threshold"] = chosen
        MODEL.write_text(json.dumps(model, ensure_ascii=False, separators=(",", ":")) + "\n",
                         encoding="utf-8")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
