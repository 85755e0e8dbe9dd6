"""``tool_format: auto``: native tool calling where the provider and server handle it, and a
text format (XML first, then JSON) for the rest of the LLM's life where they do not.

The agent's turn always speaks native (tools declared, calls as ``NativeToolCall``, results as
``tool`` messages); this LLM translates. It switches to text when a request with tools fails in
a way that says the server cannot take them (a 4xx/5xx answer other than auth, not-found or
rate limits; an OpenAI-compatible server that cannot stream them is first asked unstreamed by
the wire itself), or when the member's ``tool_choice`` requires a call and a reply brings none
before native calls have worked once. In a text format the manifest is added to the system
prompt, the history is written in that format, and the reply is read by the format's parser:
prose streams on as text, each call becomes a ``NativeToolCall`` (one that cannot be read
carries its ``ParseErrorInfo``, so the model is told in the format's own terms). A required
call missing from an XML reply moves on to JSON. Each switch is reported once as an
``Adaptation`` chunk (the agent's ``LLMAdapted`` event and its span say which and why).

While a required call has not yet been seen to work in the current format, a reply is held
back until it is known to hold a call, so a reply that is redone never shows twice.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Generator, Iterator, Sequence
from typing import Any

from autobyteus_like.agent._ruled_llm import with_rules
from autobyteus_like.errors import LLMError
from autobyteus_like.formats import builtin_format
from autobyteus_like.formatters._base import ToolFormatter
from autobyteus_like.formatters._manifest import build_manifest
from autobyteus_like.formatters._tool_choice import RuledFormatter
from autobyteus_like.llm._base import LLM, WrappingLLM
from autobyteus_like.llm._messages import (
    Adaptation,
    LLMChunk,
    LLMRequest,
    Message,
    NativeToolCall,
    TokenUsage,
)
from autobyteus_like.parsers._call_policy import CallPolicy
from autobyteus_like.parsers._parse_events import (
    ParseEvent,
    TextDelta,
    ToolCallCompleted,
    ToolCallFailed,
)
from autobyteus_like.tools._call_rules import CallRules
from autobyteus_like.tools._invocation import ErrorCode, ToolInvocation, ToolResult
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["TEXT_FALLBACKS", "FormatAdaptingLLM"]

TEXT_FALLBACKS = ("xml", "json")
"""The text formats tried, in order, once native calls do not work."""

_NOT_ABOUT_TOOLS = frozenset({401, 403, 404, 408, 409, 429})
"""Statuses that say nothing about tools (a key, a model name, a rate limit)."""

Chunks = Generator[LLMChunk, None, str | None]
"""Yields a reply's chunks; returns why the format must change (None: it need not)."""


class FormatAdaptingLLM(WrappingLLM):
    """``inner`` with ``rules``, native first, switching to a text format when it must."""

    def __init__(self, inner: LLM, rules: CallRules) -> None:
        super().__init__(inner)
        self.rules = rules
        self.text_format: str | None = None
        """The text format in use (None: native)."""
        self._proven = False
        self._policy: CallPolicy | None = None
        self._carried: TokenUsage | None = None


    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        request = with_rules(request, self.rules)
        if not request.tools:
            yield from self.inner.stream(request, cancel)
            return
        if self.text_format is None:
            reason = yield from self._native(request, cancel)
        else:
            reason = yield from self._text(request, cancel)
        while reason is not None and not cancel.is_set():
            following = (TEXT_FALLBACKS[TEXT_FALLBACKS.index(self.text_format) + 1]
                         if self.text_format else TEXT_FALLBACKS[0])
            self.text_format, self._proven = following, False
            self._policy = CallPolicy(builtin_format(following).parser_factory, self.rules)
            yield LLMChunk(adapted=Adaptation("tool_format", following, reason))
            reason = yield from self._text(request, cancel)

    def _forced(self, request: LLMRequest) -> bool:
        """Whether this reply is held back: it must call, and calls are not yet seen to
        work in the current format."""
        choice = request.rules.choice
        return choice is not None and choice.forces_a_call and not self._proven

    def _native(self, request: LLMRequest, cancel: threading.Event) -> Chunks:
        held: list[LLMChunk] = []
        hold, shown, called = self._forced(request), False, False
        try:
            for chunk in self.inner.stream(request, cancel):
                called = called or bool(chunk.tool_calls)
                if chunk.adapted is None and hold and not called:
                    held.append(chunk)
                    continue
                shown = shown or chunk.adapted is None
                yield from self._released(held)
                held = []
                yield self._with_carried(chunk)
        except LLMError as error:
            if shown or cancel.is_set() or error.status is None or \
                    error.status in _NOT_ABOUT_TOOLS:
                raise
            return f"native tool calling failed on this server ({error.message})"
        if called:
            self._proven = True
        elif hold and not cancel.is_set():
            self._carry(held)
            return ("the model answered without the tool call its tool_choice requires, "
                    "on native tool calling")
        yield from self._released(held)
        return None

    def _text(self, request: LLMRequest, cancel: threading.Event) -> Chunks:
        assert self.text_format is not None and self._policy is not None
        formatter = builtin_format(self.text_format).formatter
        if self.rules.any:
            formatter = RuledFormatter(formatter, self.rules)
        parser = self._policy(ToolRegistry(request.tools), InvocationIdAllocator())
        text_request = LLMRequest(_with_manifest(request, formatter),
                                  _written(request.messages, formatter), rules=request.rules)
        held: list[LLMChunk] = []
        endings: list[LLMChunk] = []
        hold, called = self._forced(request), False
        for chunk in self.inner.stream(text_request, cancel):
            if chunk.adapted is not None:
                yield chunk
                continue
            if chunk.text:
                out = _chunks(parser.feed(chunk.text))
                called = called or any(c.tool_calls for c in out)
                held.extend(out)
            if chunk.usage is not None or chunk.finish_reason is not None:
                endings.append(dataclasses.replace(chunk, text="", tool_calls=(), final=False))
            if not hold or called:
                yield from self._released(held)
                held = []
        if cancel.is_set():
            return None
        held.extend(_chunks(parser.finish()))
        held.extend(endings)
        if self._policy.missed and not self._proven and \
                self.text_format != TEXT_FALLBACKS[-1]:
            self._policy.asked = False
            self._carry(held)
            return (f"the model answered without the tool call its tool_choice requires, in "
                    f"the {self.text_format} format")
        if any(c.tool_calls for c in held) or called:
            self._proven = True
        yield from self._released(held)
        return None

    def _carry(self, chunks: Sequence[LLMChunk]) -> None:
        """Keep the usage of a reply that is redone: it is added to the next reply's."""
        for chunk in chunks:
            if chunk.usage is not None:
                self._carried = _sum(self._carried, chunk.usage)

    def _released(self, chunks: Sequence[LLMChunk]) -> Iterator[LLMChunk]:
        for chunk in chunks:
            yield self._with_carried(chunk)

    def _with_carried(self, chunk: LLMChunk) -> LLMChunk:
        if chunk.usage is None or self._carried is None:
            return chunk
        carried, self._carried = self._carried, None
        return dataclasses.replace(chunk, usage=_sum(carried, chunk.usage))


