"""The registries: stages and translators register themselves by name, and everything that lists
them — the `--keep` and `--translator` choices, the Markdown audit, the JSON Schema's stage enum
(checked by a test), the docs — asks here instead of keeping its own list.

Adding a stage is one new module in `pipeline/stages/` that decorates its function with
`@stage(...)`; adding a translator is one module in `pipeline/translate/` that decorates a factory
with `@translator(...)`. Modules of both packages are imported on first use of the registry.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.context import Context
    from pipeline.document import Document

StageFunction = Callable[["Document", "Context"], "Document"]


@dataclass(frozen=True)
class StageSpec:
    name: str
    run: StageFunction
    order: int  # position in the pipeline (cleaning stages come before split)
    removes: bool  # marks spans of the original as removed; `--keep NAME` turns it off
    # A removal stage that judges the page as a whole runs once, after the rule stages have
    # reached their fixed point, instead of in every cleaning round.
    once: bool
    # Edit kinds the Markdown audit counts instead of listing one by one (pinyin readings:
    # hundreds per page); every other removal of the stage is listed.
    counted_kinds: frozenset[str]
    # Edit kinds recorded in the JSON but left out of the Markdown audit: they are not junk (the
    # CR of a CRLF line ending).
    unaudited_kinds: frozenset[str]
    summary: str  # one line for --help and the docs


@dataclass(frozen=True)
class TranslatorSpec:
    name: str
    factory: Callable[[Context], Any]  # Context -> Translator, or None for no translation
    summary: str


_STAGES: dict[str, StageSpec] = {}
_TRANSLATORS: dict[str, TranslatorSpec] = {}
_loaded: set[str] = set()


def _load(package: str) -> None:
    """Import every module of `package` once, so that their decorators run."""
    if package in _loaded:
        return
    _loaded.add(package)
    pkg = importlib.import_module(package)
    for module in pkgutil.iter_modules(pkg.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{package}.{module.name}")


def stage(
    name: str,
    *,
    order: int,
    removes: bool = False,
    once: bool = False,
    counted_kinds: tuple[str, ...] = (),
    unaudited_kinds: tuple[str, ...] = (),
) -> Callable[[StageFunction], StageFunction]:
    """Register a stage: a pure function `(doc, ctx) -> doc`. Its docstring's first line is
    its summary."""

    def register(func: StageFunction) -> StageFunction:
        if name in _STAGES and _STAGES[name].run is not func:
            raise ValueError(f"stage {name!r} registered twice")
        summary = (func.__doc__ or name).strip().splitlines()[0]
        _STAGES[name] = StageSpec(
            name,
            func,
            order,
            removes,
            once,
            frozenset(counted_kinds),
            frozenset(unaudited_kinds),
            summary,
        )
        return func

    return register


def translator(name: str, summary: str) -> Callable[[Callable], Callable]:
    """Register a translator factory `(ctx) -> Translator | None`."""

    def register(factory: Callable) -> Callable:
        _TRANSLATORS[name] = TranslatorSpec(name, factory, summary)
        return factory

    return register


def stages() -> tuple[StageSpec, ...]:
    """Every stage, in pipeline order."""
    _load("pipeline.stages")
    return tuple(sorted(_STAGES.values(), key=lambda s: s.order))


def stage_spec(name: str) -> StageSpec:
    _load("pipeline.stages")
    return _STAGES[name]


def stage_kinds(attribute: str) -> dict[str, tuple[str, ...]]:
    """Stage name → its `unaudited_kinds` or `counted_kinds`: looked up once for a whole
    audit, not once per edit (a long page has a hundred thousand)."""
    return {s.name: getattr(s, attribute) for s in stages()}


def cleaning_stages() -> tuple[str, ...]:
    """Names of the removal stages, in order: the `--keep` choices."""
    return tuple(s.name for s in stages() if s.removes)


def translators() -> dict[str, TranslatorSpec]:
    _load("pipeline.translate")
    return dict(sorted(_TRANSLATORS.items()))
