"""One line of progress for each event worth telling an MCP client while a team works."""

from __future__ import annotations

from autobyteus_like.events import (
    AgentEvent,
    ApprovalRequested,
    LLMRequestStarted,
    ToolResultReceived,
    ToolStarted,
    TurnCompleted,
)
from autobyteus_like.mail._events import MessageDelivered

__all__ = ["describe"]

_MAX = 200


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(event: AgentEvent) -> str | None:
    """What happened, in one line (None for events a client need not hear about)."""
    line: str | None = None
    if isinstance(event, LLMRequestStarted):
        line = f"{event.agent} is thinking (step {event.iteration})"
    elif isinstance(event, ToolStarted):
        line = f"{event.agent} calls {event.invocation.name}"
    elif isinstance(event, ToolResultReceived):
        result = event.result
        outcome = "done" if result.error is None else f"failed ({result.error.code})"
        line = f"{event.agent}: {result.tool_name} {outcome}"
    elif isinstance(event, ApprovalRequested):
        line = f"{event.agent} asks to run {event.invocation.name}"
    elif isinstance(event, MessageDelivered):
        line = f"{event.sender or 'user'} -> {event.recipient}: {_short(event.content)}"
    elif isinstance(event, TurnCompleted):
        line = (f"{event.agent} answered: {_short(event.answer)}" if event.error is None
                else f"{event.agent} failed: {_short(event.error)}")
    return None if line is None else line[:_MAX]
