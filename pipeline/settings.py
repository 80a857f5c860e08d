"""Run settings: one frozen object, built one way — defaults ← `pipeline.toml` ← CLI options
actually given — and checked once, with errors that name the file and the key.

Each field says what it affects (`field(metadata={"affects": …})`): "text" (what the text stages
produce), "layout" (the Markdown only), "translation" (represented in the output by the
translator's own description) or "runtime" (how fast or where, never what). The run's
fingerprint is derived from that tag, so a new setting changes the fingerprint unless it is
explicitly declared runtime-only.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import msgspec

Positive = Annotated[int, msgspec.Meta(ge=1)]
Share = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
Probability = Annotated[float, msgspec.Meta(gt=0.0, lt=1.0)]  # strictly between 0 and 1
Layout = Literal["paragraph", "sentence", "table", "translation", "english_first"]
Flavor = Literal["common", "hugo"]
OutputFormat = Literal["md", "jsonl", "parquet"]
Executor = Literal["local", "ray"]
Device = Literal["auto", "cpu", "cuda"]
Engine = Literal["auto", "ctranslate2", "transformers"]
LAYOUTS: tuple[str, ...] = get_args(Layout)
FLAVORS: tuple[str, ...] = get_args(Flavor)
OUTPUT_FORMATS: tuple[str, ...] = get_args(OutputFormat)
EXECUTORS: tuple[str, ...] = get_args(Executor)
DEVICES: tuple[str, ...] = get_args(Device)
ENGINES: tuple[str, ...] = get_args(Engine)


class SettingsError(ValueError):
    """A setting has the wrong name, type or value; the message names where it came from."""


def _affects(what: str, default: Any = dataclasses.MISSING, **kw: Any) -> Any:
    if default is dataclasses.MISSING:
        return field(metadata={"affects": what}, **kw)
    return field(default=default, metadata={"affects": what}, **kw)


@dataclass(frozen=True)
class SpamThresholds:
    """The spam stage's numbers (`[spam]` in pipeline.toml). Densities are the share of a line's
    non-space, non-URL characters covered by spam words (call-to-action words weigh double)."""

    # pinyin-letter ads: the shortest run of toneless pinyin letters that marks a line as an ad
    pinyin_run_min_letters: Positive = 24
    # jammer noise: the fewest one/two-character ASCII scraps in a row
    jammer_min_scraps: Positive = 5
    # prose (ends like a sentence, or longer than prose_min_chars) is spam when dense
    prose_min_chars: Positive = 40
    prose_density: Share = 0.4
    prose_density_alone: Share = 0.6  # ... or this dense with a single hit
    # short, unpunctuated lines (headers, link labels) need less
    short_density: Share = 0.2
    short_density_alone: Share = 0.3
    # in an article about the topic itself (gambling law, lottery news) only near-pure spam goes
    topical_density: Share = 0.7
    topical_min_hits: Positive = 3
    # the article is "about the topic" when this share of its lines mention it sparsely
    topical_line_share: Share = 0.2
    topical_sparse_density: Share = 0.35
    topical_min_lines: Positive = 8
    # a spam phrase glued to the start/end of a real line: its hits are at most `glue_gap`
    # apart, start within `glue_max_offset` characters, and leave `glue_min_han` Han characters
    glue_gap: int = 4
    glue_max_offset: int = 6
    glue_density: Share = 0.4
    glue_min_han: Positive = 6
    # off-topic headlines: at most spam_line_max_chars / 2 long, ≥ off_topic_min_words content
    # words, none of them found in an article of ≥ off_topic_min_article_han Han characters, and
    # at most off_topic_max_shared of them when a longer word counts as found by one of its
    # two-character parts (a real title says 室内设计 where its text says 设计); cut only above a
    # line that reads as the real title (spam._title_below)
    spam_line_max_chars: Positive = 120
    off_topic_min_words: Positive = 3
    off_topic_max_shared: Share = 0.2
    off_topic_min_article_han: Positive = 120
    # `Title_keyword` suffixes: segments up to suffix_max_chars sharing ≤ suffix_max_shared
    suffix_max_chars: Positive = 40
    suffix_max_shared: Share = 0.34


@dataclass(frozen=True)
class Settings:
    translator: str = _affects("translation", "auto")  # a registered translator, or auto
    model: str = _affects("translation", "Helsinki-NLP/opus-mt-zh-en")
    engine: Engine = _affects("translation", "auto")
    beams: Positive | None = _affects("translation", None)
    max_new_tokens: Positive | None = _affects("translation", None)
    layout: Layout = _affects("layout", "paragraph")
    flavor: Flavor = _affects("layout", "common")
    pretty: bool = _affects("layout", False)  # indented JSON instead of compact
    user_dicts: tuple[str, ...] = _affects("text", ())  # fingerprinted by content
    spam_words: tuple[str, ...] = _affects("text", ())  # fingerprinted by content
    # glossaries (pipeline/glossary.py): their terms are recorded per sentence and their
    # conversion overrides change the Simplified text, so "text"; fingerprinted by content
    glossary: tuple[str, ...] = _affects("text", ())
    keep: tuple[str, ...] = _affects("text", ())  # removal stages turned off
    spam: SpamThresholds = _affects("text", default_factory=SpamThresholds)
    # the classifier removes a line at this junk probability or above (None: the model's own,
    # chosen when it was trained; lower takes more junk and more content with it)
    junk_threshold: Probability | None = _affects("text", None)
    # datasets (JSONL, Parquet): which fields hold a record's text, id and title
    text_field: str = _affects("text", "text")
    id_field: str | None = _affects("text", None)
    title_field: str | None = _affects("text", None)
    # None: md for files, a dataset's own format for a dataset
    format: OutputFormat | None = _affects("layout", None)
    shard_size: Positive = _affects("layout", 1000)  # records per output shard
    executor: Executor = _affects("runtime", "local")
    ray_address: str | None = _affects("runtime", None)  # None: start a local Ray
    actors: Positive | None = _affects("runtime", None)  # Ray translation actors (None: 1)
    device: Device = _affects("runtime", "auto")  # the translator says what it ran on
    jobs: Positive | None = _affects("runtime", None)  # None: every core this process may use
    cache_dir: str | None = _affects("runtime", None)
    use_cache: bool = _affects("runtime", True)
    force: bool = _affects(
        "runtime", False
    )  # redo documents whose input and settings are unchanged

    def enabled(self, stage: str) -> bool:
        return stage not in self.keep

    def affecting(self, *what: str) -> dict[str, Any]:
        """The settings tagged with one of `what`, as plain data (for fingerprints)."""
        return {
            f.name: msgspec.to_builtins(getattr(self, f.name))
            for f in fields(self)
            if f.metadata["affects"] in what
        }


# paths in pipeline.toml are relative to the file
FILE_LISTS = ("user_dicts", "spam_words", "glossary")
ADDITIVE = (*FILE_LISTS, "keep")  # a later layer adds to these lists instead of replacing them


def _problem(exc: msgspec.ValidationError) -> str:
    message = str(exc)
    where = message.rpartition(" - at `$.")
    if where[1]:
        return f"`{where[2].rstrip('`')}`: {where[0][0].lower()}{where[0][1:]}"
    return message


def _check_keys(data: dict, known: type, prefix: str = "") -> None:
    names = {f.name: f for f in fields(known)}
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise SettingsError(f"unknown setting(s): {', '.join(prefix + k for k in unknown)}")
    for key, value in data.items():
        kind = names[key].type
        if kind == "SpamThresholds" and isinstance(value, dict):
            _check_keys(value, SpamThresholds, f"{key}.")


def build_settings(*layers: dict[str, Any]) -> Settings:
    """Defaults, then each layer on top (later wins); the result is type-checked.

    A nested table (`spam`) merges key by key; the lists in ADDITIVE add up (a `--spam-words`
    option adds to the file's list). Raises SettingsError naming the key."""
    merged: dict[str, Any] = {}
    for layer in layers:
        _check_keys(layer, Settings)
        for key, value in layer.items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            elif key in ADDITIVE and isinstance(value, list | tuple) and key in merged:
                merged[key] = list(dict.fromkeys([*merged[key], *value]))
            else:
                merged[key] = value
    try:
        return msgspec.convert(merged, Settings, strict=True)
    except msgspec.ValidationError as exc:
        raise SettingsError(_problem(exc)) from exc


def read_config(path: Path) -> dict[str, Any]:
    """The settings of a `pipeline.toml`, paths made relative to the current directory.

    Every problem — unreadable, bad TOML, unknown key, wrong type — is a SettingsError naming
    the file."""
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from exc
    try:
        build_settings(data)
    except SettingsError as exc:
        raise SettingsError(f"{path}: {exc}") from exc
    for key in FILE_LISTS:
        if key in data:
            data[key] = [str(path.parent / p) for p in data[key]]
    return data


def load_config(path: Path, base: dict[str, Any] | None = None) -> Settings:
    """Settings from defaults ← `base` ← the file at `path`."""
    return build_settings(base or {}, read_config(path))
