"""Transactions: the one place a session store touches its database.

Every write is an operation (a function of the database) run inside a transaction; several
group into one with ``transaction()``. Three rules hold for every write, so the tables above
need no care of their own:

- **Fencing.** A session this store holds (``fence``) is held under a lease generation that
  grows with every take-over. Each transaction that writes to it first checks, inside the same
  transaction, that the session's row still carries this holder's generation (on PostgreSQL with
  the row locked ``FOR SHARE``, so a take-over waits for the transaction or the transaction
  sees the take-over). A refused write raises ``SessionLostError`` and nothing of its
  transaction is stored; every later write of that session is refused at once.
- **Retry without double application.** A transaction that failed in a way worth trying again
  (a dropped PostgreSQL connection, a deadlock) is run again from its recorded operations on a
  new connection, for as long as the lease lasts. A ``COMMIT`` whose connection dropped is
  ambiguous; each transaction therefore writes a token of its own (``commits``), and a retry
  first looks for it: found, the transaction was applied and is not applied again.
- **A failed write stops the session's writing.** After any other failure (a statement or lock
  timeout, a locked SQLite file) the transaction is rolled back and the session is marked
  broken for this holder: every later write of it is refused (its lease may still be given
  up), so what the store holds stays the last consistent point, an unfinished turn that the
  next run resumes, never a turn closed over a call without its result.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from loguru import logger

from autobyteus_like.errors import SessionLostError, StoreError, TransientStoreError
from autobyteus_like.store._database import Database

__all__ = ["Fence", "Operation", "Transactions", "now_ms"]

T = TypeVar("T")
Operation = Callable[[Database], T]
"""A unit of a transaction: statements run on the database, the same however often run."""

_ATTEMPTS = 5
"""How often one step is tried when each try meets a deadlock or a dropped connection."""

_COMMITS_KEPT_MS = 24 * 3600 * 1000
"""How long a transaction's token is kept (long past any retry of it)."""


def now_ms() -> int:
    """The wall clock in milliseconds (leases are compared across processes)."""
    return int(time.time() * 1000)


@dataclass
class Fence:
    """This store's hold on one session: its owner name and lease generation."""

    owner: str
    generation: int
    lost_to: int | None = None
    """The generation that took the session over (-1 when the session was removed)."""
    broken: str | None = None
    """Why a write of the session failed (nothing more is written by this holder)."""


