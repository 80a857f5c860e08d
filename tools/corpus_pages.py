#!/usr/bin/env python3
"""Bring the labeled pages back onto a new machine: corpus/pages/ is git-ignored, so a fresh
checkout has the labels but not the texts (corpus/DATA_CARD.md, "Re-materializing the pages").

The texts come from the `search` tool's `pages` corpus, which only an agent can call; this tool
does the rest:

    python tools/corpus_pages.py plan [--size 26] [--out DIR]
        one manifest per chunk of queries (JSON lines: `query` and its `pages`: doc, url,
        number of lines), the pages of labels/ and of the fresh hold-out sets, missing ones only;
        each query is searched once, for every page that shares it
    python tools/corpus_pages.py save DOC < excerpt.json
        stdin: the result's `excerpt` as the JSON string literal the search result shows
        (quotes and escapes included); writes corpus/pages/DOC byte for byte and checks it
    python tools/corpus_pages.py check [DOC ...]
        every page present (or those named): its line count against its labels, and for
        labeled pages of the splits the feature values of every labeled line against
        corpus/features.tsv (all but the run-dependent `repeat_batch`), which catches a
        character slipped in copying or an excerpt the index has changed since

A page whose check fails differs from the page that was labeled: fetch it again, or relabel it;
never shift labels to fit.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from eval_cleaner import CORPUS, labels
from train_line_model import lm, stage_view

PAGES = CORPUS / "pages"
# hold-out sets not worth a look-up on a new machine. None since session 16: the spent sets
# choose the classifier's operating point (tools/choose_threshold.py), the fresh ones score claims.
SPENT: set[str] = set()
TOLERANCE = 0.002  # features.tsv keeps three decimals
_COMPARED = [c for c in lm.FEATURE_NAMES if c != "repeat_batch"]  # the rest is per page


def _records() -> dict[str, dict]:
    """doc -> label record, for the pages of the splits and of the hold-out sets not spent."""
    held: dict[str, str] = {}
    records = {**labels("labels"), **labels("holdout", held)}
    return {doc: r for doc, r in records.items() if held.get(doc) not in SPENT}


def plan(size: int, out: Path) -> None:
    groups: dict[str, list[dict]] = {}
    for doc, r in _records().items():
        if not (PAGES / doc).exists():
            page = {"doc": doc, "url": r["url"], "lines": len(r["lines"])}
            groups.setdefault(r["query"], []).append(page)
    queries = list(groups.items())
    out.mkdir(parents=True, exist_ok=True)
    for k in range(0, len(queries), size):
        with open(out / f"chunk{k // size:02d}.jsonl", "w", encoding="utf-8") as fh:
            for query, pages in queries[k : k + size]:
                fh.write(json.dumps({"query": query, "pages": pages}, ensure_ascii=False) + "\n")
    n = sum(len(p) for _, p in queries)
    print(f"{n} page(s) missing, {len(queries)} look-up(s), {-(-len(queries) // size)} chunk(s)")


def save(doc: str) -> int:
    text = json.loads(sys.stdin.read().strip())
    if not isinstance(text, str):
        sys.exit("stdin must be one JSON string literal")
    PAGES.mkdir(parents=True, exist_ok=True)
    (PAGES / doc).write_text(text, encoding="utf-8", newline="")
    return check([doc])


def _feature_rows() -> tuple[list[str], dict[str, dict[int, list[str]]]]:
    rows: dict[str, dict[int, list[str]]] = {}
    with open(CORPUS / "features.tsv", encoding="utf-8") as fh:
        reader = csv.reader(fh, delimiter="\t")
        head = next(reader)
        for row in reader:
            rows.setdefault(row[0], {})[int(row[1])] = row
    return head, rows


def _problem(doc: str, record: dict, head: list[str], rows: dict) -> str | None:
    """What differs from the labeled page, or None."""
    path = PAGES / doc
    if not path.exists():
        return "missing"
    text = path.read_text(encoding="utf-8")
    n, want = len(text.split("\n")), len(record["lines"])
    if n != want:
        return f"{n} lines, the labels have {want}"
    if doc not in rows:
        return None  # a hold-out page: no feature rows
    F = lm.line_features(stage_view(text).split("\n"))
    columns = [(lm.FEATURE_NAMES.index(c), head.index(c), c) for c in _COMPARED]
    for number, row in sorted(rows[doc].items()):
        for at, col, name in columns:
            got, had = F[number - 1, at], float(row[col])
            if abs(got - had) > TOLERANCE:
                return f"line {number}: {name} {got:.3f}, features.tsv {had:.3f}"
    return None


def check(docs: list[str]) -> int:
    records = _records()
    head, rows = _feature_rows()
    names = docs or sorted(d for d in records if (PAGES / d).exists())
    bad = 0
    for doc in names:
        problem = _problem(doc, records[doc], head, rows) if doc in records else "no labels"
        bad += problem is not None
        print(f"{doc}\t{problem or 'ok'}")
    print(f"{len(names) - bad} ok, {bad} differ", file=sys.stderr)
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan", help="manifests of the look-ups for the missing pages")
    p.add_argument("--size", type=int, default=26, help="queries per chunk (26)")
    p.add_argument("--out", type=Path, default=CORPUS / "build" / "rematerialize")
    s = sub.add_parser("save", help="write one page from its excerpt's JSON string on stdin")
    s.add_argument("doc")
    c = sub.add_parser("check", help="compare pages with their labels and feature rows")
    c.add_argument("docs", nargs="*")
    args = ap.parse_args()
    if args.command == "plan":
        plan(args.size, args.out)
        return 0
    if args.command == "save":
        return save(args.doc)
    return check(args.docs)


if __name__ == "__main__":
    raise SystemExit(main())
