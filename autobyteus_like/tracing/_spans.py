"""AgentSpans: one agent's spans by the OpenTelemetry GenAI conventions, made through the
turn's hooks on its actor thread (handlers never see it).

``invoke_agent {agent}`` spans a turn, ``chat {model}`` each LLM request in it and
``execute_tool {tool}`` each call, from validation (approval waits included, as span events)
to its result. A turn started by a teammate's message is a child of the sender's
``send_message_to`` span, so a team run is one trace. Content is recorded only when asked,
redacted as events are.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from autobyteus_like.hooks._protocol import AgentHooks, CallView, TurnView
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._redaction import redact_invocation, redact_result
from autobyteus_like.tracing import _names as names
from autobyteus_like.tracing._settings import SpanDirectory

if TYPE_CHECKING:
    from autobyteus_like.errors import UsageLimitExceededError
    from autobyteus_like.events import (
        LLMRequestFailed,
        LLMResponseCompleted,
        UserMessageReceived,
    )
    from autobyteus_like.llm._messages import Message
    from autobyteus_like.parsers._parse_events import ParseErrorInfo

__all__ = ["AgentSpans"]


def _messages(role: str, text: str) -> str:
    """Content as the conventions' message JSON."""
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}],
                      ensure_ascii=False)


class AgentSpans(AgentHooks):
    """Turns one agent's turns into spans."""

    def __init__(self, tracer: Tracer, agent: str, provider: str, model: str, *,
                 content: bool, directory: SpanDirectory) -> None:
        self._tracer = tracer
        self._agent = agent
        self._model = model
        self._content = content
        self._directory = directory
        self._common = {names.PROVIDER: names.provider_name(provider),
                        names.REQUEST_MODEL: model}
        self._parents: dict[int, Any] = {}
        self._inputs: dict[int, str] = {}
        self._turn: tuple[int, Span] | None = None
        self._chats: dict[int, Span] = {}
        self._tools: dict[str, Span] = {}

    def message_received(self, message: UserMessageReceived) -> None:
        self._parents[message.turn_id] = message.trace_parent
        if self._content:
            self._inputs[message.turn_id] = message.text

    def request_failed(self, turn: TurnView, failure: LLMRequestFailed) -> None:
        span = self._chats.pop(failure.request_no, None)
        if span is not None:
            span.set_attribute(names.ERROR_TYPE, failure.error_type)
            span.set_status(Status(StatusCode.ERROR, failure.error))
            span.end()

    def call_unreadable(self, turn: TurnView, error: ParseErrorInfo, invocation_id: str
                        ) -> None:
        if self._turn is not None:
            self._turn[1].add_event("gen_ai.tool.call.parse_error", {
                names.TOOL_CALL_ID: invocation_id, "error.message": error.message})

    def run_ended(self, error: UsageLimitExceededError) -> None:
        if self._turn is not None:
            self._turn[1].add_event("usage_limit_exceeded", {"limit": error.limit,
                                                             "message": str(error)})

    # -- turns and LLM requests -------------------------------------------------------------

    def _turn_span(self, turn_id: int) -> Span:
        if self._turn is not None and self._turn[0] == turn_id:
            return self._turn[1]
        parent = self._parents.pop(turn_id, None)
        context = (trace.set_span_in_context(trace.NonRecordingSpan(parent))
                   if parent is not None else None)
        span = self._tracer.start_span(
            f"invoke_agent {self._agent}", context=context, kind=SpanKind.INTERNAL,
            attributes={names.OPERATION: "invoke_agent", names.AGENT_NAME: self._agent,
                        **self._common, "autobyteus.turn_id": turn_id})
        text = self._inputs.pop(turn_id, None)
        if text is not None:
            span.set_attribute(names.INPUT_MESSAGES, _messages("user", text))
        self._turn = (turn_id, span)
        return span

    def request_sent(self, turn: TurnView, messages: Sequence[Message]) -> None:
        span = self._turn_span(turn.turn_id)
        self._chats[turn.request_no] = self._tracer.start_span(
            f"chat {self._model}", context=trace.set_span_in_context(span),
            kind=SpanKind.CLIENT,
            attributes={names.OPERATION: "chat", **self._common,
                        names.AGENT_NAME: self._agent})

    def response_received(self, turn: TurnView, response: LLMResponseCompleted) -> None:
        event = response
        span = self._chats.pop(event.request_no, None)
        if span is None:
            return
        for name, value in ((names.INPUT_TOKENS, event.input_tokens),
                            (names.OUTPUT_TOKENS, event.output_tokens),
                            (names.CACHE_READ_TOKENS, event.cached_input_tokens),
                            (names.REASONING_TOKENS, event.reasoning_tokens)):
            if value is not None:
                span.set_attribute(name, value)
        if event.finish_reason is not None:
            span.set_attribute(names.FINISH_REASONS, [event.finish_reason])
        if event.answered_by is not None:  # a fallback model answered
            provider, model = event.answered_by
            span.set_attribute(names.RESPONSE_MODEL, model)
            span.set_attribute(names.FALLBACK_MODEL, f"{provider}/{model}")
            for reason in event.fallbacks:
                span.add_event("fallback", {"reason": reason})
        for what, now, reason in event.adapted:  # the LLM adapted to its server (auto)
            span.set_attribute(f"autobyteus.adapted.{what}", now)
            span.set_attribute(f"autobyteus.adapted.{what}.reason", reason)
        span.end()

    def turn_ended(self, turn: TurnView, messages: Sequence[Message], answer: str,
                   error: str | None) -> None:
        if self._turn is None or self._turn[0] != turn.turn_id:
            return
        span = self._turn[1]
        self._turn = None
        if error is not None:
            span.set_attribute(names.ERROR_TYPE, "TurnFailed")
            span.set_status(Status(StatusCode.ERROR, error))
        elif self._content:
            span.set_attribute(names.OUTPUT_MESSAGES, _messages("assistant", answer))
        span.end()

    # -- tool calls -------------------------------------------------------------------------

    def call_pending(self, turn: TurnView, slot: CallView) -> None:
        call = slot.invocation
        parent = self._turn[1] if self._turn is not None else None
        span = self._tracer.start_span(
            f"execute_tool {call.name}",
            context=trace.set_span_in_context(parent) if parent is not None else None,
            kind=SpanKind.INTERNAL,
            attributes={names.OPERATION: "execute_tool", names.TOOL_NAME: call.name,
                        names.TOOL_CALL_ID: call.id, names.TOOL_TYPE: "function",
                        names.AGENT_NAME: self._agent})
        if self._content:
            shown = redact_invocation(call, slot.tool)
            span.set_attribute(names.TOOL_ARGUMENTS,
                               json.dumps(shown.arguments, ensure_ascii=False, default=str))
        self._tools[call.id] = span
        self._directory.add(self._agent, call.id, span.get_span_context())

    def call_finished(self, turn: TurnView, call: CallView) -> None:
        result = call.result
        assert result is not None
        span = self._tools.pop(result.invocation_id, None)
        if span is None:  # a call that never started a span (a parse error's slot)
            return
        self._directory.remove(self._agent, result.invocation_id)
        if result.error is not None and result.error.code is ErrorCode.DENIED:
            span.add_event("approval_denied", {"reason": result.error.message})
        if result.error is not None:
            span.set_attribute(names.ERROR_TYPE, result.error.code.value)
            span.set_status(Status(StatusCode.ERROR, result.error.message))
        if self._content:
            shown = redact_result(result, call.tool)
            span.set_attribute(names.TOOL_RESULT,
                               json.dumps(shown.content, ensure_ascii=False, default=str))
        span.end()

    def call_waiting(self, turn: TurnView, call: CallView) -> None:
        span = self._tools.get(call.invocation.id)
        if span is not None:
            span.add_event("approval_requested")

    def call_approved(self, turn: TurnView, call: CallView) -> None:
        span = self._tools.get(call.invocation.id)
        if span is not None:
            span.add_event("approval_granted")

    def close(self) -> None:
        """The agent stopped: end every open span, marked as cut short."""
        stopped = Status(StatusCode.ERROR, "the agent stopped")
        spans = [*self._tools.values(), *self._chats.values(),
                 *((self._turn[1],) if self._turn is not None else ())]
        for call_id in self._tools:
            self._directory.remove(self._agent, call_id)
        self._tools.clear()
        self._chats.clear()
        self._turn = None
        for span in spans:
            span.set_status(stopped)
            span.end()
