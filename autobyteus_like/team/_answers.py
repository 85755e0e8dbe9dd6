"""The caller's side of a team's answers: run, awaited, streamed, typed (``AgentTeam`` has it).

Each of ``run``, ``arun``, ``stream``, ``astream`` and ``resume`` takes its place among the
callers of its conversation (``team/_callers.py``): one caller's message at a time, in the
order they came, each caller given the answer to its own message; different conversations
run at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Self

from autobyteus_like.agent._subscription import AsyncEventSubscription
from autobyteus_like.team._callers import CallerQueue, CallerTurn
from autobyteus_like.team._stream import AsyncTeamStream, TeamStream

if TYPE_CHECKING:
    from concurrent.futures import Future

    from autobyteus_like.agent._subscription import EventPublisher, EventSubscription
    from autobyteus_like.mail._events import TeamQuiescent
    from autobyteus_like.mail._room import MailRoom
    from autobyteus_like.runtime._backend import Member
    from autobyteus_like.team._config import TeamConfig

__all__ = ["TeamAnswers"]


class TeamAnswers:
    """``run``, ``arun``, ``stream``, ``astream``, ``resume``, ``aevents`` and typed answers,
    over a team's own surface."""

    name: str
    config: TeamConfig
    agents: dict[str, Member]
    _publisher: EventPublisher
    _callers: CallerQueue
    mail: MailRoom

    if TYPE_CHECKING:  # AgentTeam's own
        def send(self, message: str, *, to: str | None = None,
                 conversation: str | None = None) -> Future[str]: ...

        def events(self, into: EventSubscription | None = None, *,
                   conversation: str | None = None) -> EventSubscription: ...

        def conversation(self, conversation: str | None = None) -> Self: ...

        def begin_resume(self) -> bool: ...

        def _outcome_at(self, quiet: TeamQuiescent) -> tuple[str, BaseException | None]: ...

        def _wait_answer(self, timeout: float | None) -> str: ...

    def caller_turn(self) -> CallerTurn:
        """A place among this conversation's callers, for a face that reads the run's events
        itself (``TeamHost.ask``): ``await_place()`` (or ``wait``), subscribe, ``begin(send)``,
        read until quiet, ``release()``; ``run`` and the streams do this for their caller."""
        return CallerTurn(self._callers, self._publisher, self._outcome_at)

    def run(self, message: str, timeout: float | None = None, *,
            conversation: str | None = None) -> Any:
        """Give the coordinator a message in ``conversation`` (the default one without) and
        return its final answer once the team is quiet (a value of the coordinator's
        ``output_type`` when it has one, else text). Callers of one conversation go one at a
        time, in order, each given the answer to its own message.

        Raises ``TimeoutError`` if the team is still busy after ``timeout`` seconds (its
        place passes on once the message's work is done), ``AgentStoppedError`` if the team
        is stopped first, and ``AgentTurnError`` if the coordinator's last turn failed.
        """
        team = self.conversation(conversation)
        return team._typed(team._queued(lambda: team.send(message), timeout)[1])

    def resume(self, timeout: float | None = None, *,
               conversation: str | None = None) -> str | None:
        """Go on with what the session's last process left unfinished in ``conversation``
        (the default one without): turns begun, turns waiting, messages not yet delivered;
        wait until it is quiet: the coordinator's answer, or None when nothing was left
        (raises as ``run`` does)."""
        team = self.conversation(conversation)
        began, answer = team._queued(team.begin_resume, timeout)
        return answer if began else None

    def _queued(self, start: Callable[[], object], timeout: float | None) -> tuple[bool, str]:
        """Wait for this caller's place, ``start`` its run, and wait for its answer: whether
        anything began, and the answer."""
        deadline = None if timeout is None else time.monotonic() + timeout
        turn = self.caller_turn()
        try:
            turn.wait(timeout)
            turn.begin(start)
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return turn.began, turn.result(left)
            except TimeoutError:
                raise TimeoutError(f"team {self.name!r} was still busy after {timeout} s"
                                   ) from None
        finally:
            turn.release()

    async def arun(self, message: str, timeout: float | None = None, *,
                   conversation: str | None = None) -> Any:
        """``run`` for asyncio hosts: awaits its place and the quiet team without blocking the
        loop (a conversation's first use builds its members on a worker thread)."""
        team = (self if conversation is None
                else await asyncio.to_thread(self.conversation, conversation))
        turn = team.caller_turn()
        try:
            async with asyncio.timeout(timeout):
                await turn.await_place()
                turn.begin(lambda: team.send(message))
                answer = await turn.aresult()
        except TimeoutError:
            raise TimeoutError(f"team {team.name!r} was still busy after {timeout} s") from None
        finally:
            turn.release()
        return team._typed(answer)

    def stream(self, message: str, *, conversation: str | None = None) -> TeamStream:
        """``with team.stream(message) as s:`` the run as it happens, in ``conversation``
        (the default one without), once this caller's turn came: ``s.text()`` the
        coordinator's text as it arrives, ``s.events()`` every member's events until the team
        is quiet, ``s.result()`` the coordinator's answer."""
        team = self.conversation(conversation)
        speaker = (team.config.coordinator if team.config.next_message_to == "coordinator"
                   else team.mail.holder)  # whom the message goes to
        return TeamStream(speaker, team.caller_turn, team.events,
                          lambda: team.send(message), team._typed)

    def astream(self, message: str, *, conversation: str | None = None) -> AsyncTeamStream:
        """``async with team.astream(message) as s:`` ``stream`` for asyncio code (``async
        for`` over ``s.text()`` and ``s.events()``, ``await s.result()``). Call it inside the
        loop that reads it."""
        return AsyncTeamStream(self, conversation, message)

    def last_answer(self, timeout: float | None = 0) -> Any:
        """The answer of the run the team last went quiet on, as ``run`` returns it (typed);
        its error raised as ``run`` raises it; ``TimeoutError`` while the team is busy."""
        return self._typed(self._wait_answer(timeout))

    def _typed(self, answer: str) -> Any:
        """The answer as its member's output type (it travels as JSON text): the member
        holding the conversation (the coordinator until a handoff)."""
        spec = self.agents[self.mail.holder].config.output_spec()
        return answer if spec is None else spec.value(answer)

    def aevents(self, *, conversation: str | None = None) -> AsyncIterator[Any]:
        """``events`` for asyncio code: call it inside the loop that reads it (subscribed at
        once)."""
        subscription = self.events(into=AsyncEventSubscription(), conversation=conversation)
        assert isinstance(subscription, AsyncEventSubscription)
        return subscription.__aiter__()
