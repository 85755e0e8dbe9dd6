"""Streaming one turn to the caller: ``with agent.stream(message) as s`` and its asyncio twin.

A stream is a subscriber to the agent's events, opened before the message is sent, that keeps
only the events of that message's turn (an agent runs one turn at a time: ``TurnFilter``).
``text()`` gives the model's text as it arrives (``AssistantTextDelta``: the parser's prose,
never a call's markup), ``events()`` every event of the turn, ``result()`` the answer (typed,
for an agent with an output type).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from autobyteus_like.agent._subscription import AsyncEventSubscription, EventSubscription
from autobyteus_like.events import (
    AgentEvent,
    AssistantTextDelta,
    ConversationReset,
    LLMRequestStarted,
    TurnCompleted,
    UserMessageReceived,
)

__all__ = [
    "AnswerStream",
    "AsyncAnswerStream",
    "SubscribedStream",
    "TurnFilter",
]

Submit = Callable[[], tuple[int, "Future[str]"]]
"""Sends the message; its turn id and the future of its answer."""


class TurnFilter:
    """Tells the events of one turn from the rest, seen in the agent's order: they begin with
    its first request (its message may have waited behind another turn) and end with its
    ``TurnCompleted``; messages arriving meanwhile are not the turn's."""

    def __init__(self) -> None:
        self.turn_id: int | None = None
        self.begun = False
        self.done = False

    def keep(self, event: AgentEvent) -> bool:
        """Whether the event belongs to the turn."""
        mine = getattr(event, "turn_id", None) == self.turn_id
        if isinstance(event, TurnCompleted) and mine:
            self.begun = self.done = True
            return True
        if not self.begun:
            self.begun = isinstance(event, LLMRequestStarted) and mine
            return self.begun
        return not isinstance(event, UserMessageReceived | ConversationReset)


class SubscribedStream:
    """A stream read from a thread: it subscribes first, then sends its message (once), so
    nothing of what the message starts is missed; leaving ``with`` closes the subscription.
    ``AnswerStream`` (one agent's turn) and the team's stream say how they send."""

    def __init__(self, subscribe: Callable[[], EventSubscription]) -> None:
        self._subscribe = subscribe
        self._subscription: EventSubscription | None = None

    def _send(self) -> None:
        raise NotImplementedError

    def _open(self) -> EventSubscription:
        """Subscribe, then send the message (once)."""
        if self._subscription is None:
            self._subscription = self._subscribe()
            try:
                self._send()
            except BaseException:
                self._subscription.close()
                raise
        return self._subscription

    def __exit__(self, *exc: object) -> None:
        if self._subscription is not None:
            self._subscription.close()


class AnswerStream(SubscribedStream):
    """One turn as it happens, read from a thread. Use it as a context manager."""

    def __init__(self, name: str, subscribe: Callable[[], EventSubscription], submit: Submit,
                 typed: Callable[[str], Any]) -> None:
        super().__init__(subscribe)
        self._name = name
        self._submit = submit
        self._typed = typed
        self._filter = TurnFilter()
        self._reply: Future[str] | None = None

    def __enter__(self) -> AnswerStream:
        self._open()
        return self

    def _send(self) -> None:
        self._filter.turn_id, self._reply = self._submit()

    def events(self) -> Iterator[AgentEvent]:
        """The turn's events as they come, until it ends (or the agent stops)."""
        subscription = self._open()  # without 'with': sent now, closed at the turn's end
        while not self._filter.done:
            event = subscription.get()
            if event is None:
                break
            if self._filter.keep(event):
                yield event
        subscription.close()

    def text(self) -> Iterator[str]:
        """The model's text as it arrives (calls' markup excluded), until the turn ends."""
        for event in self.events():
            if isinstance(event, AssistantTextDelta):
                yield event.text

    def result(self, timeout: float | None = None) -> Any:
        """The turn's answer (the output type's value for a typed agent); raises as ``run``."""
        subscription = self._open()
        assert self._reply is not None
        try:
            answer = self._reply.result(timeout)
        except FutureTimeout:
            raise TimeoutError(f"agent {self._name!r} did not finish the turn within "
                               f"{timeout} s") from None
        finally:
            if self._reply.done():
                subscription.close()  # nothing more to read once the turn has ended
        return self._typed(answer)


class AsyncAnswerStream:
    """``AnswerStream`` for asyncio: ``async with agent.astream(message) as s``."""

    def __init__(self, name: str, subscribe: Callable[[AsyncEventSubscription], object],
                 submit: Submit, typed: Callable[[str], Any]) -> None:
        self._name = name
        self._subscribe = subscribe
        self._submit = submit
        self._typed = typed
        self._filter = TurnFilter()
        self._subscription: AsyncEventSubscription | None = None
        self._reply: Future[str] | None = None

    async def __aenter__(self) -> AsyncAnswerStream:
        self._open()
        return self

    def _open(self) -> AsyncEventSubscription:
        """Subscribe (on the running loop), then send the message (once)."""
        if self._subscription is None:
            self._subscription = AsyncEventSubscription()
            self._subscribe(self._subscription)
            try:
                self._filter.turn_id, self._reply = self._submit()
            except BaseException:
                self._subscription.close()
                raise
        return self._subscription

    async def __aexit__(self, *exc: object) -> None:
        if self._subscription is not None:
            self._subscription.close()

    async def events(self) -> AsyncIterator[AgentEvent]:
        """The turn's events as they come, until it ends (or the agent stops)."""
        subscription = self._open()  # without 'async with': sent now, closed at the end
        while not self._filter.done:
            event = await subscription.next_event()
            if event is None:
                break
            if self._filter.keep(event):
                yield event
        subscription.close()

    async def text(self) -> AsyncIterator[str]:
        """The model's text as it arrives (calls' markup excluded), until the turn ends."""
        async for event in self.events():
            if isinstance(event, AssistantTextDelta):
                yield event.text

    async def result(self, timeout: float | None = None) -> Any:
        """The turn's answer, awaited without blocking the loop."""
        import asyncio

        subscription = self._open()
        assert self._reply is not None
        try:
            answer = await asyncio.wait_for(asyncio.wrap_future(self._reply), timeout)
        except TimeoutError:
            raise TimeoutError(f"agent {self._name!r} did not finish the turn within "
                               f"{timeout} s") from None
        finally:
            if self._reply.done():
                subscription.close()
        return self._typed(answer)
