"""Leases: which process holds a session, until when, and under which generation.

A holder takes a session in a write transaction; its lease runs ``lease_s`` and is renewed by
a sign of life. A lease whose time is over, or whose owner process is gone on this host, is
taken over, and every take-over raises the session's **generation**: the fencing token every
later write of the old holder is checked against (see ``transactions.py``), so a holder that
was paused past its lease (a stopped process, a debugger, a long GC) can never write again.
"""

from __future__ import annotations

import os
import secrets
import socket

from loguru import logger

from autobyteus_like.errors import SessionInUseError, SessionLostError
from autobyteus_like.store._database import Database
from autobyteus_like.store._schema import document
from autobyteus_like.store._transactions import Transactions, now_ms

__all__ = ["Leases", "owner_is_gone", "process_owner"]


def process_owner() -> str:
    """A new lease owner in this process: ``host:pid:token`` (two holders in one process
    are two owners; the pid says whether the holder is still alive)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def owner_is_gone(owner: str) -> bool:
    """Whether a lease's owner is a process of this host that no longer exists."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class Leases:
    """The lease columns of the sessions table."""

    def __init__(self, transactions: Transactions) -> None:
        self._tx = transactions

    @property
    def _lease_ms(self) -> int:
        return int(self._tx.lease_s * 1000)

    def hold(self, name: str, *, team: str, fingerprint: str, config: dict[str, object],
             owner: str) -> tuple[int, bool]:
        """Hold session ``name`` for ``owner`` (creating it if new): the new generation, and
        whether the session was created. ``SessionInUseError`` if another live owner holds
        it. From now on this store's writes of the session are fenced by that generation."""

        def take(database: Database) -> tuple[int, bool]:
            now = now_ms()
            lock = " FOR UPDATE" if database.dialect == "postgres" else ""
            rows = database.execute(
                f"SELECT owner, lease_until_ms, generation FROM sessions WHERE name = ?{lock}",
                (name,))
            if not rows:
                database.execute(
                    "INSERT INTO sessions (name, team, fingerprint, config, created_ms, "
                    "updated_ms, status, owner, lease_until_ms, generation) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)",
                    (name, team, fingerprint, document(config), now, now, "active", owner,
                     now + self._lease_ms))
                return 1, True
            holder, until, generation = rows[0]
            if (holder and holder != owner and until is not None and until > now
                    and not owner_is_gone(holder)):
                raise SessionInUseError(name, holder, until)
            database.execute(
                "UPDATE sessions SET owner = ?, lease_until_ms = ?, updated_ms = ?, "
                "generation = ? WHERE name = ?",
                (owner, now + self._lease_ms, now, int(generation) + 1, name))
            return int(generation) + 1, False

        generation, created = self._tx.write(None, take)
        self._tx.fence(name, owner, generation)
        return generation, created

    def renew(self, name: str, owner: str) -> None:
        """Extend ``owner``'s lease on the session (a sign of life); ``SessionLostError`` if
        another process took it over."""
        fence = self._tx.held(name)

        def extend(database: Database) -> None:
            database.execute(
                "UPDATE sessions SET lease_until_ms = ? WHERE name = ? AND owner = ?",
                (now_ms() + self._lease_ms, name, owner))

        self._tx.write(name if fence is not None and fence.owner == owner else None, extend)

    def release(self, name: str, owner: str, status: str | None = None
                ) -> SessionLostError | None:
        """Give the session up (and record where it stands). A holder that lost the session
        gives up nothing: it is someone else's now; the loss is returned, for the holder to
        say so."""
        fence = self._tx.held(name)
        fenced = fence is not None and fence.owner == owner
        if fenced and fence is not None and fence.lost_to is not None:
            self._tx.unfence(name)
            return SessionLostError(name, fence.generation,
                                    None if fence.lost_to < 0 else fence.lost_to)

        def give_up(database: Database) -> None:
            database.execute(
                "UPDATE sessions SET owner = NULL, lease_until_ms = NULL, updated_ms = ? "
                "WHERE name = ? AND owner = ?", (now_ms(), name, owner))
            if status is not None:
                database.execute("UPDATE sessions SET status = ? WHERE name = ?",
                                 (status, name))

        try:
            if fenced and fence is not None and fence.broken is not None:
                fence.broken = None  # giving the lease up is allowed after a failed write
            self._tx.write(name if fenced else None, give_up)
        except SessionLostError as exc:
            logger.warning("{}", exc)
            return exc
        finally:
            if fenced:
                self._tx.unfence(name)
        return None

    def generation(self, name: str, owner: str) -> int:
        """The generation of ``owner``'s lease on the session (0 when ``owner`` does not hold
        it: a fence of that generation refuses every write)."""
        rows = self._tx.rows("SELECT owner, generation FROM sessions WHERE name = ?", name)
        return int(rows[0][1]) if rows and rows[0][0] == owner else 0

    def is_held(self, name: str) -> str | None:
        """The live process holding the session, if one does."""
        rows = self._tx.rows("SELECT owner, lease_until_ms FROM sessions WHERE name = ?", name)
        if not rows or not rows[0][0] or rows[0][1] is None:
            return None
        owner, until = str(rows[0][0]), int(rows[0][1])
        if until <= now_ms() or owner_is_gone(owner):
            return None
        return owner
