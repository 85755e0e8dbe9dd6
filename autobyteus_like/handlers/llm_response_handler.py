"""LLMResponseHandler: streams the response through the format's parser as chunks arrive.

Text goes to subscribers; each completed call gets the next result slot and becomes a pending
invocation at once (tools may start before the LLM finishes); each malformed call gets a slot
with a PARSE_ERROR result, so the LLM sees what to fix in the next request.
"""

from __future__ import annotations

import json

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
from autobyteus_like.llm.messages import Message, NativeToolCall
from autobyteus_like.parsers.events import (
    ParseErrorInfo,
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
            if event.text:
                turn.response.append(event.text)
                self._parsed(turn.parser.feed(event.text), ctx, turn)
            for native in event.tool_calls:
                self._native(native, ctx, turn)
        elif isinstance(event, LLMResponseCompleted):
            self._parsed(turn.parser.finish(), ctx, turn)
            turn.response_done = True
            calls = tuple(slot.invocation for slot in turn.slots) if ctx.native else ()
            ctx.messages.append(Message("assistant", "".join(turn.response), tool_calls=calls))
            ctx.advance()
        elif isinstance(event, LLMRequestFailed):
            ctx.complete_turn("", f"the LLM call failed: {event.error_type}: {event.error}")

    def _parsed(self, events: list[ParseEvent], ctx: AgentContext, turn: TurnState) -> None:
        for parsed in events:
            if isinstance(parsed, TextDelta):
                turn.prose.append(parsed.text)
                ctx.emit(AssistantTextDelta(agent=ctx.name, text=parsed.text))
            elif isinstance(parsed, ToolCallCompleted):
                self._call(parsed.invocation, ctx)
            elif isinstance(parsed, ToolCallFailed):
                self._failed(parsed.error, ctx)

    def _native(self, call: NativeToolCall, ctx: AgentContext, turn: TurnState) -> None:
        """A provider's structured call: arguments that are not a JSON object become an
        ``invalid_json`` error result the model sees, never a crash (seed 002 section 7)."""
        try:
            arguments = json.loads(call.arguments) if call.arguments.strip() else {}
            problem = "" if isinstance(arguments, dict) else "are not a JSON object"
        except ValueError as exc:
            arguments, problem = {}, f"are not valid JSON ({exc})"
        if problem:
            self._failed(ParseErrorInfo(
                message=f"invalid_json: the arguments of {call.name!r} {problem}",
                snippet=call.arguments[:240], index=len(turn.slots), format="native",
                name=call.name, id=call.id,
            ), ctx)
            return
        self._call(ctx.native_calls.build(call.name, arguments, call.id), ctx)

    @staticmethod
    def _call(invocation: ToolInvocation, ctx: AgentContext) -> None:
        ctx.add_slot(invocation)
        ctx.emit(ToolCallParsed(agent=ctx.name, invocation=invocation))
        ctx.emit(PendingToolInvocation(agent=ctx.name, invocation=invocation))

    @staticmethod
    def _failed(error: ParseErrorInfo, ctx: AgentContext) -> None:
        name = error.name or "unknown"
        placeholder = ToolInvocation(
            id=ctx.ids.claim(error.id) if error.id else ctx.ids.allocate(
                name, {"unparsed": error.snippet}
            ),
            name=name,
        )
        slot = ctx.add_slot(placeholder)
        slot.state = SlotState.PENDING
        ctx.emit(ToolCallParseFailed(agent=ctx.name, error=error, invocation_id=placeholder.id))
        ctx.emit(ToolResultReceived(agent=ctx.name, result=ToolResult.failure(
            placeholder, ErrorCode.PARSE_ERROR, error.message,
            suggestion=f"write the call again in the {error.format} format shown in "
                       "the instructions" if error.format != "native" else
                       "call the tool again with a JSON object of arguments",
        )))
