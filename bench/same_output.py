"""Same output before and after a speed-up: run the CLI of a base revision and of the work tree
on the same inputs and compare every output file byte for byte.

    python -m bench.same_output --base 1facb31           # seeds, fixtures, the 5 MB corpus
    python -m bench.same_output --base HEAD~1 --mb 1     # a smaller corpus

Inputs: the seeds and every test fixture (each its own page), and the generated bench corpus
(bench/corpus.py), each with `--translator none`; the seeds and fixtures also with the gloss
(which segments too) and with a user dictionary (`--user-dict`). The base revision is
exported with `git archive` and run from its own folder (its `pipeline` package comes first
on the path), with this environment's packages.

The JSON is compared as written with `--pretty` (the indented form every revision before
compact JSON wrote) and, written compact, parsed. The run fingerprint recorded in the JSON
(`pipeline.fingerprint`) is the one thing allowed to differ: it names the pipeline's settings,
and a new setting (`pretty`) changes it by design.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import corpus
from bench.common import ROOT

USER_DICT = "\n".join(
    [
        "量子纠缠态 100 n",
        "谷歌大脑",  # no frequency: jieba suggests one
        "机器学习系统 5",
        "research.google 10 n",
        "GPT-4 20",
        "大语言模型 50 n",
        "云原生",
    ]
)
_FINGERPRINT = re.compile(rb'("fingerprint": ?)"[0-9a-f]+"')


def _configs(tmp: Path, mb: float) -> list[tuple[str, Path, list[str]]]:
    fixtures = tmp / "in-fixtures"
    fixtures.mkdir()
    for page in corpus.fixture_pages():
        (fixtures / page.name).write_text(page.text, encoding="utf-8")
    generated = tmp / "in-corpus"
    corpus.write(generated, int(mb * 1e6))
    user_dict = tmp / "userdict.txt"
    user_dict.write_text(USER_DICT + "\n", encoding="utf-8")
    none = ["--translator", "none"]
    return [
        ("fixtures", fixtures, none),
        ("corpus", generated, none),
        ("fixtures-gloss", fixtures, ["--translator", "gloss"]),
        ("fixtures-userdict", fixtures, [*none, "--user-dict", str(user_dict)]),
    ]


def _supports_pretty(tree: Path) -> bool:
    return "--pretty" in (tree / "pipeline" / "cli.py").read_text(encoding="utf-8")


def _run(tree: Path, inputs: Path, out: Path, args: list[str], cache: Path) -> None:
    cmd = [sys.executable, "-m", "pipeline", "run", str(inputs), "-o", str(out), "--jobs", "1"]
    cmd += [*args, "-q", "--cache-dir", str(cache)]
    subprocess.run(cmd, cwd=tree, check=True, capture_output=True)


def _files(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
    }


def _data(raw: bytes) -> object:
    """Parsed JSON without the fingerprint (`pretty` is a layout setting: part of it)."""
    data = json.loads(raw)
    data.get("pipeline", {}).pop("fingerprint", None)
    return data


def _first_difference(a: object, b: object, path: str = "") -> str:
    """Where two parsed JSON values first differ, and how."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for key in a:
            if a[key] != b[key]:
                return _first_difference(a[key], b[key], f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    old, new = (json.dumps(v, ensure_ascii=False)[:200] for v in (a, b))
    return f": at {path}: {old} != {new}"


def compare(base: Path, new: Path, compact: Path | None = None) -> list[str]:
    """What differs between two output folders (empty: identical but for the fingerprint);
    `compact`, the work tree's compact output, must parse to the same JSON as `new`."""
    problems = []
    a, b = _files(base), _files(new)
    if a.keys() != b.keys():
        problems.append(f"different files: {sorted(a.keys() ^ b.keys())}")
    for name in sorted(a.keys() & b.keys()):
        x, y = a[name], b[name]
        if name.endswith(".json"):
            x, y = _FINGERPRINT.sub(rb'\1"-"', x), _FINGERPRINT.sub(rb'\1"-"', y)
        elif name.endswith("index.md") and x != y:
            # Before 1facb31's successor, ties among "removed from the most documents" came in
            # a set's order (the hash seed's): compare the rows, not their order, for those.
            x, y = sorted(x.splitlines()), sorted(y.splitlines())
        if x != y:
            where = (
                _first_difference(json.loads(x), json.loads(y)) if name.endswith(".json") else ""
            )
            problems.append(f"{name} differs{where}")
    if compact is not None:
        c = _files(compact)
        for name in sorted(n for n in b if n.endswith(".json")):
            if _data(c[name]) != _data(b[name]):
                problems.append(f"{name}: compact JSON parses to other data")
            elif c[name] == b[name]:
                problems.append(f"{name}: compact JSON is not compact")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="1facb31", help="revision to compare with")
    parser.add_argument("--mb", type=float, default=5.0, help="size of the generated corpus")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="same-output-") as tmp_name:
        tmp = Path(tmp_name)
        base_tree = tmp / "base"
        base_tree.mkdir()
        archive = subprocess.run(
            ["git", "archive", args.base], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(base_tree)], input=archive, check=True)
        failures = 0
        for name, inputs, extra in _configs(tmp, args.mb):
            out = tmp / "out" / name
            base_args = [*extra, "--pretty"] if _supports_pretty(base_tree) else extra
            _run(base_tree, inputs, out / "base", base_args, tmp / "cache-base")
            new_args = [*extra, "--pretty"] if _supports_pretty(ROOT) else extra
            _run(ROOT, inputs, out / "new", new_args, tmp / "cache-new")
            compact = None
            if _supports_pretty(ROOT):
                compact = out / "compact"
                _run(ROOT, inputs, compact, extra, tmp / "cache-new")
            problems = compare(out / "base", out / "new", compact)
            count = len(_files(out / "new"))
            print(f"{name}: {count} files, " + ("identical" if not problems else "DIFFERENT"))
            for p in problems[:20]:
                print(f"  {p}")
            failures += bool(problems)
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
