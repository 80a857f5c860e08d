#!/usr/bin/env python3
"""Score the cleaner on the labeled real pages (corpus/), split by split, with the scorer the
hidden sets use (../shared/eval/score_clean.py).

usage: python tools/eval_cleaner.py [--splits train,dev,test,holdout] [--keep STAGE ...]
                                    [--scorer PATH]

The page texts live in corpus/pages/ (git-ignored; corpus/DATA_CARD.md says how to fetch them
again); labels in corpus/labels/*.jsonl; the split in corpus/splits.json. For each split this
builds corpus/build/<split>/ (links to the pages + the split's labels), runs
`python -m pipeline run` on it with `--translator none`, and prints the scorer's summary.
The split `holdout` is corpus/holdout/*.jsonl: pages kept for scoring only (never tuned on,
never trained on; corpus/holdout/README.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
DEFAULT_SCORER = ROOT.parent / "shared" / "eval" / "score_clean.py"


def labels(folder: str = "labels") -> dict[str, dict]:
    out = {}
    for path in sorted((CORPUS / folder).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                out[record["doc"]] = record
    return out


def build_split(name: str, docs: list[str], all_labels: dict[str, dict]) -> Path:
    folder = CORPUS / "build" / name
    pages = folder / "pages"
    pages.mkdir(parents=True, exist_ok=True)
    for old in pages.iterdir():
        old.unlink()
    for doc in docs:
        (pages / doc).symlink_to(CORPUS / "pages" / doc)
    (pages / "labels.jsonl").write_text(
        "".join(json.dumps(all_labels[d], ensure_ascii=False) + "\n" for d in docs),
        encoding="utf-8",
    )
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="train,dev")
    parser.add_argument("--keep", action="append", default=[])
    parser.add_argument("--scorer", type=Path, default=DEFAULT_SCORER)
    args = parser.parse_args()
    splits = json.loads((CORPUS / "splits.json").read_text(encoding="utf-8"))
    holdout = labels("holdout")
    splits["holdout"] = sorted(holdout)
    all_labels = {**labels(), **holdout}
    for name in args.splits.split(","):
        folder = build_split(name, splits[name], all_labels)
        out = folder / "out"
        keep = [x for k in args.keep for x in ("--keep", k)]
        command = [sys.executable, "-m", "pipeline", "run", str(folder / "pages"), "-o", str(out)]
        subprocess.run(
            [*command, "--translator", "none", "-q", "--force", *keep], cwd=ROOT, check=False
        )
        result = subprocess.run(
            [sys.executable, str(args.scorer), str(folder / "pages"), str(out)],
            capture_output=True,
            text=True,
            check=True,
        )
        print(f"== {name} ({len(splits[name])} pages)")
        print(result.stdout.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
