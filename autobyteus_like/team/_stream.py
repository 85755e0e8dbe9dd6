"""Streaming a team's run to the caller: ``with team.stream(message) as s``.

A subscriber to the team's merged events, opened before the message is sent: ``text()`` gives
the coordinator's text as it arrives (calls' markup excluded), ``events()`` every member's
events and the team's own until the team is quiet again, ``result()`` the coordinator's answer
(typed, when the coordinator has an output type).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from autobyteus_like.agent._answer_stream import SubscribedStream
from autobyteus_like.agent._subscription import EventSubscription
from autobyteus_like.events import AgentEvent, AssistantTextDelta
from autobyteus_like.mail._events import TeamQuiescent

__all__ = ["TeamStream"]


class TeamStream(SubscribedStream):
    """One run of a team as it happens, read from a thread. Use it as a context manager."""

    def __init__(self, coordinator: str, subscribe: Callable[[], EventSubscription],
                 send: Callable[[], object], result: Callable[[float | None], Any]) -> None:
        super().__init__(subscribe)
        self._coordinator = coordinator
        self._send_message = send
        self._result = result
        self._done = False

    def __enter__(self) -> TeamStream:
        self._open()
        return self

    def _send(self) -> None:
        self._send_message()

    def events(self) -> Iterator[AgentEvent]:
        """Every event of the run, until the team is quiet (or stops)."""
        subscription = self._open()  # without 'with': sent now, closed when quiet
        while not self._done:
            event = subscription.get()
            if event is None:
                break
            self._done = isinstance(event, TeamQuiescent)
            yield event
        subscription.close()

    def text(self) -> Iterator[str]:
        """The coordinator's text as it arrives, until the team is quiet."""
        for event in self.events():
            if isinstance(event, AssistantTextDelta) and event.agent == self._coordinator:
                yield event.text

    def result(self, timeout: float | None = None) -> Any:
        """The coordinator's answer once the team is quiet (raises as ``team.run``)."""
        subscription = self._open()
        try:
            answer = self._result(timeout)
        except TimeoutError:
            raise  # still running: its events may still be read
        except BaseException:
            subscription.close()
            raise
        subscription.close()
        return answer
