"""Streaming a team's run to the caller: ``with team.stream(message) as s`` (threads) and
``async with team.astream(message) as s`` (asyncio).

The stream takes its place among its conversation's callers first (``team/_callers.py``),
then subscribes to the conversation's merged events and sends its message: ``text()`` gives
the coordinator's text as it arrives (calls' markup excluded), ``events()`` every member's
events and the team's own until the team is quiet again, ``result()`` the coordinator's answer
to this message (typed, when the coordinator has an output type). Its place passes on once
its run is quiet, whether the stream is read or not.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from autobyteus_like.agent._answer_stream import SubscribedStream
from autobyteus_like.agent._subscription import AsyncEventSubscription, EventSubscription
from autobyteus_like.events import AgentEvent, AssistantTextDelta, ConversationHandedOver
from autobyteus_like.mail._events import TeamQuiescent
from autobyteus_like.team._callers import CallerTurn

__all__ = ["AsyncTeamStream", "TeamStream"]


class TeamStream(SubscribedStream):
    """One run of a team as it happens, read from a thread. Use it as a context manager."""

    def __init__(self, coordinator: str, turn: Callable[[], CallerTurn],
                 subscribe: Callable[[], EventSubscription], send: Callable[[], object],
                 typed: Callable[[str], Any]) -> None:
        super().__init__(self._subscribe_in_turn)
        self._coordinator = coordinator
        self._new_turn = turn
        self._events = subscribe
        self._send_message = send
        self._typed = typed
        self._turn: CallerTurn | None = None
        self._done = False

    def __enter__(self) -> TeamStream:
        self._open()
        return self

    def _subscribe_in_turn(self) -> EventSubscription:
        """Wait for this caller's place, then subscribe (nothing of an earlier caller's run
        is seen)."""
        turn = self._turn = self._new_turn()
        try:
            turn.wait(None)
            return self._events()
        except BaseException:
            turn.release()
            raise

    def _send(self) -> None:
        assert self._turn is not None
        try:
            self._turn.begin(self._send_message)
        finally:
            self._turn.release()  # the place passes on once the run is quiet

    def events(self) -> Iterator[AgentEvent]:
        """Every event of the run, until the team is quiet (or stops)."""
        subscription = self._open()  # without 'with': sent now, closed when quiet
        try:
            while not self._done:
                event = subscription.get()
                if event is None:
                    break
                self._done = isinstance(event, TeamQuiescent)
                yield event
        finally:  # or when the reader leaves early (the iterator closed or collected)
            subscription.close()

    def text(self) -> Iterator[str]:
        """The coordinator's text as it arrives, until the team is quiet (after a handoff,
        the receiver's: whoever holds the conversation)."""
        for event in self.events():
            if isinstance(event, AssistantTextDelta) and event.agent == self._coordinator:
                yield event.text
            elif isinstance(event, ConversationHandedOver):
                self._coordinator = event.receiver

    def result(self, timeout: float | None = None) -> Any:
        """The coordinator's answer to this message once the team is quiet (raises as
        ``team.run``)."""
        subscription = self._open()
        assert self._turn is not None
        try:
            answer = self._turn.result(timeout)
        except TimeoutError:
            raise  # still running: its events may still be read
        except BaseException:
            subscription.close()
            raise
        subscription.close()
        return self._typed(answer)


class AsyncTeamStream:
    """``TeamStream`` for asyncio: ``async with team.astream(message) as s``."""

    def __init__(self, team: Any, conversation: str | None, message: str) -> None:
        """``team``: the ``AgentTeam`` (its conversation is found, or built, on opening)."""
        self._team = team
        self._conversation = conversation
        self._message = message
        self._subscription: AsyncEventSubscription | None = None
        self._turn: CallerTurn | None = None
        self._done = False

    async def __aenter__(self) -> AsyncTeamStream:
        await self._open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._subscription is not None:
            self._subscription.close()

    async def _open(self) -> AsyncEventSubscription:
        """Wait for this caller's place (on the loop), subscribe, send the message (once)."""
        if self._subscription is not None:
            return self._subscription
        team = (self._team if self._conversation is None
                else await asyncio.to_thread(self._team.conversation, self._conversation))
        turn = self._turn = team.caller_turn()
        try:
            await turn.await_place()
            subscription = AsyncEventSubscription()
            team.events(into=subscription)
            try:
                turn.begin(lambda: team.send(self._message))
            except BaseException:
                subscription.close()
                raise
            self._subscription = subscription
            self._coordinator = team.mail.holder  # whom the message went to
            self._typed = team._typed
        finally:
            turn.release()  # the place passes on once the run is quiet
        return subscription

    async def events(self) -> AsyncIterator[AgentEvent]:
        """Every event of the run, until the team is quiet (or stops)."""
        subscription = await self._open()
        while not self._done:
            event = await subscription.next_event()
            if event is None:
                break
            self._done = isinstance(event, TeamQuiescent)
            yield event
        subscription.close()

    async def text(self) -> AsyncIterator[str]:
        """The coordinator's text as it arrives, until the team is quiet (after a handoff,
        the receiver's)."""
        async for event in self.events():
            if isinstance(event, AssistantTextDelta) and event.agent == self._coordinator:
                yield event.text
            elif isinstance(event, ConversationHandedOver):
                self._coordinator = event.receiver

    async def result(self, timeout: float | None = None) -> Any:
        """The coordinator's answer to this message, awaited without blocking the loop."""
        subscription = await self._open()
        assert self._turn is not None
        try:
            answer = await asyncio.wait_for(self._turn.aresult(), timeout)
        except TimeoutError:
            raise TimeoutError(f"team {self._team.name!r} was still busy after {timeout} s"
                               ) from None
        except BaseException:
            subscription.close()
            raise
        subscription.close()
        return self._typed(answer)
