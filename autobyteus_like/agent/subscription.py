"""Event subscriptions: every event an agent handles, delivered to each subscriber in order."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import AsyncIterator, Iterator

from autobyteus_like.events import AgentEvent

__all__ = ["EventPublisher", "EventSubscription"]

_END = object()


class EventSubscription:
    """An iterator over events from the moment of subscribing until every source stops (or
    ``close``). ``get(timeout)`` waits for one event; iteration blocks between events. One
    subscription can listen to several publishers (a team's members), in arrival order."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._publishers: list[EventPublisher] = []
        self._open_sources = 0
        self._lock = threading.Lock()
        self._ended = False

    def _attached(self, publisher: EventPublisher) -> None:
        with self._lock:
            self._publishers.append(publisher)
            self._open_sources += 1

    def _put(self, item: object) -> None:
        self._queue.put(item)

    def get(self, timeout: float | None = None) -> AgentEvent | None:
        """The next event, or None once the agent has stopped; ``TimeoutError`` on timeout."""
        if self._ended:
            return None
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no event within {timeout} s") from None
        if item is _END:
            with self._lock:
                self._open_sources -= 1
                self._ended = self._open_sources <= 0
            return None if self._ended else self.get(timeout)
        assert isinstance(item, AgentEvent)
        return item

    def __iter__(self) -> Iterator[AgentEvent]:
        while (event := self.get()) is not None:
            yield event

    async def __aiter__(self) -> AsyncIterator[AgentEvent]:
        while (event := await asyncio.to_thread(self.get)) is not None:
            yield event

    def close(self) -> None:
        """Stop receiving events; iteration ends."""
        with self._lock:
            publishers, self._publishers = self._publishers, []
            self._open_sources = 1
        for publisher in publishers:
            publisher.unsubscribe(self)
        self._queue.put(_END)

    def __enter__(self) -> EventSubscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventPublisher:
    """Fans events out to subscriptions; safe to subscribe from any thread."""

    def __init__(self) -> None:
        self._subscribers: tuple[EventSubscription, ...] = ()
        self._lock = threading.Lock()
        self._closed = False

    @property
    def has_subscribers(self) -> bool:
        """Whether anyone listens right now."""
        return bool(self._subscribers)

    def subscribe(self, subscription: EventSubscription | None = None) -> EventSubscription:
        """A new subscription, or ``subscription`` made to listen here too (already ended if
        the publisher is closed)."""
        subscription = subscription or EventSubscription()
        subscription._attached(self)
        with self._lock:
            if self._closed:
                subscription._put(_END)
            else:
                self._subscribers = (*self._subscribers, subscription)
        return subscription

    def unsubscribe(self, subscription: EventSubscription) -> None:
        """Remove a subscription."""
        with self._lock:
            self._subscribers = tuple(s for s in self._subscribers if s is not subscription)

    def publish(self, event: AgentEvent) -> None:
        """Deliver ``event`` to every current subscriber."""
        for subscription in self._subscribers:
            subscription._put(event)

    def close(self) -> None:
        """End every subscription (the agent stopped)."""
        with self._lock:
            subscribers, self._subscribers, self._closed = self._subscribers, (), True
        for subscription in subscribers:
            subscription._put(_END)
