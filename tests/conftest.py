from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

# No test reads the user's caches or reaches a hub. Set before anything imports
# huggingface_hub, which reads these once.
_HOME = Path(tempfile.mkdtemp(prefix="pipeline-tests-"))
os.environ["XDG_CACHE_HOME"] = str(_HOME / "cache")
os.environ["HF_HOME"] = str(_HOME / "hf")
os.environ["HF_HUB_OFFLINE"] = "1"

import pytest
from hypothesis import settings as hypothesis_settings

from pipeline.cli import main
from pipeline.context import Context
from pipeline.document import Document, Source
from pipeline.prepare import prepare
from pipeline.settings import Settings

# `make test`: a few hundred examples per property; `make fuzz`: HYPOTHESIS_PROFILE=fuzz.
hypothesis_settings.register_profile("default", max_examples=200, deadline=None)
hypothesis_settings.register_profile("fuzz", max_examples=10_000, deadline=None)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parent.parent
INPUT = ROOT / "input"
SEEDS = sorted(INPUT.glob("*.txt"))


def make_doc(text: str) -> Document:
    return Document(text, Source("test.txt", "0" * 64, "utf-8", len(text)))


def clean(text: str, settings: Settings | None = None) -> Document:
    """Run every text stage on `text`."""
    return prepare(make_doc(text), Context.load(settings or Settings()))


def assert_edits_consistent(text: str, doc: Document) -> None:
    """Edits lie inside the text, in order, never overlap, record the original they cover,
    and everything outside them survives, in order (repairs give their replacement)."""
    assert doc.original == text
    prev_end = 0
    kept = []
    for edit in doc.edits:
        assert prev_end <= edit.start < edit.end <= len(text)
        assert edit.text == text[edit.start : edit.end]
        kept.append(text[prev_end : edit.start] + edit.replacement)
        prev_end = edit.end
    kept.append(text[prev_end:])
    assert doc.view.text == "".join(kept)


def run_cli(*args: str | Path) -> int:
    return main(["run", *map(str, args)])


def seed_sentences() -> list[str]:
    return [
        line for p in SEEDS for line in p.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A random-weight Marian model with a sentencepiece model trained here on the seeds."""
    from bench.random_model import build_random_marian

    return build_random_marian(
        tmp_path_factory.mktemp("model") / "tiny-marian",
        seed_sentences(),
        generation={"min_new_tokens": 2},
    )


@pytest.fixture(scope="session")
def seed_output(tmp_path_factory) -> Path:
    """The two seed articles run once through the CLI with --translator none."""
    out = tmp_path_factory.mktemp("seed-output")
    assert run_cli(INPUT, "-o", out, "--translator", "none", "--quiet") == 0
    return out


def load_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
