"""A native request in a text format, and a text reply read back as native chunks: the two
halves of speaking a text format to a model while its caller speaks native calls. Used by
``tool_format: auto`` (``format_adapting``) and by the proxy (``proxy``).

``text_request_for`` adds the format's manifest to the system prompt and writes the history in
the format (each assistant message with its calls, each batch of results as a user message);
``call_chunks`` turns the format parser's events into the chunks a native reply brings: prose
as text, each call as a ``NativeToolCall`` (one that cannot be read carries its
``ParseErrorInfo``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from autobyteus_like.formats import builtin_format
from autobyteus_like.formatters._base import ToolFormatter
from autobyteus_like.formatters._manifest import build_manifest, demonstration
from autobyteus_like.formatters._tool_choice import RuledFormatter
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, Message, NativeToolCall
from autobyteus_like.parsers._parse_events import (
    ParseEvent,
    TextDelta,
    ToolCallCompleted,
    ToolCallFailed,
)
from autobyteus_like.tools._call_rules import CallRules
from autobyteus_like.tools._invocation import ErrorCode, ToolInvocation, ToolResult

__all__ = ["call_chunks", "text_request_for"]


def text_request_for(request: LLMRequest, tool_format: str, rules: CallRules, *,
                     compact: bool = False) -> LLMRequest:
    """``request`` as a model taught ``tool_format`` is sent it: no tools declared, the
    manifest (teaching ``rules`` too) in the system prompt, the history in the format.
    ``compact``: the short manifest, and one shown exchange calling a tool before the
    conversation (as ``manifest: compact`` teaches small models)."""
    formatter: ToolFormatter = builtin_format(tool_format).formatter
    if rules.any:
        formatter = RuledFormatter(formatter, rules)
    messages = _written(request.messages, formatter)
    shown = demonstration(request.tools, formatter) if compact else None
    if shown is not None:
        messages = (Message("user", shown[0]), Message("assistant", shown[1]), *messages)
    return LLMRequest(_with_manifest(request, formatter, compact), messages,
                      rules=request.rules)


def call_chunks(events: list[ParseEvent]) -> list[LLMChunk]:
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


def _with_manifest(request: LLMRequest, formatter: ToolFormatter, compact: bool = False) -> str:
    manifest = build_manifest(request.tools, formatter, compact=compact)
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


