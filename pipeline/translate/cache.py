"""Persistent translation cache (SQLite, WAL): a re-run over unchanged input calls no model.

Keyed by backend, model id + revision, generation settings and the source sentence (with the
glossary terms found in it), so a new model, new settings or a new glossary English never reuse
old English. WAL mode and a busy timeout make two runs at once safe.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

DEFAULT_TIMEOUT_S = 30.0


class TranslationCache:
    def __init__(self, directory: Path, namespace: dict, key: Callable[[str], str] = str):
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "translations.sqlite3"
        self._namespace = json.dumps(namespace, sort_keys=True, ensure_ascii=False)
        self._source_key = key  # what besides the namespace decides a sentence's English
        self._db = sqlite3.connect(self.path, timeout=DEFAULT_TIMEOUT_S, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS translations "
            "(key TEXT PRIMARY KEY, en TEXT NOT NULL, flag TEXT)"
        )

    def _key(self, source: str) -> str:
        source = self._source_key(source)
        return hashlib.sha256(f"{self._namespace}\x00{source}".encode()).hexdigest()

    def get_many(self, sources: list[str]) -> dict[str, tuple[str, str | None]]:
        found: dict[str, tuple[str, str | None]] = {}
        keys = {self._key(s): s for s in sources}
        items = list(keys)
        for i in range(0, len(items), 500):
            chunk = items[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT key, en, flag FROM translations WHERE key IN ({marks})", chunk
            )
            for key, en, flag in rows:
                found[keys[key]] = (en, flag)
        return found

    def put_many(self, entries: dict[str, tuple[str, str | None]]) -> None:
        rows = [(self._key(s), en, flag) for s, (en, flag) in entries.items()]
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO translations VALUES (?, ?, ?)", rows)

    def close(self) -> None:
        self._db.close()
