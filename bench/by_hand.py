"""The by-hand baseline: what a person cleaning these pages would write in an afternoon.

opencc-python-reimplemented (t2s), the original jieba, and one regular expression for pinyin
readings; one JSON file per input. Run as its own process (`python -m bench.by_hand IN OUT`),
so that the whole-process benchmark times it exactly like the pipeline's CLI.

opencc-python-reimplemented installs a package named `opencc`, the name of the official
OpenCC the pipeline uses, and overwrites its `__init__.py`: it cannot share the project's
environment. `make bench` installs it into `.venv/byhand` (pip --target), put first on the
path here only.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

BY_HAND_SITE = Path(__file__).resolve().parent.parent / ".venv" / "byhand"
PINYIN = re.compile(r"\([a-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü]+\)")


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(BY_HAND_SITE))
    import jieba
    from opencc import OpenCC

    from bench.common import peak_rss_mb

    jieba.setLogLevel(60)
    src, out = Path(argv[0]), Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    cc = OpenCC("t2s")
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".txt", ".md"):
            continue
        text = cc.convert(PINYIN.sub("", path.read_text(encoding="utf-8")))
        paragraphs = [line.strip() for line in text.splitlines() if line.strip()]
        doc = {
            "source": path.name,
            "paragraphs": [{"zh": p, "tokens": jieba.lcut(p)} for p in paragraphs],
        }
        with open(out / f"{path.stem}.json", "w", encoding="utf-8") as fh:
            json.dump(doc, fh, ensure_ascii=False)
    print(peak_rss_mb())


if __name__ == "__main__":
    main(sys.argv[1:])
