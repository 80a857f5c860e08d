"""`--executor ray` gives the local executor's output byte for byte: on a local Ray with two
CPUs, on a simulated two-node cluster, and translating with two actors (the tiny random Marian
model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.test_datasets import read_jsonl, seed_records, write_jsonl

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow


def shard_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("part-*"))}


@pytest.fixture
def fresh_ray():
    if ray.is_initialized():
        ray.shutdown()
    yield
    if ray.is_initialized():
        ray.shutdown()


def _both(tmp_path: Path, src: Path, *args: str | Path) -> tuple[Path, Path]:
    local, distributed = tmp_path / "local", tmp_path / "ray"
    assert run_cli(src, "-o", local, *args) == 0
    assert run_cli(src, "-o", distributed, *args, "--executor", "ray") == 0
    return local, distributed


def test_local_ray_gives_the_same_shards_and_markdown(tmp_path, fresh_ray):
    src = write_jsonl(tmp_path / "pages.jsonl", seed_records(30, size=900))
    args = ["--translator", "gloss", "-q", "--id-field", "id", "--title-field", "title"]
    local, distributed = _both(tmp_path, src, *args, "--shard-size", "8", "--jobs", "2")
    assert len(shard_bytes(local / "pages")) == 4
    assert shard_bytes(distributed / "pages") == shard_bytes(local / "pages")
    # files and Markdown output too
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, record in enumerate(seed_records(5)):
        (docs / f"d{i}.txt").write_text(record["text"], encoding="utf-8")
    local, distributed = tmp_path / "mdlocal", tmp_path / "mdray"
    assert run_cli(docs, "-o", local, "--translator", "none", "-q") == 0
    assert run_cli(docs, "-o", distributed, "--translator", "none", "-q", "--executor", "ray") == 0
    for path in sorted(local.glob("*.md")) + sorted(local.glob("*.json")):
        assert (distributed / path.name).read_bytes() == path.read_bytes(), path.name


def test_a_two_node_cluster_gives_the_same_records(tmp_path, fresh_ray):
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    cluster.add_node(num_cpus=1)
    try:
        src = write_jsonl(tmp_path / "pages.jsonl", seed_records(12, size=700))
        args = ["--translator", "none", "-q", "--id-field", "id", "--shard-size", "5"]
        local = tmp_path / "local"
        assert run_cli(src, "-o", local, *args) == 0
        distributed = tmp_path / "cluster"
        command = [src, "-o", distributed, *args, "--executor", "ray"]
        assert run_cli(*command, "--ray-address", cluster.address) == 0
        assert shard_bytes(distributed / "pages") == shard_bytes(local / "pages")
        alive = [n for n in ray.nodes() if n["Alive"]]
        assert len(alive) == 2
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_two_translation_actors_give_the_local_english(tmp_path, tiny_model, fresh_ray):
    src = write_jsonl(tmp_path / "pages.jsonl", seed_records(10, size=400))
    args = ["--translator", "marian", "--model", tiny_model, "--no-cache", "-q"]
    args += ["--id-field", "id", "--engine", "ctranslate2", "--shard-size", "5"]
    local = tmp_path / "local"
    assert run_cli(src, "-o", local, *args) == 0
    distributed = tmp_path / "ray"
    assert run_cli(src, "-o", distributed, *args, "--executor", "ray", "--actors", "2") == 0
    english = [
        [s["en"] for b in r["blocks"] for s in b["sentences"]] for r in read_jsonl(local / "pages")
    ]
    assert any(e for doc in english for e in doc)
    assert [
        [s["en"] for b in r["blocks"] for s in b["sentences"]]
        for r in read_jsonl(distributed / "pages")
    ] == english
    assert shard_bytes(distributed / "pages") == shard_bytes(local / "pages")
