"""TeamExecutor: the A2A SDK's ``AgentExecutor`` in front of a ``TeamHost``.

Each message is one ask of the team (the coordinator gets its text) in the conversation its
A2A context names (``TeamHost.ask(..., conversation=context_id)``: each context its own
members' histories and, with a session, its own record ``NAME@CONTEXT``). The task goes
``submitted`` -> ``working`` (one status update, with a line of text, for each step worth
telling: a member thinking, calling a tool, a message between members) -> ``completed`` with
the answer as the artifact ``answer`` and the status message; a failed turn is ``failed``
with why; an empty message is ``rejected``. ``CancelTask`` cancels the ask as a client's
cancellation of ``serve-mcp`` does (every member's LLM request and tool stopped, the
conversations back where the ask found them) and the task ends ``canceled``.
"""

from __future__ import annotations

from typing import Any

from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import TaskState

from autobyteus_like.errors import AutobyteusLikeError
from autobyteus_like.events import AgentEvent
from autobyteus_like.serving._progress import describe
from autobyteus_like.serving._team_host import TeamHost

__all__ = ["TeamExecutor"]


class TeamExecutor(AgentExecutor):
    """Runs each A2A message as one ask of the hosted team."""

    def __init__(self, host: TeamHost) -> None:
        self._host = host

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        assert message is not None and context.task_id and context.context_id
        if context.current_task is None:
            await event_queue.enqueue_event(new_task_from_user_message(message))
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        text = context.get_user_input()
        if not text.strip():
            await updater.reject(updater.new_agent_message(
                [new_text_part("the message has no text: say what the team should do")]))
            return
        await updater.start_work()

        async def report(event: AgentEvent) -> None:
            line = describe(event)
            if line is not None:
                await updater.update_status(TaskState.TASK_STATE_WORKING,
                                            updater.new_agent_message([new_text_part(line)]))

        try:
            answer = await self._host.ask(text, None, report, conversation=context.context_id)
        except AutobyteusLikeError as exc:  # a failed turn, a refusal, a lost session
            await updater.failed(updater.new_agent_message([new_text_part(str(exc))]))
            return
        await updater.add_artifact([new_text_part(answer)], name="answer")
        await updater.complete(updater.new_agent_message([new_text_part(answer)]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        # the SDK has cancelled ``execute`` (and so the ask) before calling this
        assert context.task_id and context.context_id
        updater: Any = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(updater.new_agent_message([new_text_part(
            "cancelled: the team's work on it was stopped")]))
