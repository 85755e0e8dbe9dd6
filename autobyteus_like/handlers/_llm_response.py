"""LLMResponseHandler: streams the response through the format's parser as chunks arrive.

Text goes to subscribers; each completed call gets the next result slot and becomes a pending
invocation at once (tools may start before the LLM finishes); each malformed call gets a slot
with a PARSE_ERROR result, so the LLM sees what to fix in the next request.

A response cut off at the max_tokens limit (finish reason "length") is said so plainly, since
otherwise it looks like a malformed call: the calls that came back broken get results saying
the output was cut off, and when none did, the assistant message in the history (which the
next request carries) and the turn's answer end with a note. Native calls with broken
arguments are therefore reported when the response completes, when the reason is known.
"""

from __future__ import annotations

import dataclasses

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
from autobyteus_like.handlers._context import AgentContext, TurnState
from autobyteus_like.handlers._effects import Effects
from autobyteus_like.handlers._turn_steps import (
    advance,
    complete_turn,
    run_over,
    start_ready_calls,
)
from autobyteus_like.llm._finish_reasons import LENGTH
from autobyteus_like.llm._messages import Message, NativeToolCall
from autobyteus_like.parsers._json_scanner import load_json
from autobyteus_like.parsers._parse_events import (
    ParseErrorInfo,
    ParseEvent,
    TextDelta,
    ToolCallCompleted,
    ToolCallFailed,
)
from autobyteus_like.tools._invocation import ErrorCode, ToolInvocation, ToolResult

__all__ = ["CUT_OFF", "LLMResponseHandler"]

CUT_OFF = "your output was cut off at the max_tokens limit"
"""What the LLM is told about a response that hit its output limit."""
_ANSWER_NOTE = "[the answer was cut off at the max_tokens limit]"

