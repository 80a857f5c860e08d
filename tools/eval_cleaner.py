#!/usr/bin/env python3
"""Score the cleaner on the labeled real pages (corpus/), split by split, with the scorer the
hidden sets use (../shared/eval/score_clean.py).

usage: python tools/eval_cleaner.py [--splits train,dev,test,holdout] [--keep STAGE ...]
                                    [--groups abcd,fg] [--scorer PATH] [--show-misses]
                                    [--lost-stages] [--junk-threshold P]

The page texts live in corpus/pages/ (git-ignored; corpus/DATA_CARD.md says how to fetch them
again); labels in corpus/labels/*.jsonl; the split in corpus/splits.json. For each split this
builds corpus/build/<split>/ (links to the pages + the split's labels), runs
`python -m pipeline run` on it with `--translator none`, and prints the scorer's summary.
The split `holdout` is corpus/holdout/*.jsonl: pages kept for scoring only (never tuned on,
never trained on; corpus/holdout/README.md); `holdout-e`, `holdout-m` score one hold-out
set each. `--groups abcd,fg` also scores each split's pages
of the label sets a-d and f-g apart (same run), e.g. to report pages added later separately.
The scorer's list of missed lines is printed for train/dev/test only: a hold-out split shows
its figures alone unless `--show-misses` (a set whose misses were read is no longer fresh).
`--lost-stages` prints, for every split, which stage and reason took each lost content line,
counted, without the lines' text (safe on a hold-out set).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
DEFAULT_SCORER = ROOT.parent / "shared" / "eval" / "score_clean.py"


def labels(folder: str = "labels", sets: dict[str, str] | None = None) -> dict[str, dict]:
    """doc -> label record; `sets`, when given, receives doc -> label set (the file's stem)."""
    out = {}
    for path in sorted((CORPUS / folder).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                out[record["doc"]] = record
                if sets is not None:
                    sets[record["doc"]] = path.stem
    return out


def score(pages: Path, out: Path, scorer: Path) -> str:
    result = subprocess.run(
        [sys.executable, str(scorer), str(pages), str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.rstrip()


_LOST = re.compile(r"^(\S+):(\d+) content removed")
_GRAMS = re.compile(r'"[^"]*"')
_GRAM_MASK = '"…"'


def _folded(reason: str) -> str:
    return _GRAMS.sub(_GRAM_MASK, re.sub(r"[0-9.]+", "#", reason))


def lost_stages(pages: Path, out: Path, scorer: Path) -> Counter:
    """(stage: reason, …) -> number of content lines the cleaner removed; numbers in reasons
    (`junk line (0.87)`) folded to `#` so that calls of one kind count together, and the text
    model's quoted grams (`text "登录"`) blanked: they are the line's own words."""
    result = subprocess.run(
        [sys.executable, str(scorer), str(pages), str(out), "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    counts: Counter = Counter()
    for miss in json.loads(result.stdout)["misses"]:
        found = _LOST.match(miss)
        if not found:
            continue
        doc, number = found.group(1), int(found.group(2))
        page_lines = (pages / doc).read_text(encoding="utf-8").split("\n")
        start = sum(len(line) + 1 for line in page_lines[: number - 1])
        end = start + len(page_lines[number - 1])
        record = json.loads((out / (Path(doc).stem + ".json")).read_text(encoding="utf-8"))
        why = sorted({
            f"{r['stage']}: {_folded(r.get('reason', ''))}"
            for r in record["removed"]
            if r["stage"] != "pinyin" and r["start"] < end and r["end"] > start
        })  # fmt: skip
        counts[" + ".join(why)] += 1
    return counts


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
    parser.add_argument("--junk-threshold", type=float, metavar="P",
                        help="the classifier's threshold (default: the model's own)")  # fmt: skip
    parser.add_argument("--scorer", type=Path, default=DEFAULT_SCORER)
    parser.add_argument("--groups", default="", help="label sets scored apart, e.g. abcd,fg")
    parser.add_argument("--show-misses", action="store_true",
                        help="list the missed lines of hold-out splits too (they are for scoring "
                             "only: reading them spends the set)")  # fmt: skip
    parser.add_argument("--lost-stages", action="store_true",
                        help="count the stage and reason of each lost content line, "
                             "without its text")  # fmt: skip
    args = parser.parse_args()
    splits = json.loads((CORPUS / "splits.json").read_text(encoding="utf-8"))
    hold_sets: dict[str, str] = {}
    holdout = labels("holdout", sets=hold_sets)
    splits["holdout"] = sorted(holdout)
    for stem in sorted(set(hold_sets.values())):  # holdout-e, holdout-m: one set each
        splits[f"holdout-{stem}"] = sorted(d for d, s in hold_sets.items() if s == stem)
    set_of: dict[str, str] = {}
    all_labels = {**labels(sets=set_of), **holdout}
    for name in args.splits.split(","):
        folder = build_split(name, splits[name], all_labels)
        out = folder / "out"
        keep = [x for k in args.keep for x in ("--keep", k)]
        if args.junk_threshold is not None:
            keep += ["--junk-threshold", str(args.junk_threshold)]
        # the page files only: labels.jsonl beside them is the scorer's, not a dataset to run
        pages = str(folder / "pages" / "*.txt")
        command = [sys.executable, "-m", "pipeline", "run", pages, "-o", str(out)]
        # a page the pipeline fails on must score as missing, never as an earlier run's output
        shutil.rmtree(out, ignore_errors=True)
        run = subprocess.run(
            [*command, "--translator", "none", "-q", "--force", *keep], cwd=ROOT, check=False
        )
        if run.returncode:
            print(f"warning: the pipeline failed on some pages of {name} (exit {run.returncode})",
                  file=sys.stderr)  # fmt: skip
        print(f"== {name} ({len(splits[name])} pages)")
        figures = score(folder / "pages", out, args.scorer)
        if name.startswith("holdout") and not args.show_misses:  # the scorer lists misses indented
            figures = "\n".join(x for x in figures.split("\n") if not x.startswith("  "))
        print(figures)
        if args.lost_stages:
            for why, n in lost_stages(folder / "pages", out, args.scorer).most_common():
                print(f"  lost {n}: {why}")
        for group in filter(None, args.groups.split(",")):
            docs = [d for d in splits[name] if d in set_of and set_of[d] in group]
            if docs:  # the same output, scored on the group's pages only
                sub = build_split(f"{name}-{group}", docs, all_labels)
                print(f"== {name}, sets {group} ({len(docs)} pages)")
                print(score(sub / "pages", out, args.scorer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