def _chunks(events: list[ParseEvent]) -> list[LLMChunk]:
    """Parse events as the chunks a native reply brings: prose, then each call."""
    out: list[LLMChunk] = []
    for event in events:
        if isinstance(event, TextDelta) and event.text:
            out.append(LLMChunk(text=event.text))
        elif isinstance(event, ToolCallCompleted):
            call = event.invocation
            arguments = dict(call.arguments)
            if call.why is not None and "why" not in arguments:
                arguments["why"] = call.why
            out.append(LLMChunk(tool_calls=(NativeToolCall(
                None, call.name, json.dumps(arguments, ensure_ascii=False, default=str)),)))
        elif isinstance(event, ToolCallFailed):
            error = event.error
            out.append(LLMChunk(tool_calls=(NativeToolCall(
                None, error.name or "unknown", "", unreadable=error),)))
    return out


def _with_manifest(request: LLMRequest, formatter: ToolFormatter) -> str:
    manifest = build_manifest(request.tools, formatter)
    if not manifest:
        return request.system_prompt
    prompt = request.system_prompt.rstrip()
    return f"{prompt}\n\n## Tools\n\n{manifest}" if prompt else manifest


def _written(messages: Sequence[Message], formatter: ToolFormatter) -> tuple[Message, ...]:
    """A native history as the text format writes it: each assistant message with its calls
    in the format (calls that could not be read are left out: their error says what was
    wrong), each batch of results as a user message."""
    out: list[Message] = []
    calls: dict[str, ToolInvocation] = {}
    for position, message in enumerate(messages):
        if message.role == "assistant" and message.tool_calls:
            following = messages[position + 1] if position + 1 < len(messages) else None
            unread = {result.invocation_id for result in following.tool_results
                      if result.error is not None and result.error.code == ErrorCode.PARSE_ERROR
                      } if following is not None else set()
            calls = {call.id: call for call in message.tool_calls}
            written = [formatter.format_call(call.name, _arguments(call))
                       for call in message.tool_calls if call.id not in unread]
            out.append(Message("assistant", "\n\n".join(
                part for part in (message.content.strip(), *written) if part)))
        elif message.role == "tool":
            pairs: list[tuple[ToolInvocation, ToolResult]] = [
                (calls.get(result.invocation_id) or ToolInvocation(
                    id=result.invocation_id, name="unknown"), result)
                for result in message.tool_results]
            out.append(Message("user", formatter.render_results(pairs)))
        else:
            out.append(Message(message.role, message.content))
    return tuple(out)


def _arguments(call: ToolInvocation) -> dict[str, Any]:
    if call.why is None or "why" in call.arguments:
        return dict(call.arguments)
    return {**call.arguments, "why": call.why}


def _sum(first: TokenUsage | None, second: TokenUsage) -> TokenUsage:
    if first is None:
        return second

    def plus(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    return TokenUsage(first.input_tokens + second.input_tokens,
                      first.output_tokens + second.output_tokens,
                      plus(first.reasoning_tokens, second.reasoning_tokens),
                      plus(first.cached_input_tokens, second.cached_input_tokens))
