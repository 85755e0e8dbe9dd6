"""The callers of one conversation, one at a time, in the order they came.

A team's answer is its coordinator's last answer once the team is quiet, so two messages in
flight at once in one conversation would share one answer. ``CallerQueue`` lets one caller in
at a time (threads and asyncio alike, first come first served); a ``CallerTurn`` is one
caller's place: it waits for its turn, starts its message, and takes the conversation's answer
at the moment the conversation is quiet again (on the publishing thread, before anyone else
can send), then lets the next caller in. A caller that gives up (a timeout, a cancelled task)
keeps its place until its message's work is done: the next caller's message never joins it.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, InvalidStateError
from concurrent.futures import TimeoutError as FutureTimeout

from autobyteus_like.agent._subscription import EventPublisher, EventSubscription
from autobyteus_like.errors import AgentStoppedError
from autobyteus_like.events import AgentEvent
from autobyteus_like.mail._events import TeamQuiescent

__all__ = ["CallerQueue", "CallerTurn"]

Outcome = tuple[str, BaseException | None]
"""The coordinator's answer and the error that ended the run (None: it answered)."""


class CallerQueue:
    """First come, first served: ``enter`` gives a ticket that resolves when its holder may
    go; ``leave`` passes the place on. ``close`` fails every waiting ticket (the team
    stopped; a later caller goes in, and finds the team stopped)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._waiting: deque[Future[None]] = deque()
        self._busy = False

    def enter(self) -> Future[None]:
        """A ticket: resolved at once when nobody is in, else when the callers before it
        left (failed with ``AgentStoppedError`` if the team stops first)."""
        ticket: Future[None] = Future()
        with self._lock:
            if not self._busy:
                self._busy = True
                ticket.set_running_or_notify_cancel()
                ticket.set_result(None)
            else:
                self._waiting.append(ticket)
        return ticket

    def leave(self) -> None:
        """The caller inside is done: the next one still waiting goes."""
        with self._lock:
            while self._waiting:
                ticket = self._waiting.popleft()
                if ticket.set_running_or_notify_cancel():  # False: its caller gave up
                    ticket.set_result(None)
                    return
            self._busy = False

    def give_up(self, ticket: Future[None]) -> None:
        """The ticket's caller stopped waiting: out of the queue, or, if its place came
        already, passed on."""
        if not ticket.cancel() and ticket.exception() is None:
            self.leave()

    def close(self) -> None:
        """The team stopped: every waiting caller fails (``AgentStoppedError``)."""
        error = AgentStoppedError(f"team {self.name!r} stopped before the run began")
        with self._lock:
            waiting, self._waiting = list(self._waiting), deque()
        for ticket in waiting:
            if ticket.set_running_or_notify_cancel():
                ticket.set_exception(error)


class CallerTurn:
    """One caller's run of a conversation. ``wait``/``await_place`` for its place, ``begin``
    its message, ``result``/``aresult`` for the answer, ``release`` when the caller is done
    with the conversation (the next caller goes once the run is quiet too)."""

    def __init__(self, queue: CallerQueue, publisher: EventPublisher,
                 read: Callable[[TeamQuiescent], Outcome]) -> None:
        self._queue = queue
        self._publisher = publisher
        self._read = read
        self._ticket = queue.enter()
        self._lock = threading.Lock()
        self._holds = 2  # the run is quiet (or never began), and the caller released it
        self._latch: _QuietLatch | None = None
        self.began = False
        """Whether ``begin`` started a run (its ``start`` did not return False)."""
        self.outcome: Future[str] = Future()
        """The answer to this caller's message (or its error), set when the run is quiet."""

    # -- the place ---------------------------------------------------------------------------

    def wait(self, timeout: float | None) -> None:
        """Wait for the place (from a thread); ``TimeoutError`` (having given it up)."""
        try:
            self._ticket.result(timeout)
        except FutureTimeout:
            self._queue.give_up(self._ticket)
            raise TimeoutError(f"team {self._queue.name!r}: the callers before this one were "
                               f"still running after {timeout} s") from None

    async def await_place(self) -> None:
        """Wait for the place (in asyncio, without a thread); a cancelled wait gives it up."""
        try:
            await asyncio.shield(asyncio.wrap_future(self._ticket))
        except asyncio.CancelledError:
            self._queue.give_up(self._ticket)
            raise

    # -- the run -----------------------------------------------------------------------------

    def begin(self, start: Callable[[], object]) -> None:
        """Listen for the conversation's quiet, then ``start`` the run (send the message). A
        ``start`` that raises, or returns False (nothing to run), ends the run at once."""
        latch = _QuietLatch(self)
        self._latch = latch
        self._publisher.subscribe(latch)
        try:
            started = start()
        except BaseException as exc:
            self._settle(("", exc))
            raise
        if started is False:
            self._settle(("", None))
        else:
            self.began = True

    def result(self, timeout: float | None) -> str:
        """The answer, once the run is quiet (from a thread)."""
        try:
            return self.outcome.result(timeout)
        except FutureTimeout:
            raise TimeoutError(f"team {self._queue.name!r} was still busy after {timeout} s"
                               ) from None

    async def aresult(self) -> str:
        """The answer, once the run is quiet (in asyncio)."""
        return await asyncio.shield(asyncio.wrap_future(self.outcome))

    def release(self) -> None:
        """The caller is done: its place passes on once its run is quiet (at once if it is,
        or if its run never began)."""
        if self._ticket.done() and not self._ticket.cancelled() and \
                self._ticket.exception() is None:
            if self._latch is None:  # holding the place, nothing begun
                self._settle(("", None))
            self._drop()
        else:
            self._queue.give_up(self._ticket)

    def _settle(self, outcome: Outcome, listening: bool = True) -> None:
        """The run is quiet (or stopped, or never began): keep its answer, once.
        ``listening``: whether the latch may still be subscribed (not at the publisher's end,
        told under the publisher's lock)."""
        latch = self._latch
        if latch is not None and listening:
            self._publisher.unsubscribe(latch)
        if self.outcome.done():
            return
        answer, error = outcome
        try:
            if error is None:
                self.outcome.set_result(answer)
            else:
                self.outcome.set_exception(error)
        except (InvalidStateError, CancelledError):
            return
        self._drop()

    def _drop(self) -> None:
        with self._lock:
            self._holds -= 1
            last = self._holds == 0
        if last:
            self._queue.leave()


class _QuietLatch(EventSubscription):
    """Subscribed just before a caller's message goes: the first quiet of the conversation
    after it settles that caller's outcome, on the publishing thread (the next caller can
    only send once it has). The end of the events (the team stopped) settles it too."""

    def __init__(self, turn: CallerTurn) -> None:
        super().__init__()
        self._turn = turn
        self._sink = self._put  # publishers hand events to the sink: here, the latch itself

    def _put(self, item: object) -> None:
        if isinstance(item, TeamQuiescent):
            self._turn._settle(self._turn._read(item))
        elif not isinstance(item, AgentEvent):  # the end: the team stopped
            self._turn._settle(("", AgentStoppedError(
                f"team {self._turn._queue.name!r} stopped before the run finished")), False)
