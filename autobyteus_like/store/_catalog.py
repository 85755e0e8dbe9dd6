"""The sessions table: each session's name, team, configuration and where it stands."""

from __future__ import annotations

import json
from typing import Any

from autobyteus_like.store._database import Database
from autobyteus_like.store._records import CallState, MailState, SessionInfo
from autobyteus_like.store._transactions import Transactions, now_ms

__all__ = ["Catalog"]

_COLUMNS = ("name, team, fingerprint, created_ms, updated_ms, status, owner, lease_until_ms, "
            "config, generation")
_TABLES = ("mail", "calls", "turns", "messages", "agents", "usage", "recorded_requests",
           "recorded_responses", "recorded_tools", "session_origins", "sessions")
"""A session's rows (``recording_blobs`` are shared by content between sessions: kept)."""


class Catalog:
    """Sessions as a whole: read one or all, record their status, remove one."""

    def __init__(self, transactions: Transactions) -> None:
        self._tx = transactions

    def set_status(self, name: str, status: str) -> None:
        """Record where the session stands: active, waiting (for a person), done, failed."""
        self._tx.write(name, lambda database: database.execute(
            "UPDATE sessions SET status = ?, updated_ms = ? WHERE name = ?",
            (status, now_ms(), name)))

    def set_holder(self, name: str, holder: str | None) -> None:
        """Record who holds the session's conversation (None: its coordinator)."""
        self._tx.write(name, lambda database: database.execute(
            "UPDATE sessions SET holder = ?, updated_ms = ? WHERE name = ?",
            (holder, now_ms(), name)))

    def holder(self, name: str) -> str | None:
        """Who holds the session's conversation since a handoff (None: its coordinator)."""
        rows = self._tx.rows("SELECT holder FROM sessions WHERE name = ?", name)
        return None if not rows or rows[0][0] is None else str(rows[0][0])

    def session(self, name: str) -> SessionInfo | None:
        """The session of that name, if any."""
        rows = self._tx.rows(f"SELECT {_COLUMNS} FROM sessions WHERE name = ?", name)
        return _session(rows[0]) if rows else None

    def sessions(self) -> list[SessionInfo]:
        """Every session, most recently used first."""
        rows = self._tx.rows(f"SELECT {_COLUMNS} FROM sessions ORDER BY updated_ms DESC, name")
        return [_session(row) for row in rows]

    def delete(self, name: str) -> bool:
        """Remove a session and everything in it; whether it existed."""

        def remove(database: Database) -> bool:
            existed = bool(database.execute("SELECT 1 FROM sessions WHERE name = ?", (name,)))
            for table in _TABLES:
                column = "name" if table == "sessions" else "session"
                database.execute(f"DELETE FROM {table} WHERE {column} = ?", (name,))
            return existed

        return self._tx.write(None, remove)

    def standing(self, name: str) -> str:
        """Where the session's work stands: ``waiting`` (a call waits for a person),
        ``unfinished`` (a turn or message is left to do) or ``done``."""
        waiting = self._tx.rows("SELECT COUNT(*) FROM calls WHERE session = ? AND state = ?",
                                name, CallState.WAITING_APPROVAL.value)
        if int(waiting[0][0]):
            return "waiting"
        left = self._tx.rows(
            "SELECT (SELECT COUNT(*) FROM turns WHERE session = ? AND state IN "
            "('open', 'queued')) + (SELECT COUNT(*) FROM mail WHERE session = ? AND state = ?)",
            name, name, MailState.QUEUED.value)
        return "unfinished" if int(left[0][0]) else "done"


def _session(row: tuple[Any, ...]) -> SessionInfo:
    name, team, fingerprint, created, updated, status, owner, until, config, generation = row
    return SessionInfo(name=str(name), team=str(team), fingerprint=str(fingerprint),
                       created_ms=int(created), updated_ms=int(updated), status=str(status),
                       owner=owner, lease_until_ms=None if until is None else int(until),
                       config=json.loads(config), generation=int(generation))
