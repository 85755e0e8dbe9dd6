"""The two databases a session store runs on, behind one small interface: SQLite (standard
library, WAL mode, one file) and PostgreSQL (psycopg 3, the ``postgres`` extra).

Both take the same SQL (written with ``?`` placeholders; PostgreSQL's are put in). A write
transaction on SQLite starts with ``BEGIN IMMEDIATE``, so two processes never both believe
they hold a session; on PostgreSQL rows read for an update are locked with ``FOR UPDATE``.

A failure the database can get over by itself is a ``TransientStoreError``: a PostgreSQL
connection that dropped (the server restarted, the backend was terminated; ``reconnect()``
opens a new one), a deadlock or a serialisation failure (the transaction was rolled back). The
store's transactions retry those; every other failure is a plain ``StoreError``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from autobyteus_like.errors import StoreError, TransientStoreError

__all__ = ["BUSY_TIMEOUT_VARIABLE", "Database", "PostgresDatabase", "SqliteDatabase",
           "busy_timeout_from_environment"]

Durability = Literal["process", "power"]

BUSY_TIMEOUT_VARIABLE = "AUTOBYTEUS_LIKE_SQLITE_BUSY_TIMEOUT_S"
DEFAULT_BUSY_TIMEOUT_S = 10.0


def busy_timeout_from_environment() -> float:
    """How long a SQLite write waits for another writer's lock before it fails with
    "database is locked": ``$AUTOBYTEUS_LIKE_SQLITE_BUSY_TIMEOUT_S`` (10 s when unset)."""
    text = os.environ.get(BUSY_TIMEOUT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_BUSY_TIMEOUT_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise StoreError(f"${BUSY_TIMEOUT_VARIABLE}: expected a number of seconds, 0 or "
                         f"above, not {text!r}")
    return seconds


class Database(Protocol):
    """One connection, used by one thread at a time (the store serialises)."""

    dialect: str
    url: str
    can_lose_connection: bool
    """Whether the connection can drop under the store (a server's can; a file's cannot)."""

    def reconnect(self) -> None:
        """Replace a connection that dropped (``StoreError`` if none can be opened)."""

    def begin(self) -> None:
        """Start a write transaction."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement; its rows (empty for writes)."""

    def commit(self) -> None:
        """Make the transaction durable."""

    def rollback(self) -> None:
        """Undo the transaction."""

    def close(self) -> None:
        """Release the connection."""

    def integrity_problems(self) -> list[str]:
        """What the database's own consistency check reports (empty when all is well)."""


class SqliteDatabase:
    """A SQLite file in WAL mode. ``durability="process"`` survives a crash of the process
    (``synchronous=NORMAL``); ``"power"`` also a power loss (``synchronous=FULL``, an fsync
    per commit). ``busy_timeout_s``: how long a write waits for another writer (default
    ``$AUTOBYTEUS_LIKE_SQLITE_BUSY_TIMEOUT_S`` or 10 s)."""

    dialect = "sqlite"
    can_lose_connection = False

    def __init__(self, path: str | Path, durability: Durability = "process",
                 busy_timeout_s: float | None = None) -> None:
        self.url = f"sqlite:///{path}"
        busy = busy_timeout_from_environment() if busy_timeout_s is None else busy_timeout_s
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(str(path), isolation_level=None,
                                               check_same_thread=False, timeout=busy)
            self._connection.execute("PRAGMA journal_mode=WAL")
            synchronous = "FULL" if durability == "power" else "NORMAL"
            self._connection.execute(f"PRAGMA synchronous={synchronous}")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the session store {path}: {exc}") from exc

    def reconnect(self) -> None:
        """A file does not drop its connection."""

    def begin(self) -> None:
        self._run("BEGIN IMMEDIATE")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._run(sql, params)

    def commit(self) -> None:
        self._run("COMMIT")

    def _run(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """One statement; a database failure (a store locked past the timeout, a full disk)
        is a ``StoreError`` saying which store, never a raw sqlite3 error."""
        try:
            return self._connection.execute(sql, tuple(params)).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"the session store {self.url} failed: {exc}") from exc

    def rollback(self) -> None:
        if self._connection.in_transaction:
            self._connection.execute("ROLLBACK")

    def close(self) -> None:
        self._connection.close()

    def integrity_problems(self) -> list[str]:
        rows = self._connection.execute("PRAGMA integrity_check").fetchall()
        return [str(row[0]) for row in rows if row[0] != "ok"]


class PostgresDatabase:
    """A PostgreSQL database through psycopg 3 (every commit is durable on the server). A
    connection that drops is noticed (``TransientStoreError``) and replaced by ``reconnect``.
    ``idle_in_transaction_s`` (the lease): a connection left idle inside a transaction that
    long is ended by the server, so a paused holder never blocks a take-over for good."""

    dialect = "postgres"
    can_lose_connection = True

    def __init__(self, url: str, idle_in_transaction_s: float | None = None) -> None:
        self.url = url
        self._idle_ms = None if idle_in_transaction_s is None else max(
            1000, int(idle_in_transaction_s * 1000))
        try:
            import psycopg
        except ImportError:
            raise StoreError("a PostgreSQL session store needs psycopg: "
                             "pip install 'autobyteus-like[postgres]'") from None
        self._connection = self._connect()
        del psycopg

    def _connect(self) -> Any:
        import psycopg

        try:
            connection = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
            if self._idle_ms is not None:  # a holder paused inside a transaction (SIGSTOP, a
                # debugger) would block every other process on its locks: the server ends it
                connection.execute(
                    f"SET idle_in_transaction_session_timeout = {self._idle_ms}")
            return connection
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to the session store {_shown(self.url)}: "
                             f"{str(exc).strip()}") from exc

    def reconnect(self) -> None:
        with contextlib.suppress(Exception):  # a dropped connection may fail to close
            self._connection.close()
        self._connection = self._connect()

    def begin(self) -> None:
        self.execute("BEGIN")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        import psycopg

        try:
            cursor = self._connection.execute(sql.replace("?", "%s"), tuple(params))
            return cursor.fetchall() if cursor.description is not None else []
        except psycopg.Error as exc:
            message = (f"the session store {_shown(self.url)} failed: "
                       f"{str(exc).strip()}")
            if self._connection.closed or self._connection.broken:
                raise TransientStoreError(message, connection_lost=True) from exc
            if getattr(exc, "sqlstate", None) in _RETRIED:
                self.rollback()
                raise TransientStoreError(message, connection_lost=False) from exc
            raise StoreError(message) from exc

    def commit(self) -> None:
        self.execute("COMMIT")

    def rollback(self) -> None:
        import psycopg

        with contextlib.suppress(psycopg.Error):  # a dropped connection has nothing to undo
            self._connection.execute("ROLLBACK")

    def close(self) -> None:
        self._connection.close()

    def integrity_problems(self) -> list[str]:
        # The server keeps its own files consistent; what can go wrong is ours: rows that
        # point at a session that is gone.
        rows = self.execute(
            "SELECT 'calls of a missing session: ' || c.session FROM calls c "
            "LEFT JOIN sessions s ON s.name = c.session WHERE s.name IS NULL LIMIT 5")
        return [str(row[0]) for row in rows]


_RETRIED = frozenset({"40P01", "40001"})
"""SQLSTATEs after which the server rolled the transaction back and trying again is right:
deadlock detected, serialization failure."""


def _shown(url: str) -> str:
    """A URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"
    return url
