"""A faster mailbox for our actors, and one that also keeps time for the agent's deadlines.

pykka's threading actors use ``queue.Queue``, whose Python-level condition variable made a
``tell`` to a sleeping actor cost ~27 us of the sender's CPU on the reference machine; the C
``queue.SimpleQueue`` does the same in ~10 us. pykka only needs ``put``, ``get`` and ``empty``
from an inbox, and lets an actor type choose its inbox, so our actors use it.

``DeadlineInbox`` is that mailbox with a clock: while its owner has deadlines (tool timeouts),
waiting for the next message stops at the earliest one and hands the actor ``DEADLINES_DUE``
instead (and a deadline already due goes before any waiting message, so a busy mailbox cannot
starve it), so the actor fires them itself and no thread sleeps just to keep time.

Our actors' threads are daemon threads: stopping an agent joins them, and one that could not be
stopped (a provider stream that cannot be cut) never keeps the interpreter from exiting.
"""

from __future__ import annotations

import queue
from typing import Any

import pykka

from autobyteus_like.agent._deadlines import Deadlines

__all__ = ["DEADLINES_DUE", "DeadlineInbox", "FastInboxActor"]


class FastInboxActor(pykka.ThreadingActor):
    """A ``ThreadingActor`` whose mailbox is a ``queue.SimpleQueue``, on a daemon thread."""

    use_daemon_thread = True

    @staticmethod
    def _create_actor_inbox() -> Any:
        return queue.SimpleQueue()


class _DeadlinesDue:
    """The message an actor gets when a deadline passed before any other message came."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEADLINES_DUE"


DEADLINES_DUE = _DeadlinesDue()


class _Envelope:
    """What pykka's loop reads from an inbox: the message, and no one waiting for a reply."""

    __slots__ = ("message", "reply_to")

    def __init__(self, message: object) -> None:
        self.message = message
        self.reply_to = None


_DUE = _Envelope(DEADLINES_DUE)


class DeadlineInbox(queue.SimpleQueue[Any]):
    """A ``SimpleQueue`` whose blocking ``get`` gives up at the owner's earliest deadline."""

    def __init__(self) -> None:
        super().__init__()
        self.deadlines: Deadlines | None = None
        """The owner's deadlines (set once it made them)."""

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        deadlines = self.deadlines
        if deadlines is None or not block or timeout is not None:
            return _get(self, block, timeout)
        if not deadlines.entries:  # (most waits: no tool call is running)
            return _get(self)
        wait = deadlines.wait_s()
        if wait is None:
            return _get(self)
        if wait <= 0:  # due already: before the next message, however many are waiting
            return _DUE
        try:
            return _get(self, True, wait)
        except queue.Empty:
            return _DUE


_get = queue.SimpleQueue.get
"""The C ``get`` itself (no ``super()`` object per message)."""
