"""TeamExecutor: the A2A SDK's ``AgentExecutor`` in front of a ``TeamHost``.

Each message is one ask of the team (the coordinator gets its text) in the conversation its
A2A context names (``TeamHost.ask(..., conversation=context_id)``: each context its own
members' histories and, with a session, its own record ``NAME@CONTEXT``). The task goes
``submitted`` -> ``working`` (one status update, with a line of text, for each step worth
telling: a member thinking, calling a tool, a message between members; the coordinator's prose
as it streams, as chunks of the artifact ``text``) -> ``completed`` with the answer as the
artifact ``answer`` and the status message; a failed turn is ``failed`` with why; an empty
message is ``rejected``. ``CancelTask`` cancels the ask as a client's cancellation of
``serve-mcp`` does (every member's LLM request and tool stopped, the conversations back where
the ask found them) and the task ends ``canceled``.

A call that waits for approval and that the server's policy (``--approve``, ``--yes``) does not
allow is asked of the client: the task goes ``input-required`` with the call in words, and
``execute`` returns while the ask waits. The client's next message to that task answers it
(``approve``, or ``deny`` and a reason); anything else asks again, never approves. An MCP
server's elicitation during the ask is asked the same way (``_elicitation.py``). A message whose
metadata names a ``skill`` (a member) is that member's ask instead of the coordinator's.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
from a2a.helpers.proto_helpers import (
    get_data_parts,
    new_data_part,
    new_task_from_user_message,
    new_text_part,
)
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import TaskState

from autobyteus_like.a2a._elicitation import Elicitation, asker, read_answer
from autobyteus_like.errors import AutobyteusLikeError
from autobyteus_like.events import AgentEvent, ApprovalRequested, AssistantTextDelta
from autobyteus_like.serving._progress import describe
from autobyteus_like.serving._team_host import TeamHost

__all__ = ["TeamExecutor"]

_APPROVE = ("approve", "approved", "yes", "y", "ok", "allow")
_DENY = ("deny", "denied", "no", "n", "refuse", "reject")


@dataclass
class _Ask:
    """One ask of the team, held across the messages of its task (input-required pauses)."""

    context: str
    events: asyncio.Queue[AgentEvent | Elicitation | _Done] = field(
        default_factory=asyncio.Queue)
    work: asyncio.Task[None] | None = None
    waiting: ApprovalRequested | Elicitation | None = None


@dataclass(frozen=True)
class _Done:
    answer: str | None
    error: str | None


class TeamExecutor(AgentExecutor):
    """Runs each A2A message as one ask of the hosted team."""

    def __init__(self, host: TeamHost) -> None:
        self._host = host
        self._asks: dict[str, _Ask] = {}  # task id -> its ask, until the task ends

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None and context.task_id and context.context_id
        if context.current_task is None:
            await event_queue.enqueue_event(new_task_from_user_message(message))
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        text = context.get_user_input()
        ask = self._asks.get(context.task_id)
        if ask is not None and ask.waiting is not None:  # the answer to our question
            if not await self._answer(ask, text, get_data_parts(message.parts), updater):
                return
        elif ask is not None:  # (the task goes on: its state is not this message's)
            await updater.update_status(TaskState.TASK_STATE_WORKING, updater.new_agent_message(
                [new_text_part("this task is being worked on; your message was not taken: "
                               "wait for it, or cancel it")]))
            return
        else:
            if not text.strip():
                await updater.reject(updater.new_agent_message(
                    [new_text_part("the message has no text: say what the team should do")]))
                return
            held = next((t for t, a in self._asks.items()
                         if a.context == context.context_id and a.waiting is not None), None)
            if held is not None:
                await updater.reject(updater.new_agent_message([new_text_part(
                    f"task {held} of this context waits for your answer: answer it or "
                    "cancel it first")]))
                return
            skill = _skill(message)
            members = [m.name for m in self._host.config.members]
            if skill is not None and skill not in members:
                await updater.reject(updater.new_agent_message([new_text_part(
                    f"no skill {skill!r} here (the skills: {', '.join(members)})")]))
                return
            await updater.start_work()
            ask = self._asks[context.task_id] = _Ask(context.context_id)
            ask.work = asyncio.ensure_future(self._run(ask, text, skill))
        try:
            await self._follow(ask, context.task_id, updater)
        except asyncio.CancelledError:
            await self._drop(context.task_id)
            raise

    async def _run(self, ask: _Ask, text: str, member: str | None = None) -> None:
        async def report(event: AgentEvent) -> None:
            ask.events.put_nowait(event)

        try:
            answer = await self._host.ask(
                text, member, report, settle_approvals=False, conversation=ask.context,
                elicit=asker(asyncio.get_running_loop(), ask.events))
        except AutobyteusLikeError as exc:  # a failed turn, a refusal, a lost session
            ask.events.put_nowait(_Done(None, str(exc)))
        else:
            ask.events.put_nowait(_Done(answer, None))

    async def _follow(self, ask: _Ask, task_id: str, updater: Any) -> None:
        """Tell the ask's steps until it ends or waits for the client's answer."""
        streamed = False
        while True:
            event = await ask.events.get()
            if isinstance(event, _Done):
                self._asks.pop(task_id, None)
                if event.error is not None:
                    await updater.failed(updater.new_agent_message([new_text_part(event.error)]))
                    return
                answer = event.answer or ""
                await updater.add_artifact([new_text_part(answer)], name="answer",
                                           artifact_id="answer", append=False,
                                           last_chunk=True)
                await updater.complete(updater.new_agent_message([new_text_part(answer)]))
                return
            if isinstance(event, Elicitation):  # an MCP server's question for a person
                ask.waiting = event
                await updater.requires_input(updater.new_agent_message(
                    [new_text_part(event.question()), new_data_part(event.request.schema)]))
                return
            if isinstance(event, ApprovalRequested):
                approved, _ = self._host.policy.decide(event.invocation.name)
                if approved:
                    await self._decide(ask, event, True, "")
                    continue
                ask.waiting = event
                await updater.requires_input(updater.new_agent_message(
                    [new_text_part(_question(event))]))
                return
            if (isinstance(event, AssistantTextDelta) and event.text
                    and event.agent == self._host.config.coordinator):
                await updater.add_artifact([new_text_part(event.text)], name="text",
                                           artifact_id="text", append=streamed,
                                           last_chunk=False)
                streamed = True
                continue
            line = describe(event)
            if line is not None:
                await updater.update_status(TaskState.TASK_STATE_WORKING,
                                            updater.new_agent_message([new_text_part(line)]))

    async def _answer(self, ask: _Ask, text: str, data: list[Any], updater: Any) -> bool:
        """Settle the waiting call or elicitation by the client's answer (True), or ask
        again (False)."""
        if isinstance(ask.waiting, Elicitation):
            return await self._answer_elicitation(ask, ask.waiting, text, data, updater)
        assert ask.waiting is not None
        word, _, rest = text.strip().partition(" ")
        word = word.lower().strip(".,:;!")
        if word in _APPROVE:
            await self._decide(ask, ask.waiting, True, "")
        elif word in _DENY:
            await self._decide(ask, ask.waiting, False,
                               rest.strip(" :-") or "denied by the A2A client")
        else:
            await updater.requires_input(updater.new_agent_message([new_text_part(
                "not understood, nothing was approved: " + _question(ask.waiting))]))
            return False
        ask.waiting = None
        await updater.start_work()
        return True

    async def _answer_elicitation(self, ask: _Ask, waiting: Elicitation, text: str,
                                  data: list[Any], updater: Any) -> bool:
        answer, problem = read_answer(waiting, text, data)
        if problem is not None and not waiting.answer.done():
            await updater.requires_input(updater.new_agent_message(
                [new_text_part(f"{problem}; nothing was answered: {waiting.question()}"),
                 new_data_part(waiting.request.schema)]))
            return False
        ask.waiting = None
        if problem is not None or not waiting.settle(answer):  # declined at its timeout
            await updater.update_status(TaskState.TASK_STATE_WORKING, updater.new_agent_message(
                [new_text_part(f"the question was declined, unanswered within "
                               f"{waiting.request.timeout_s:g} s; the task went on")]))
        else:
            await updater.start_work()
        return True

    async def _decide(self, ask: _Ask, event: ApprovalRequested, approved: bool,
                      reason: str) -> None:
        team = self._host.team
        if approved:
            await anyio.to_thread.run_sync(lambda: team.approve(
                event.agent, event.invocation.id, conversation=ask.context))
        else:
            await anyio.to_thread.run_sync(lambda: team.deny(
                event.agent, event.invocation.id, reason, conversation=ask.context))

    async def _drop(self, task_id: str) -> None:
        """Cancel a task's ask (its work stopped as a cancelled ask's is) and forget it."""
        ask = self._asks.pop(task_id, None)
        if ask is not None and isinstance(ask.waiting, Elicitation):
            ask.waiting.settle(False)  # (cancelled: the server hears so)
        if ask is not None and ask.work is not None:
            ask.work.cancel()
            await asyncio.gather(ask.work, return_exceptions=True)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        # the SDK has cancelled a running ``execute`` before calling this; a task waiting
        # for the client's answer has no ``execute`` running: its ask is cancelled here
        assert context.task_id and context.context_id
        await self._drop(context.task_id)
        updater: Any = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(updater.new_agent_message([new_text_part(
            "cancelled: the team's work on it was stopped")]))


def _skill(message: Any) -> str | None:
    """The skill (a member's name) the message's metadata ``skill`` asks, if any."""
    if not message.HasField("metadata"):
        return None
    skill = dict(message.metadata).get("skill")
    return skill if isinstance(skill, str) and skill else None


def _question(event: ApprovalRequested) -> str:
    arguments = json.dumps(event.invocation.arguments, ensure_ascii=False, default=str)
    if len(arguments) > 2000:
        arguments = arguments[:2000] + "..."
    return (f"{event.agent} wants to call {event.invocation.name} with {arguments}: reply "
            "'approve', or 'deny' and a reason")