class LLMResponseHandler:
    """Handles ``LLMChunkReceived``, ``LLMResponseCompleted`` and ``LLMRequestFailed``."""

    def handle(self, event: AgentEvent, ctx: AgentContext) -> Effects:
        turn = ctx.turn
        if turn is None or getattr(event, "request_no", None) != turn.request_no:
            return  # a late event from a request this turn no longer waits for
        assert turn.parser is not None
        if isinstance(event, LLMChunkReceived):
            if event.text:
                turn.response.append(event.text)
                yield from self._parsed(turn.parser.feed(event.text), ctx, turn)
            for native in event.tool_calls:
                yield from self._native(native, ctx, turn)
        elif isinstance(event, LLMResponseCompleted):
            ctx.env.hooks.response_received(turn, event)
            if (over := run_over(ctx)) is not None:
                yield over  # a token or cost limit crossed: the response is not used
                return
            cut_off = event.finish_reason == LENGTH
            held, turn.held = turn.held, []
            finished = turn.parser.finish()
            if finished:  # (most responses leave nothing to the end)
                yield from self._parsed(finished, ctx, turn, cut_off=cut_off)
            for error, placeholder in held:
                yield from self._report(error, placeholder, ctx, cut_off=cut_off)
            broken = bool(held) or (bool(finished) and any(isinstance(e, ToolCallFailed)
                                                           for e in finished))
            content = "".join(turn.response)
            if cut_off and not broken:
                content += f"\n\n[{CUT_OFF}]"
                if not len(turn.schedule):
                    turn.prose.append(f"\n\n{_ANSWER_NOTE}")
            turn.response_done = True
            # the calls as data in every format (history); text formats send only the text
            ctx.messages.append(Message("assistant", content,
                                        tool_calls=turn.schedule.invocations(),
                                        carried=event.carried))
            ctx.env.hooks.response_completed(turn, ctx.messages)  # before any call is asked about
            deferred, turn.deferred = turn.deferred, []
            for invocation in deferred:
                yield PendingToolInvocation(agent=ctx.name, invocation=invocation)
            turn.schedule.close()  # a handoff waiting for the others may go once they settle
            yield from start_ready_calls(ctx)
            yield from advance(ctx)  # (nothing when the calls started ended the run)
        elif isinstance(event, LLMRequestFailed):
            ctx.env.hooks.request_failed(turn, event)
            yield from complete_turn(ctx, "", f"the LLM call failed: {event.error_type}: "
                                              f"{event.error}")

    def _parsed(self, events: list[ParseEvent], ctx: AgentContext, turn: TurnState,
                cut_off: bool = False) -> Effects:
        for parsed in events:
            if isinstance(parsed, TextDelta):
                turn.prose.append(parsed.text)
                if ctx.wants(AssistantTextDelta):
                    yield AssistantTextDelta(agent=ctx.name, text=parsed.text)
            elif isinstance(parsed, ToolCallCompleted):
                yield from self._call(parsed.invocation, ctx)
            elif isinstance(parsed, ToolCallFailed):
                yield from self._report(parsed.error, self._reserve(parsed.error, ctx), ctx,
                                        cut_off=cut_off)

    def _native(self, call: NativeToolCall, ctx: AgentContext, turn: TurnState) -> Effects:
        """A provider's structured call: arguments that are not a JSON object become an
        ``invalid_json`` error result the model sees, never a crash (seed 002 section 7).
        It keeps its place among the calls now; its result waits for the end of the response,
        which says whether the arguments were cut off."""
        if call.unreadable is not None:  # a text call its LLM could not read
            error = dataclasses.replace(call.unreadable, index=len(turn.schedule))
            turn.held.append((error, self._reserve(error, ctx)))
            return
        ok, arguments, reason = load_json(call.arguments) if call.arguments.strip() else (
            True, {}, "")
        if not ok:
            arguments, problem = {}, f"are not valid JSON ({reason})"
        else:
            problem = "" if isinstance(arguments, dict) else "are not a JSON object"
        if problem or not call.name:
            error = ParseErrorInfo(
                message=f"invalid_json: the arguments of {call.name!r} {problem}" if problem
                else 'a tool call needs a non-empty "name"',
                snippet=call.arguments[:240], index=len(turn.schedule), format="native",
                name=call.name, id=call.id,
            )
            turn.held.append((error, self._reserve(error, ctx)))
            return
        yield from self._call(ctx.native_calls.build(call.name, arguments, call.id), ctx)

    @staticmethod
    def _call(invocation: ToolInvocation, ctx: AgentContext) -> Effects:
        turn = ctx.turn
        assert turn is not None
        slot = turn.schedule.add(invocation, ctx.env.tools.find(invocation.name))
        ctx.env.hooks.call_parsed(turn, slot)
        if ctx.wants(ToolCallParsed):
            yield ToolCallParsed(agent=ctx.name, invocation=invocation)
        if ctx.env.hooks.admit_early(turn, slot):  # (the session writer: once it is stored)
            yield PendingToolInvocation(agent=ctx.name, invocation=invocation)
        else:
            turn.deferred.append(invocation)

    @staticmethod
    def _reserve(error: ParseErrorInfo, ctx: AgentContext) -> ToolInvocation:
        """The failed call's slot, in its place among the response's calls."""
        name = error.name or "unknown"
        placeholder = ToolInvocation(
            id=ctx.ids.claim(error.id) if error.id else ctx.ids.allocate(
                name, {"unparsed": error.snippet}
            ),
            name=name,
        )
        turn = ctx.turn
        assert turn is not None
        turn.schedule.add(placeholder, ctx.env.tools.find(name))  # PENDING until its result arrives
        return placeholder

    @staticmethod
    def _report(error: ParseErrorInfo, placeholder: ToolInvocation, ctx: AgentContext,
                *, cut_off: bool) -> Effects:
        """The failed call's PARSE_ERROR result: what to fix, or that the output was cut off."""
        if cut_off:
            error = dataclasses.replace(
                error, message=f"{CUT_OFF}, so this call came back incomplete ({error.message})")
            suggestion = ("make the call again with less output (shorter arguments), or split "
                          "the work into several smaller calls")
        elif error.format != "native":
            suggestion = (f"write the call again in the {error.format} format shown in the "
                          "instructions")
        else:
            suggestion = "call the tool again with a JSON object of arguments"
        turn = ctx.turn
        assert turn is not None
        ctx.env.hooks.call_unreadable(turn, error, placeholder.id)
        yield ToolCallParseFailed(agent=ctx.name, error=error, invocation_id=placeholder.id)
        result = ToolResult.failure(placeholder, ErrorCode.PARSE_ERROR, error.message,
                                    suggestion=suggestion, started=False)
        turn.failed[placeholder.id] = result
        yield ToolResultReceived(agent=ctx.name, result=result)
