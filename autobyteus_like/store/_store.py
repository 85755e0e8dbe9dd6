"""SessionStore: sessions, agents' histories, turns, calls, team mail and a run's usage, on one
database: a thin aggregate of one module per table, all writing through one ``Transactions``.

Every write is a transaction, committed before the method returns; ``transaction()`` groups
several writes into one (an LLM response's assistant message and its parsed calls, say).
A session is held by one process at a time through a lease (``leases.py``): every write of a
session this store holds is fenced by the lease's generation, retried over a dropped
connection without being applied twice, and after a failed write nothing more of the session
is written (``transactions.py``). The store speaks only its own records (``records.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from autobyteus_like.errors import StoreError
from autobyteus_like.store._calls import Calls
from autobyteus_like.store._catalog import Catalog
from autobyteus_like.store._database import (
    Database,
    Durability,
    PostgresDatabase,
    SqliteDatabase,
)
from autobyteus_like.store._history import Histories
from autobyteus_like.store._leases import Leases, process_owner
from autobyteus_like.store._mail import MailTable
from autobyteus_like.store._recordings import Recordings
from autobyteus_like.store._records import SessionInfo
from autobyteus_like.store._run_usage import RunUsage
from autobyteus_like.store._schema import migrate
from autobyteus_like.store._transactions import Transactions
from autobyteus_like.store._turns import Turns

__all__ = ["LEASE_VARIABLE", "SessionStore", "open_store", "process_owner"]

LEASE_VARIABLE = "AUTOBYTEUS_LIKE_LEASE_S"
"""The environment variable that sets a store's lease length in seconds (default 30)."""

DEFAULT_LEASE_S = 30.0


class SessionStore:
    """The store on one database; safe to share between the threads of one process.

    Its tables are its parts (``leases``, ``catalog``, ``histories``, ``turns_table``,
    ``calls_table``, ``mail_table``, ``run_usage``); the methods below are theirs, named as the
    store has always named them."""

    def __init__(self, database: Database, *, lease_s: float = DEFAULT_LEASE_S) -> None:
        if not lease_s > 0:
            raise StoreError(f"a session lease must last more than 0 s, not {lease_s!r}")
        self.database = database
        self.transactions = Transactions(database, lease_s)
        migrate(self.transactions)
        self.leases = Leases(self.transactions)
        self.catalog = Catalog(self.transactions)
        self.histories = Histories(self.transactions)
        self.turns_table = Turns(self.transactions)
        self.calls_table = Calls(self.transactions)
        self.mail_table = MailTable(self.transactions)
        self.run_usage = RunUsage(self.transactions)
        self.recordings = Recordings(self.transactions)
        # leases
        self.renew = self.leases.renew
        self.release = self.leases.release
        self.is_held = self.leases.is_held
        # sessions as a whole
        self.session = self.catalog.session
        self.sessions = self.catalog.sessions
        self.set_status = self.catalog.set_status
        self.delete = self.catalog.delete
        self.standing = self.catalog.standing
        self.set_holder = self.catalog.set_holder
        self.holder = self.catalog.holder
        # histories
        self.append_messages = self.histories.append_messages
        self.reset_history = self.histories.reset_history
        self.history = self.histories.history
        self.agents = self.histories.agents
        # turns
        self.open_turn = self.turns_table.open_turn
        self.begin_turn = self.turns_table.begin_turn
        self.close_turn = self.turns_table.close_turn
        self.turns = self.turns_table.turns
        # calls
        self.record_calls = self.calls_table.record_calls
        self.save_call = self.calls_table.save_call
        self.set_call = self.calls_table.set_call
        self.decide_call = self.calls_table.decide_call
        self.calls = self.calls_table.calls
        self.find_call = self.calls_table.find_call
        self.waiting_calls = self.calls_table.waiting_calls
        # mail
        self.queue_mail = self.mail_table.queue_mail
        self.set_mail = self.mail_table.set_mail
        self.has_mail = self.mail_table.has_mail
        self.mail = self.mail_table.mail
        self.undelivered_mail = self.mail_table.undelivered
        # a run's usage
        self.save_usage = self.run_usage.save_usage
        self.usage = self.run_usage.usage

    @property
    def lease_s(self) -> float:
        """How long a session stays held without a sign of life from its owner."""
        return self.transactions.lease_s

    @lease_s.setter
    def lease_s(self, seconds: float) -> None:
        self.transactions.lease_s = seconds

    def hold(self, name: str, *, team: str, fingerprint: str, config: dict[str, Any],
             owner: str) -> tuple[SessionInfo, bool]:
        """Hold session ``name`` for ``owner`` (creating it if new); whether it was created.
        Raises ``SessionInUseError`` if another live owner holds it. Every later write of
        the session through this store is fenced by the lease generation taken here."""
        _, created = self.leases.hold(name, team=team, fingerprint=fingerprint, config=config,
                                      owner=owner)
        info = self.session(name)
        assert info is not None
        return info, created

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Group the writes inside into one transaction (re-entrant)."""
        with self.transactions.transaction():
            yield

    def close(self) -> None:
        """Release the database connection."""
        self.transactions.close()

    def integrity_problems(self) -> list[str]:
        """The database's own consistency check (empty when all is well)."""
        return self.database.integrity_problems()


def lease_from_environment() -> float:
    """The lease length ``$AUTOBYTEUS_LIKE_LEASE_S`` asks for (30 s when unset)."""
    text = os.environ.get(LEASE_VARIABLE, "").strip()
    if not text:
        return DEFAULT_LEASE_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise StoreError(f"${LEASE_VARIABLE}: expected a number of seconds above 0, "
                         f"not {text!r}")
    return seconds


def open_store(location: str | Path, *, durability: Durability = "process",
               lease_s: float | None = None) -> SessionStore:
    """The session store at ``location``: a PostgreSQL URL (``postgresql://...``), a SQLite
    URL (``sqlite:///path``) or a file path. ``durability="power"`` makes SQLite sync every
    commit to disk (PostgreSQL commits are durable as the server is configured). ``lease_s``:
    how long a session stays held without a sign of life (default ``$AUTOBYTEUS_LIKE_LEASE_S``
    or 30 s)."""
    lease = lease_from_environment() if lease_s is None else lease_s
    text = str(location)
    if text.startswith(("postgresql://", "postgres://")):
        return SessionStore(PostgresDatabase(text, idle_in_transaction_s=lease), lease_s=lease)
    if text.startswith("sqlite:///"):
        text = text.removeprefix("sqlite:///")
    return SessionStore(SqliteDatabase(Path(text), durability), lease_s=lease)