class Transactions:
    """One database, one lock, re-entrant transactions; safe for the threads of a process."""

    def __init__(self, database: Database, lease_s: float) -> None:
        self.database = database
        self.lease_s = lease_s
        self._lock = threading.RLock()
        self._depth = 0
        self._done: list[Operation[Any]] = []
        self._touched: set[str] = set()
        self._writing: set[str] = set()
        self._token = ""
        self._open = False
        self._fences: dict[str, Fence] = {}

    def close(self) -> None:
        """Release the database connection (after any transaction under way)."""
        with self._lock:
            self.database.close()

    # -- the fences --------------------------------------------------------------------------

    def fence(self, session: str, owner: str, generation: int) -> None:
        """From now on, writes of ``session`` are conditional on ``generation``."""
        with self._lock:
            self._fences[session] = Fence(owner, generation)

    def unfence(self, session: str) -> None:
        """This store no longer holds ``session``."""
        with self._lock:
            self._fences.pop(session, None)

    def held(self, session: str) -> Fence | None:
        """The hold this store has on ``session``, if any."""
        with self._lock:
            return self._fences.get(session)

    def _check(self, session: str) -> None:
        """Refuse a write of a session this store held and lost, or whose writing broke."""
        fence = self._fences.get(session)
        if fence is None:
            return
        if fence.lost_to is not None:
            raise SessionLostError(session, fence.generation,
                                   None if fence.lost_to < 0 else fence.lost_to)
        if fence.broken is not None:
            raise StoreError(f"session {session!r}: an earlier write failed ({fence.broken}); "
                             "this process writes nothing more to it; run it again to resume")
        if session in self._touched:
            return
        lock = " FOR SHARE" if self.database.dialect == "postgres" else ""
        rows = self.database.execute(
            f"SELECT owner, generation FROM sessions WHERE name = ?{lock}", (session,))
        if not rows:
            fence.lost_to = -1
        elif rows[0][0] != fence.owner or int(rows[0][1]) != fence.generation:
            fence.lost_to = int(rows[0][1])
        if fence.lost_to is not None:
            raise SessionLostError(session, fence.generation,
                                   None if fence.lost_to < 0 else fence.lost_to)
        self._touched.add(session)

    # -- reads and writes --------------------------------------------------------------------

    def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """One read (retried on a new connection when the old one dropped)."""
        with self._lock:
            if self._depth:
                return self.database.execute(sql, params)
            return self._retrying(lambda: self.database.execute(sql, params))

    def write(self, session: str | None, operation: Operation[T]) -> T:
        """Run ``operation`` in the current transaction (or one of its own), after checking
        this store's hold on ``session`` (None: a write that needs no hold)."""
        with self.transaction():
            return self._apply(session, operation)

    def _apply(self, session: str | None, operation: Operation[T]) -> T:
        step = _fenced(session, operation, self._check)
        if session is not None:
            self._writing.add(session)
        if not self._open:  # begun at the first write: a BEGIN that fails is that write's
            self._retrying(self.database.begin)
            self._open = True
        for attempt in range(_ATTEMPTS):
            try:
                result = step(self.database)
                break
            except TransientStoreError as exc:
                if attempt == _ATTEMPTS - 1:
                    raise StoreError(f"{exc} (tried {_ATTEMPTS} times)") from exc
                # the transaction so far is gone: redo it (on a new connection), then this step
                self._recover(exc)
        self._done.append(step)
        return result

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Group the writes inside into one transaction (re-entrant)."""
        with self._lock:
            outer = self._depth == 0
            if outer:
                self._begin()
            self._depth += 1
            try:
                yield
            except BaseException as exc:
                self._depth -= 1
                if outer:
                    self._abandon(exc)
                raise
            self._depth -= 1
            if outer:
                self._commit()

    # -- the transaction's life --------------------------------------------------------------

    def _begin(self) -> None:
        self._done = []
        self._touched = set()
        self._writing = set()
        self._token = secrets.token_hex(12)
        self._open = False

    def _commit(self) -> None:
        if not self._open:
            return  # nothing was written
        try:
            try:
                if self.database.can_lose_connection:
                    self.database.execute("INSERT INTO commits (token, at_ms) VALUES (?, ?)",
                                          (self._token, now_ms()))
                self.database.commit()
            except TransientStoreError as exc:
                self._commit_after(exc)
        except StoreError as exc:
            self._abandon(exc)
            raise
        self._open = False
        self._done = []

    def _commit_after(self, failure: TransientStoreError) -> None:
        """Commit again after ``failure``, unless the first commit was applied."""
        deadline = time.monotonic() + self.lease_s
        while True:
            try:
                self._reconnected(failure, deadline)
                if self.database.execute("SELECT 1 FROM commits WHERE token = ?",
                                         (self._token,)):
                    return  # the dropped COMMIT was applied: never apply it twice
                self._replay()
                self.database.execute("INSERT INTO commits (token, at_ms) VALUES (?, ?)",
                                      (self._token, now_ms()))
                self.database.commit()
                return
            except TransientStoreError as again:
                failure = again

    def _abandon(self, failure: BaseException) -> None:
        """Roll back; a failed write of a held session stops its writing (see the module)."""
        if self._open:
            self._open = False
            self.database.rollback()
        if isinstance(failure, StoreError) and not isinstance(failure, SessionLostError):
            for session in self._writing:
                fence = self._fences.get(session)
                if fence is not None and fence.broken is None:
                    fence.broken = str(failure).splitlines()[0]
        self._done = []

    def _recover(self, failure: TransientStoreError) -> None:
        """Start the transaction again and redo what it had done (raises once the lease is
        over or a redo fails for good)."""
        deadline = time.monotonic() + self.lease_s
        while True:
            try:
                self._reconnected(failure, deadline)
                self._replay()
                return
            except TransientStoreError as again:
                failure = again

    def _reconnected(self, failure: TransientStoreError, deadline: float) -> None:
        """A fresh transaction after ``failure`` (a new connection if it dropped)."""
        delay = 0.05
        while True:
            if time.monotonic() > deadline:
                raise StoreError(f"{failure} (gave up retrying after {self.lease_s:g} s)")
            try:
                if failure.connection_lost:
                    self.database.reconnect()
                    _prune(self.database)
                self.database.begin()
                return
            except StoreError as exc:
                logger.warning("session store: retrying after: {}", str(exc).splitlines()[0])
                if isinstance(exc, TransientStoreError):
                    failure = exc
                time.sleep(delay)  # the server is away: nothing to wait on but time
                delay = min(delay * 2, 1.0)

    def _replay(self) -> None:
        self._touched = set()
        for step in self._done:
            step(self.database)

    def _retrying(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except TransientStoreError as exc:
            if not exc.connection_lost:
                raise
            deadline = time.monotonic() + self.lease_s
            while True:
                try:
                    if time.monotonic() > deadline:
                        raise StoreError(f"{exc} (gave up after {self.lease_s:g} s)") from exc
                    self.database.reconnect()
                    return call()
                except TransientStoreError as again:
                    exc = again
                    time.sleep(0.1)
                except StoreError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)


def _fenced(session: str | None, operation: Operation[T],
            check: Callable[[str], None]) -> Operation[T]:
    """``operation``, preceded by the fence check of ``session``."""
    if session is None:
        return operation

    def step(database: Database) -> T:
        check(session)
        return operation(database)

    return step


def _prune(database: Database) -> None:
    """Forget the tokens of transactions long past (on a new connection: cheap, rare)."""
    try:
        database.execute("DELETE FROM commits WHERE at_ms < ?", (now_ms() - _COMMITS_KEPT_MS,))
    except TransientStoreError:
        raise
    except StoreError:  # a store still being created has no such table yet
        pass
