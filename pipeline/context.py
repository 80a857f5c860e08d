"""The context handed to every stage: the settings and the resources they need, read once.

Stages do no file I/O: the user's word lists and dictionaries are read here, when the run
starts, so a missing or unreadable file is one clear error before any work, and their *content*
(not their path) is what the fingerprint and the resource caches see. Heavy resources
(segmenter, spam automaton, …) are built from that content once per process by the stage that
owns them (`functools.lru_cache` keyed by content), so a context is cheap to copy to workers.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.glossary import Glossary, load_glossary, without_glossary
from pipeline.segment import Segmenter, segmenter
from pipeline.settings import FILE_LISTS, Settings, SettingsError


@dataclass(frozen=True)
class WordFile:
    path: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def read_word_file(path: str) -> WordFile:
    try:
        return WordFile(path, Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SettingsError(f"{path}: no such file") from exc
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from exc


@lru_cache(maxsize=1)
def packaged_data_digest() -> str:
    """The packaged word lists, patterns and the line model: editing or retraining any of them
    changes what the stages do, so it changes the fingerprint."""
    digest = hashlib.sha256()
    data = resources.files("pipeline.data")
    for item in sorted(data.iterdir(), key=lambda p: p.name):
        if item.name.endswith((".txt", ".json")):
            digest.update(item.name.encode() + b"\0" + item.read_bytes())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Context:
    settings: Settings = field(default_factory=Settings)
    # the files named by the settings in FILE_LISTS, read: setting name → files
    files: dict[str, tuple[WordFile, ...]] = field(default_factory=dict)

    @classmethod
    def load(cls, settings: Settings) -> Context:
        """Read every file the settings name; SettingsError names a file that cannot be read."""
        files = {
            key: tuple(read_word_file(p) for p in getattr(settings, key)) for key in FILE_LISTS
        }
        ctx = cls(settings, files)
        ctx.glossary  # noqa: B018 -- parsed now: a bad line is an error before any work
        return ctx

    def texts(self, key: str) -> tuple[str, ...]:
        """The contents of the files of setting `key` (user_dicts, spam_words)."""
        return tuple(f.text for f in self.files.get(key, ()))

    @property
    def glossary(self) -> Glossary:
        """The user's glossaries, merged (parsed once per process, by content)."""
        files = self.files.get("glossary", ())
        return load_glossary(tuple((f.path, f.text) for f in files))

    @property
    def segmenter(self) -> Segmenter:
        return segmenter(self.texts("user_dicts"))

    def fingerprint(self, translator: dict[str, Any]) -> str:
        """What, besides the input bytes, decides a document's output: the pipeline version,
        the packaged data (word lists, patterns, the line model), the settings tagged text or
        layout, the content of every user word list and dictionary, and the
        translator's description (model, revision, engine, decoding) — never thread counts or
        cache paths."""
        settings = self.settings.affecting("text", "layout")
        for key in FILE_LISTS:
            settings[key] = [f.sha256 for f in self.files.get(key, ())]
        # The glossary counts by content, above; its file names in the description must not.
        parts = [__version__, packaged_data_digest(), settings, without_glossary(translator)]
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]
