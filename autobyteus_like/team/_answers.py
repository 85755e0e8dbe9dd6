"""The caller's side of a team's answers: typed, awaited, streamed (``AgentTeam`` has it)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from autobyteus_like.agent._subscription import AsyncEventSubscription
from autobyteus_like.mail._events import TeamQuiescent
from autobyteus_like.team._stream import TeamStream

if TYPE_CHECKING:
    from concurrent.futures import Future

    from autobyteus_like.agent._subscription import EventPublisher, EventSubscription
    from autobyteus_like.runtime._backend import Member
    from autobyteus_like.team._config import TeamConfig

__all__ = ["TeamAnswers"]


class TeamAnswers:
    """``arun``, ``stream``, ``aevents`` and typed answers, over a team's own surface."""

    name: str
    config: TeamConfig
    agents: dict[str, Member]
    _publisher: EventPublisher

    if TYPE_CHECKING:  # AgentTeam's own
        def send(self, message: str, *, to: str | None = None) -> Future[str]: ...

        def events(self, into: EventSubscription | None = None) -> EventSubscription: ...

        def _wait_answer(self, timeout: float | None) -> str: ...

    async def arun(self, message: str, timeout: float | None = None) -> Any:
        """``run`` for asyncio hosts: awaits the quiet team without blocking the loop (and
        without a thread of its own)."""
        subscription = AsyncEventSubscription()
        self._publisher.subscribe(subscription)
        try:
            self.send(message)
            await asyncio.wait_for(_quiet(subscription), timeout)
        except TimeoutError:
            raise TimeoutError(f"team {self.name!r} was still busy after {timeout} s") from None
        finally:
            subscription.close()
        return self._typed(self._wait_answer(0))

    def stream(self, message: str) -> TeamStream:
        """``with team.stream(message) as s:`` the run as it happens: ``s.text()`` the
        coordinator's text as it arrives, ``s.events()`` every member's events until the team
        is quiet, ``s.result()`` the coordinator's answer."""
        return TeamStream(self.config.coordinator, self.events, lambda: self.send(message),
                          lambda timeout: self._typed(self._wait_answer(timeout)))

    def _typed(self, answer: str) -> Any:
        """The coordinator's answer as its output type (its answer travels as JSON text)."""
        spec = self.agents[self.config.coordinator].config.output_spec()
        return answer if spec is None else spec.value(answer)

    def aevents(self) -> AsyncIterator[Any]:
        """``events`` for asyncio code: call it inside the loop that reads it (subscribed at
        once)."""
        subscription = self.events(into=AsyncEventSubscription())
        assert isinstance(subscription, AsyncEventSubscription)
        return subscription.__aiter__()



async def _quiet(subscription: AsyncEventSubscription) -> None:
    """Until the team is quiet (or stops)."""
    while (event := await subscription.next_event()) is not None:
        if isinstance(event, TeamQuiescent):
            return
