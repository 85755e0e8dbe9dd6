"""Durable sessions: a store that keeps every agent's history, each call's state and the team's
mail, so a session survives a crash and resumes.

``open_store("team.sessions.db")`` (or ``sqlite:///path``) opens an embedded SQLite store;
``open_store("postgresql://user@host/db")`` a PostgreSQL one (the ``postgres`` extra). Nothing
here is imported by an agent that does not use a store.
"""

from __future__ import annotations

from pathlib import Path

from autobyteus_like.store.database import Durability, PostgresDatabase, SqliteDatabase
from autobyteus_like.store.records import (
    CallRecord,
    CallState,
    MailRecord,
    MailState,
    MessageRecord,
    SessionInfo,
    TurnRecord,
)
from autobyteus_like.store.session_store import SessionStore, process_owner

__all__ = [
    "CallRecord",
    "CallState",
    "MailRecord",
    "MailState",
    "MessageRecord",
    "SessionInfo",
    "SessionStore",
    "TurnRecord",
    "open_store",
    "process_owner",
]


def open_store(location: str | Path, *, durability: Durability = "process") -> SessionStore:
    """The session store at ``location``: a PostgreSQL URL (``postgresql://...``), a SQLite
    URL (``sqlite:///path``) or a file path. ``durability="power"`` makes SQLite sync every
    commit to disk (PostgreSQL commits are durable as the server is configured)."""
    text = str(location)
    if text.startswith(("postgresql://", "postgres://")):
        return SessionStore(PostgresDatabase(text))
    if text.startswith("sqlite:///"):
        text = text.removeprefix("sqlite:///")
    return SessionStore(SqliteDatabase(Path(text), durability))
