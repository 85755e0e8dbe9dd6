"""What is known about the tool format of each model, per (provider, base URL, model): the
format ``tool_format: auto`` learned on that server and the verdict of ``eval-formats`` (with
its figures). One table, ``model_formats``: in the session store when there is one, else in a
SQLite file of its own under ``$AUTOBYTEUS_LIKE_CACHE`` (default
``~/.cache/autobyteus-like``), so a process starts from what an earlier one learned.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autobyteus_like.store._database import Database, SqliteDatabase
from autobyteus_like.store._schema import document, migrate
from autobyteus_like.store._transactions import Transactions

if TYPE_CHECKING:
    from autobyteus_like.store._store import SessionStore

__all__ = ["CACHE_VARIABLE", "KnownFormat", "ModelFormats", "ModelKey", "cache_folder"]

CACHE_VARIABLE = "AUTOBYTEUS_LIKE_CACHE"
"""The environment variable naming the folder of the cache file (tests point it elsewhere)."""

CACHE_FILE = "model-formats.sqlite"


def cache_folder() -> Path:
    """``$AUTOBYTEUS_LIKE_CACHE``, or ``~/.cache/autobyteus-like``."""
    named = os.environ.get(CACHE_VARIABLE, "").strip()
    return Path(named).expanduser() if named else Path.home() / ".cache" / "autobyteus-like"


@dataclass(frozen=True)
class ModelKey:
    """One model on one server."""

    provider: str
    base_url: str
    model: str

    def __str__(self) -> str:
        where = f" at {self.base_url}" if self.base_url else ""
        return f"{self.provider} {self.model}{where}"


@dataclass(frozen=True)
class KnownFormat:
    """What the table holds for one model: ``learned`` by ``auto`` (and why), and the eval's
    ``verdict`` (and its figures, per format)."""

    key: ModelKey
    learned: str | None = None
    learned_reason: str | None = None
    verdict: str | None = None
    figures: dict[str, Any] = field(default_factory=dict)


def _known(key: ModelKey, learned: str | None, verdict: str | None, data: str) -> KnownFormat:
    details = json.loads(data)
    return KnownFormat(key, learned, details.get("learned_reason"), verdict,
                       details.get("figures") or {})


class ModelFormats:
    """The ``model_formats`` table of a store (``in_store``) or of the cache file
    (``cached``). Safe to share between threads; each cache operation opens the file."""

    def __init__(self, opened: Callable[[], AbstractContextManager[Transactions]],
                 where: str) -> None:
        self._opened = opened
        self.where = where
        """The store's URL or the cache file's path (for messages)."""

    @classmethod
    def in_store(cls, store: SessionStore) -> ModelFormats:
        """The table in a session store."""

        @contextmanager
        def opened() -> Iterator[Transactions]:
            yield store.transactions

        return cls(opened, store.database.url)

    @classmethod
    def cached(cls, folder: Path | None = None) -> ModelFormats:
        """The table in the cache file under ``folder`` (default ``cache_folder()``), opened
        (and made) for each operation."""
        path = (folder or cache_folder()) / CACHE_FILE

        @contextmanager
        def opened() -> Iterator[Transactions]:
            database: Database = SqliteDatabase(path)
            transactions = Transactions(database, 30.0)
            try:
                migrate(transactions)
                yield transactions
            finally:
                transactions.close()

        return cls(opened, str(path))

    def known(self, key: ModelKey) -> KnownFormat | None:
        """What is known of ``key`` (None: nothing)."""
        with self._opened() as tx:
            rows = tx.rows("SELECT learned, verdict, data FROM model_formats WHERE "
                           "provider = ? AND base_url = ? AND model = ?",
                           key.provider, key.base_url, key.model)
        return _known(key, *rows[0]) if rows else None

    def all(self) -> list[KnownFormat]:
        """Every model the table knows, by provider, server and model."""
        with self._opened() as tx:
            rows = tx.rows("SELECT provider, base_url, model, learned, verdict, data "
                           "FROM model_formats ORDER BY provider, base_url, model")
        return [_known(ModelKey(p, b, m), learned, verdict, data)
                for p, b, m, learned, verdict, data in rows]

    def learn(self, key: ModelKey, tool_format: str, reason: str) -> None:
        """Remember that ``auto`` moved to ``tool_format`` on this server, and why."""
        self._update(key, "learned", tool_format, {"learned_reason": reason,
                                                   "learned_ms": _now_ms()})

    def forget_learned(self, key: ModelKey, tool_format: str) -> bool:
        """Drop what ``auto`` learned when it is still ``tool_format`` (it failed); whether
        an entry was dropped."""
        def drop(database: Database) -> bool:
            rows = database.execute(
                "SELECT learned, verdict, data FROM model_formats WHERE provider = ? AND "
                "base_url = ? AND model = ?", (key.provider, key.base_url, key.model))
            if not rows or rows[0][0] != tool_format:
                return False
            _, verdict, data = rows[0]
            details = {k: v for k, v in json.loads(data).items()
                       if not k.startswith("learned_")}
            if verdict is None:
                database.execute("DELETE FROM model_formats WHERE provider = ? AND "
                                 "base_url = ? AND model = ?",
                                 (key.provider, key.base_url, key.model))
            else:
                database.execute("UPDATE model_formats SET learned = NULL, data = ? WHERE "
                                 "provider = ? AND base_url = ? AND model = ?",
                                 (document(details), key.provider, key.base_url, key.model))
            return True

        with self._opened() as tx:
            return tx.write(None, drop)

    def judge(self, key: ModelKey, tool_format: str, figures: dict[str, Any]) -> None:
        """Store the eval's verdict for ``key`` with its figures (replacing an earlier one)."""
        self._update(key, "verdict", tool_format, {"figures": figures,
                                                   "verdict_ms": _now_ms()})

    def forget(self, key: ModelKey) -> bool:
        """Drop everything known of ``key``; whether there was anything."""
        def drop(database: Database) -> bool:
            found = database.execute(
                "SELECT 1 FROM model_formats WHERE provider = ? AND base_url = ? AND "
                "model = ?", (key.provider, key.base_url, key.model))
            database.execute("DELETE FROM model_formats WHERE provider = ? AND base_url = ? "
                             "AND model = ?", (key.provider, key.base_url, key.model))
            return bool(found)

        with self._opened() as tx:
            return tx.write(None, drop)

    def _update(self, key: ModelKey, column: str, value: str, details: dict[str, Any]) -> None:
        assert column in ("learned", "verdict")

        def write(database: Database) -> None:
            where = (key.provider, key.base_url, key.model)
            database.execute("INSERT INTO model_formats (provider, base_url, model, data) "
                             "VALUES (?, ?, ?, '{}') ON CONFLICT (provider, base_url, model) "
                             "DO NOTHING", where)
            lock = " FOR UPDATE" if database.dialect == "postgres" else ""
            rows = database.execute("SELECT data FROM model_formats WHERE provider = ? AND "
                                    f"base_url = ? AND model = ?{lock}", where)
            merged = {**json.loads(rows[0][0]), **details}
            database.execute(f"UPDATE model_formats SET {column} = ?, data = ? WHERE "
                             "provider = ? AND base_url = ? AND model = ?",
                             (value, document(merged), *where))

        with self._opened() as tx:
            tx.write(None, write)


def _now_ms() -> int:
    return int(time.time() * 1000)
