"""AgentJournal: one agent's side of a session, written as its turn goes.

The agent's actor calls it at the points where durability matters: a message received, the
history grown, a call's state changed (``RUNNING`` before the tool starts, the result before
anything holding it goes to the LLM), a turn ended. Handlers never see it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autobyteus_like.llm.messages import Message
from autobyteus_like.store.records import CallRecord, CallState, MessageRecord
from autobyteus_like.store.session_store import SessionStore
from autobyteus_like.tools.invocation import ToolInvocation, ToolResult

__all__ = ["AgentJournal", "message_data", "message_from"]


def message_data(message: Message, request_no: int | None = None) -> dict[str, Any]:
    """A history message as the store keeps it."""
    data: dict[str, Any] = {
        "role": message.role,
        "content": message.content,
        "tool_calls": [call.model_dump(mode="json") for call in message.tool_calls],
        "tool_results": [result.model_dump(mode="json") for result in message.tool_results],
    }
    if request_no is not None:
        data["request_no"] = request_no
    return data


def message_from(record: MessageRecord) -> Message:
    """A stored history message, as the agent had it."""
    return Message(
        role=record.role,  # type: ignore[arg-type]
        content=record.content,
        tool_calls=tuple(ToolInvocation.model_validate(call) for call in record.tool_calls),
        tool_results=tuple(ToolResult.model_validate(res) for res in record.tool_results),
    )


def result_state(result: ToolResult) -> CallState:
    """The final state a result stands for."""
    if result.status == "success":
        return CallState.SUCCEEDED
    if result.error is not None and result.error.code.value == "DENIED":
        return CallState.DENIED
    return CallState.FAILED


class AgentJournal:
    """Writes one agent's history, turns and calls to its session."""

    def __init__(self, store: SessionStore, session: str, agent: str, persisted: int = 0
                 ) -> None:
        self.store = store
        self.session = session
        self.agent = agent
        self.persisted = persisted
        """How many messages of the current conversation are in the store."""

    def sync_messages(self, messages: Sequence[Message], request_no: int | None = None) -> None:
        """Store the messages the agent added since the last call (an assistant message among
        them is tagged with the request it answered)."""
        new = messages[self.persisted:]
        if not new:
            return
        self.store.append_messages(self.session, self.agent, [
            message_data(message, request_no if message.role == "assistant" else None)
            for message in new])
        self.persisted = len(messages)

    def reset(self) -> None:
        """The conversation starts over."""
        self.store.reset_history(self.session, self.agent)
        self.persisted = 0

    def save_call(self, invocation: ToolInvocation, *, turn_id: int, request_no: int,
                  position: int, state: CallState, result: ToolResult | None = None) -> None:
        """Record where a call stands."""
        self.store.save_call(self.session, CallRecord(
            agent=self.agent, invocation_id=invocation.id, turn_id=turn_id,
            request_no=request_no, position=position, name=invocation.name,
            arguments=invocation.arguments, why=invocation.why, state=state,
            result=None if result is None else result.model_dump(mode="json")))
