"""Sessions: a store that keeps every agent's history, each call's state and the team's
mail, so a session survives a crash and resumes.

``open_store("team.sessions.db")`` (or ``sqlite:///path``) opens an embedded SQLite store;
``open_store("postgresql://user@host/db")`` a PostgreSQL one (the ``postgres`` extra). Nothing
here is imported by an agent that does not use a store, and nothing here imports the turn
machine: the store speaks its own records, restoring gives one ``TurnSnapshot``
(``store.restore``), and the session writer that writes a turn is a hook (``hooks.session_writer``).
``SessionStore`` is a thin aggregate of one module per table (``leases``, ``catalog``,
``history``, ``turns``, ``calls``, ``mail``, ``run_usage``) writing through one
``Transactions`` on one ``Database``; above it, the team, its mail room and the runtimes ask
their ``Session`` (``session``), never the store behind it.
"""

from __future__ import annotations

from autobyteus_like.store._records import (
    CallRecord,
    CallState,
    MailRecord,
    MailState,
    MessageRecord,
    SessionInfo,
    TurnRecord,
)
from autobyteus_like.store._session import Session
from autobyteus_like.store._store import SessionStore, open_store, process_owner

__all__ = [
    "CallRecord",
    "CallState",
    "MailRecord",
    "MailState",
    "MessageRecord",
    "Session",
    "SessionInfo",
    "SessionStore",
    "TurnRecord",
    "open_store",
    "process_owner",
]
