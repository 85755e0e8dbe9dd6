"""Event subscriptions: every event an agent handles, delivered to each subscriber in order.

A thread reads an ``EventSubscription`` (``get``, iteration); asyncio code reads an
``AsyncEventSubscription``, which the publishing thread feeds straight into the loop's own
``asyncio.Queue`` with ``call_soon_threadsafe``: no thread hop per event, and nothing of ours
keeps a loop from finishing when its reader stops (a timeout, a cancelled task).
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator

from autobyteus_like.events import AgentEvent

__all__ = ["AsyncEventSubscription", "EventPublisher", "EventSubscription"]

_END = object()


class _Sources:
    """How many publishers a subscription still listens to; it ends when none is left."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._publishers: list[EventPublisher] = []
        self._open = 0

    def attach(self, publisher: EventPublisher) -> None:
        with self._lock:
            self._publishers.append(publisher)
            self._open += 1

    def one_ended(self) -> bool:
        """A publisher closed; True when that was the last one."""
        with self._lock:
            self._open -= 1
            return self._open <= 0

    def detach_all(self) -> list[EventPublisher]:
        with self._lock:
            publishers, self._publishers, self._open = self._publishers, [], 1
        return publishers


class EventSubscription:
    """An iterator over events from the moment of subscribing until every source stops (or
    ``close``). ``get(timeout)`` waits for one event; iteration blocks between events. One
    subscription can listen to several publishers (a team's members), in arrival order."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._sources = _Sources()
        self._ended = False

    def _attached(self, publisher: EventPublisher) -> None:
        self._sources.attach(publisher)

    def _put(self, item: object) -> None:
        self._queue.put(item)

    def get(self, timeout: float | None = None) -> AgentEvent | None:
        """The next event, or None once every source has stopped; ``TimeoutError`` on timeout."""
        while not self._ended:
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"no event within {timeout} s") from None
            if item is not _END:
                assert isinstance(item, AgentEvent)
                return item
            self._ended = self._sources.one_ended()
        return None

    def __iter__(self) -> Iterator[AgentEvent]:
        while (event := self.get()) is not None:
            yield event

    def close(self) -> None:
        """Stop receiving events; iteration ends."""
        for publisher in self._sources.detach_all():
            publisher.unsubscribe(self)
        self._put(_END)

    def __enter__(self) -> EventSubscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEventSubscription(EventSubscription):
    """``async for event in subscription`` on the loop that created it. Events are handed to
    the loop as they are published; if the loop is gone they are dropped, never blocking the
    agent."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__()
        self._loop = loop or asyncio.get_running_loop()
        self._async_queue: asyncio.Queue[object] = asyncio.Queue()

    def _put(self, item: object) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody reads any more
            self._loop.call_soon_threadsafe(self._async_queue.put_nowait, item)

    def get(self, timeout: float | None = None) -> AgentEvent | None:
        raise TypeError("an AsyncEventSubscription is read with 'async for' or next_event()")

    async def next_event(self) -> AgentEvent | None:
        """The next event, or None once every source has stopped."""
        while not self._ended:
            item = await self._async_queue.get()
            if item is not _END:
                assert isinstance(item, AgentEvent)
                return item
            self._ended = self._sources.one_ended()
        return None

    def ready(self) -> list[AgentEvent]:
        """The events already waiting, without waiting for more (a reader that sends them on
        in batches)."""
        events = []
        while not self._ended and not self._async_queue.empty():
            item = self._async_queue.get_nowait()
            if item is _END:
                self._ended = self._sources.one_ended()
            else:
                assert isinstance(item, AgentEvent)
                events.append(item)
        return events

    def __iter__(self) -> Iterator[AgentEvent]:
        raise TypeError("an AsyncEventSubscription is read with 'async for'")

    async def __aiter__(self) -> AsyncIterator[AgentEvent]:
        try:
            while (event := await self.next_event()) is not None:
                yield event
        finally:
            self.close()  # the reader left (break, cancel, timeout): stop feeding the loop


class EventPublisher:
    """Fans events out to subscriptions; safe to subscribe from any thread."""

    def __init__(self) -> None:
        self.subscribers: tuple[EventSubscription, ...] = ()
        """Who listens right now (replaced whole, never changed in place: read it freely)."""
        self._lock = threading.Lock()
        self._closed = False
        self._watchers: list[Callable[[bool], None]] = []

    @property
    def has_subscribers(self) -> bool:
        """Whether anyone listens right now."""
        return bool(self.subscribers)

    def watch(self, watcher: Callable[[bool], None]) -> None:
        """Call ``watcher(listened)`` now and each time the subscriptions change, with whether
        anyone listens (an agent decides once per change, not per event, what to build)."""
        with self._lock:
            self._watchers.append(watcher)
            watcher(bool(self.subscribers))

    def unwatch(self, watcher: Callable[[bool], None]) -> None:
        """Stop calling ``watcher``."""
        with self._lock:
            self._watchers = [w for w in self._watchers if w != watcher]  # bound methods: ==

    def _changed(self) -> None:
        """Tell the watchers (under the lock, so they see the changes in order)."""
        for watcher in self._watchers:
            watcher(bool(self.subscribers))

    def subscribe(self, subscription: EventSubscription | None = None) -> EventSubscription:
        """A new subscription, or ``subscription`` made to listen here too (already ended if
        the publisher is closed)."""
        subscription = subscription or EventSubscription()
        subscription._attached(self)
        with self._lock:
            if self._closed:
                subscription._put(_END)
            else:
                self.subscribers = (*self.subscribers, subscription)
                self._changed()
        return subscription

    def unsubscribe(self, subscription: EventSubscription) -> None:
        """Remove a subscription."""
        with self._lock:
            self.subscribers = tuple(s for s in self.subscribers if s is not subscription)
            self._changed()

    def publish(self, event: AgentEvent) -> None:
        """Deliver ``event`` to every current subscriber."""
        for subscription in self.subscribers:
            subscription._put(event)

    def close(self) -> None:
        """End every subscription (the agent stopped)."""
        with self._lock:
            subscribers, self.subscribers, self._closed = self.subscribers, (), True
            self._changed()
        for subscription in subscribers:
            subscription._put(_END)
