from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.document import Document, Source
from pipeline.runner import prepare
from pipeline.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
INPUT = ROOT / "input"
SEEDS = sorted(INPUT.glob("*.txt"))


def make_doc(text: str) -> Document:
    return Document(text, Source("test.txt", "0" * 64, "utf-8", len(text)))


def clean(text: str, settings: Settings | None = None) -> Document:
    """Run every text stage on `text`."""
    return prepare(make_doc(text), settings or Settings())


def run_cli(*args: str | Path) -> int:
    return main(["run", *map(str, args)])


@pytest.fixture(scope="session")
def seed_output(tmp_path_factory) -> Path:
    """The two seed articles run once through the CLI with --translator none."""
    out = tmp_path_factory.mktemp("seed-output")
    assert run_cli(INPUT, "-o", out, "--translator", "none", "--quiet") == 0
    return out


def load_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
