"""The Ray executor (`--executor ray`): the same run on Ray Data, across the cores of a cluster.

What runs where:
- the driver (this process) finds the inputs, streams a dataset's records one shard at a
  time (the same reader, record numbers and errors as the local executor), skips finished
  shards and writes the outputs — the same writers, so the output is byte for byte the local
  executor's;
- the text stages run as Ray Data `map_batches` tasks on every CPU of the cluster, in input
  order (`preserve_order`);
- translation runs on a pool of long-lived actors, one model each (`--actors N`; with
  `--device cuda` each actor takes a GPU), fed batches of prepared documents.

The cleaner judges each document on its own (no statistic spans documents), so splitting a
shard into batches changes nothing. Ray is an optional dependency: `pip install '.[ray]'`.
"""

from __future__ import annotations

import dataclasses
import logging
import pickle
from typing import TYPE_CHECKING

from pipeline.context import Context
from pipeline.prepare import Prepared

if TYPE_CHECKING:
    from pipeline.runner import Item, RunReport

log = logging.getLogger(__name__)

PREPARE_BATCH = 8  # documents per text-stage task
TRANSLATE_BATCH = 32  # documents per call to a translation actor


class RayUnavailable(RuntimeError):
    """Ray is not installed or the cluster cannot be reached."""


def _prepare_batch(batch: dict, ctx: Context) -> dict:
    from pipeline.runner import prepare_item

    prepared = [prepare_item(pickle.loads(item), ctx) for item in batch["item"]]
    return {"prepared": [pickle.dumps(p) for p in prepared]}


class TranslationActor:
    """One translator (one model) per actor, built from the run's settings."""

    def __init__(self, ctx: Context):
        from pipeline.translate import select_translator

        self.ctx = ctx
        self.translator = select_translator(ctx)

    def describe(self) -> dict:
        from pipeline.translate import describe

        return describe(self.translator)

    def translate(self, payload: bytes) -> bytes:
        from pipeline.runner import translate_documents

        docs = pickle.loads(payload)
        return pickle.dumps(translate_documents(docs, self.translator, self.ctx))


class RayBatches:
    """Prepares and translates groups of documents on Ray; the runner's `_Batches`, for a
    cluster."""

    def __init__(self, ctx: Context, translate: bool):
        try:
            import ray
            from ray.data import DataContext
        except ImportError as exc:
            raise RayUnavailable("--executor ray needs Ray: pip install '.[ray]'") from exc
        settings = ctx.settings
        if not ray.is_initialized():
            try:
                ray.init(
                    address=settings.ray_address,
                    num_cpus=None if settings.ray_address else settings.jobs,
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
            except Exception as exc:  # ConnectionError, RuntimeError, …: say where
                where = settings.ray_address or "a local Ray"
                raise RayUnavailable(f"cannot start or join {where}: {exc}") from exc
        DataContext.get_current().execution_options.preserve_order = True
        if not log.isEnabledFor(logging.DEBUG):
            # Ray Data logs every dataset's plan and timing at INFO: -v shows them
            logging.getLogger("ray.data").setLevel(logging.WARNING)
        self.ray = ray
        self.ctx = ctx
        self.progress = None
        self.actors = []
        if translate:
            gpus = 1 if _device(ctx) == "cuda" else 0
            # No CPU reserved: an actor holding a CPU for the whole run would starve the
            # text-stage tasks on a small cluster (two actors on two CPUs: a deadlock). Stages
            # and translation take turns; a GPU actor holds its GPU.
            remote = ray.remote(num_gpus=gpus, num_cpus=0)(TranslationActor)
            self.actors = [remote.remote(ctx) for _ in range(settings.actors or 1)]

    def describe(self) -> dict | None:
        """The translator as the actors run it (their device may not be the driver's)."""
        return self.ray.get(self.actors[0].describe.remote()) if self.actors else None

    def group_size(self) -> int:
        return 256

    def process(self, items: list[Item], report: RunReport) -> list[Prepared]:
        from pipeline.runner import _sort_results

        if not items:
            return []
        ds = self.ray.data.from_items([{"item": pickle.dumps(i)} for i in items])
        ds = ds.map_batches(_prepare_batch, batch_size=PREPARE_BATCH, fn_kwargs={"ctx": self.ctx})
        results = [pickle.loads(row["prepared"]) for row in ds.take_all()]
        ready = _sort_results(results, report, self.progress)
        if self.actors and ready:
            docs = self._translate([r.doc for r in ready])
            ready = [dataclasses.replace(r, doc=d) for r, d in zip(ready, docs, strict=True)]
        return ready

    def _translate(self, docs: list) -> list:
        from ray.util import ActorPool

        batches = [docs[i : i + TRANSLATE_BATCH] for i in range(0, len(docs), TRANSLATE_BATCH)]
        pool = ActorPool(self.actors)
        done = pool.map(lambda actor, b: actor.translate.remote(pickle.dumps(b)), batches)
        return [doc for payload in done for doc in pickle.loads(payload)]

    def shutdown(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []


def _device(ctx: Context) -> str:
    if ctx.settings.device != "auto":
        return ctx.settings.device
    cluster_gpus = 0
    try:
        import ray

        cluster_gpus = int(ray.cluster_resources().get("GPU", 0))
    except Exception:  # no cluster information: no GPU claimed
        return "cpu"
    return "cuda" if cluster_gpus else "cpu"
