"""The replies a member owes, settled and failed one way for every runtime: a turn's end
settles its reply (``settle``), and a stop fails every reply still owed at once with one
wording (``fail_every``). The local agent's replies travel with its turns (its actor fails
those of the turn running and the messages waiting); a member in a Ray actor keeps them here,
by message id (``PendingReplies``), until its host reports the turn's end."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future

from autobyteus_like.errors import AgentStoppedError, AgentTurnError, OwnThreadError

__all__ = ["PendingReplies", "fail_every", "not_running", "on_own_thread", "settle",
           "stopped_before_the_end"]


def not_running(member: str, how: str = "with agent:") -> AgentStoppedError:
    """The error for a message given to a member that is not running."""
    return AgentStoppedError(f"agent {member!r} is not running; use '{how}' first")


def on_own_thread(member: str, what: str) -> OwnThreadError:
    """The error for ``what`` (a call that waits for the member) made on its own thread."""
    return OwnThreadError(f"agent {member!r}: {what} cannot be used on the agent's own "
                          "threads (a hook, a handler or a tool would wait for itself); "
                          "call it from another thread (send() does not wait)")


def stopped_before_the_end(member: str) -> AgentStoppedError:
    """The error of every reply still owed when a member stops."""
    return AgentStoppedError(f"agent {member!r} stopped before the turn finished")


class PendingReplies:
    """Replies owed by the member ``member``, by message id (any thread). Each may name its
    owner: the process that took the message (a Ray member's incarnation)."""

    def __init__(self, member: str) -> None:
        self.member = member
        self._lock = threading.Lock()
        self._owed: dict[str, Future[str]] = {}
        self._owners: dict[str, str] = {}

    def add(self, message_id: str, reply: Future[str] | None = None,
            owner: str = "") -> Future[str]:
        """Owe a reply to ``message_id`` (a new future unless one is given)."""
        reply = Future() if reply is None else reply
        with self._lock:
            self._owed[message_id] = reply
            if owner:
                self._owners[message_id] = owner
        return reply

    def own(self, message_id: str, owner: str) -> None:
        """``owner`` took the message ``message_id``."""
        with self._lock:
            if message_id in self._owed:
                self._owners[message_id] = owner

    def take(self, message_id: str) -> Future[str] | None:
        """The reply owed to ``message_id``, no longer owed (None if it was not)."""
        with self._lock:
            self._owners.pop(message_id, None)
            return self._owed.pop(message_id, None)

    def answer(self, message_id: str, answer: str | None, error: str | None) -> bool:
        """Settle one reply: its answer, or an ``AgentTurnError`` saying ``error``; whether it
        was owed."""
        reply = self.take(message_id)
        if reply is None:
            return False
        settle(reply, self.member, answer or "", error)
        return True

    def fail(self, message_id: str, why: str) -> None:
        """Fail one reply with an ``AgentTurnError`` saying ``why``."""
        reply = self.take(message_id)
        if reply is not None and not reply.done():
            reply.set_exception(AgentTurnError(self.member, why))

    def fail_all(self, error: BaseException | None = None,
                 owned_by: Callable[[str], bool] | None = None) -> None:
        """Fail every reply still owed (only those whose owner ``owned_by`` accepts, when
        given): with ``error``, by default the one wording of a stop."""
        with self._lock:
            if owned_by is None:
                owed, self._owed, self._owners = self._owed, {}, {}
            else:
                owed = {key: reply for key, reply in self._owed.items()
                        if owned_by(self._owners.get(key, ""))}
                for key in owed:
                    del self._owed[key]
                    self._owners.pop(key, None)
        fail_every(owed.values(), self.member, error)


def fail_every(replies: Iterable[Future[str] | None], member: str,
               error: BaseException | None = None) -> None:
    """Fail each reply not yet done: with ``error``, by default the one wording of a stop."""
    error = stopped_before_the_end(member) if error is None else error
    for reply in replies:
        if reply is not None and not reply.done():
            reply.set_exception(error)


def settle(reply: Future[str], member: str, answer: str, error: str | None) -> None:
    """Complete ``reply`` with ``answer``, or an ``AgentTurnError`` saying ``error``."""
    if reply.done():
        return
    if error is None:
        reply.set_result(answer)
    else:
        reply.set_exception(AgentTurnError(member, error))
