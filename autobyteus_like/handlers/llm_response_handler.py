"""LLMResponseHandler: streams the response through the format's parser as chunks arrive.

Text goes to subscribers; each completed call gets the next result slot and becomes a pending
invocation at once (tools may start before the LLM finishes); each malformed call gets a slot
with a PARSE_ERROR result, so the LLM sees what to fix in the next request.
"""

from __future__ import annotations

from autobyteus_like.events import (
    AgentEvent,
    AssistantTextDelta,
    LLMChunkReceived,
    LLMRequestFailed,
    LLMResponseCompleted,
    PendingToolInvocation,
    ToolCallParsed,
    ToolCallParseFailed,
    ToolResultReceived,
)
from autobyteus_like.handlers.context import AgentContext, SlotState, TurnState
from autobyteus_like.llm.messages import Message
from autobyteus_like.parsers.events import (
    ParseEvent,
    TextDelta,
    ToolCallCompleted,
    ToolCallFailed,
)
from autobyteus_like.tools.invocation import ErrorCode, ToolInvocation, ToolResult

__all__ = ["LLMResponseHandler"]


class LLMResponseHandler:
    """Handles ``LLMChunkReceived``, ``LLMResponseCompleted`` and ``LLMRequestFailed``."""

    def handle(self, event: AgentEvent, ctx: AgentContext) -> None:
        turn = ctx.turn
        if turn is None or getattr(event, "request_no", None) != turn.request_no:
            return  # a late event from a request this turn no longer waits for
        assert turn.parser is not None
        if isinstance(event, LLMChunkReceived):
            turn.response.append(event.text)
            self._parsed(turn.parser.feed(event.text), ctx, turn)
        elif isinstance(event, LLMResponseCompleted):
            self._parsed(turn.parser.finish(), ctx, turn)
            turn.response_done = True
            ctx.messages.append(Message("assistant", "".join(turn.response)))
            ctx.advance()
        elif isinstance(event, LLMRequestFailed):
            ctx.complete_turn("", f"the LLM call failed: {event.error_type}: {event.error}")

    @staticmethod
    def _parsed(events: list[ParseEvent], ctx: AgentContext, turn: TurnState) -> None:
        for parsed in events:
            if isinstance(parsed, TextDelta):
                turn.prose.append(parsed.text)
                ctx.emit(AssistantTextDelta(agent=ctx.name, text=parsed.text))
            elif isinstance(parsed, ToolCallCompleted):
                ctx.add_slot(parsed.invocation)
                ctx.emit(ToolCallParsed(agent=ctx.name, invocation=parsed.invocation))
                ctx.emit(PendingToolInvocation(agent=ctx.name, invocation=parsed.invocation))
            elif isinstance(parsed, ToolCallFailed):
                error = parsed.error
                name = error.name or "unknown"
                placeholder = ToolInvocation(
                    id=ctx.ids.claim(error.id) if error.id else ctx.ids.allocate(
                        name, {"unparsed": error.snippet}
                    ),
                    name=name,
                )
                slot = ctx.add_slot(placeholder)
                slot.state = SlotState.PENDING
                ctx.emit(ToolCallParseFailed(agent=ctx.name, error=error,
                                             invocation_id=placeholder.id))
                ctx.emit(ToolResultReceived(agent=ctx.name, result=ToolResult.failure(
                    placeholder, ErrorCode.PARSE_ERROR, error.message,
                    suggestion=f"write the call again in the {error.format} format shown in "
                               "the instructions",
                )))
