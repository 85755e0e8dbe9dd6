"""The Anthropic Messages wire format (seed 002 adapters): request bodies from our messages and
tool definitions, the decoder that assembles ``input_json_delta`` by content block, and the
streamed usage."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from autobyteus_like.llm._messages import LLMRequest, NativeToolCall, TokenUsage
from autobyteus_like.llm._openai_wire import result_text
from autobyteus_like.llm._wire_images import anthropic_image
from autobyteus_like.llm._wire_names import WireNames
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from autobyteus_like.tools._invocation import ToolResult

__all__ = ["AnthropicToolCallDecoder", "AnthropicUsage", "encode_messages", "encode_rules",
           "encode_tools"]

_COUNTS = ("input_tokens", "output_tokens", "cache_read_input_tokens",
           "cache_creation_input_tokens")


def encode_tools(request: LLMRequest, names: WireNames) -> list[dict[str, Any]]:
    """``tools`` with ``input_schema`` from the pydantic-made schemas."""
    return [
        {"name": names.wire(tool.name), "description": tool.description,
         "input_schema": tool.shared_inline_schema}
        for tool in request.tools
    ]


def encode_rules(rules: CallRules, names: WireNames) -> dict[str, Any]:
    """``tool_choice``: ``auto``, ``any`` (required), ``tool`` (one named) or ``none``, with
    ``disable_parallel_tool_use`` when the member allows one call per reply."""
    choice = rules.choice or ToolChoice()
    kind = {"required": "any"}.get(choice.mode, choice.mode)
    encoded: dict[str, Any] = {"type": kind}
    if choice.mode == "tool" and choice.name:
        encoded["name"] = names.wire(choice.name)
    if rules.parallel is False and kind != "none":
        encoded["disable_parallel_tool_use"] = True
    return encoded


def encode_messages(request: LLMRequest, names: WireNames) -> list[dict[str, Any]]:
    """The conversation as Messages API turns: calls as ``tool_use`` blocks, results as one
    user turn of ``tool_result`` blocks in invocation order."""
    messages: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role == "tool":
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": result.invocation_id,
                 "content": _result_content(result), "is_error": result.status == "failure"}
                for result in message.tool_results
            ]})
        elif message.role == "assistant" and message.tool_calls:
            blocks: list[dict[str, Any]] = []
            if message.content.strip():
                blocks.append({"type": "text", "text": message.content})
            blocks.extend(
                {"type": "tool_use", "id": call.id, "name": names.wire(call.name),
                 "input": call.arguments}
                for call in message.tool_calls
            )
            messages.append({"role": "assistant", "content": blocks})
        elif message.images:
            messages.append({"role": message.role, "content": [
                *([{"type": "text", "text": message.content}] if message.content else []),
                *(anthropic_image(image) for image in message.images)]})
        else:
            messages.append({"role": message.role, "content": message.content})
    return messages


def _result_content(result: ToolResult) -> str | list[dict[str, Any]]:
    """A result's text, or its text and its images as blocks."""
    if not result.images:
        return result_text(result)
    return [{"type": "text", "text": result_text(result)},
            *(anthropic_image(image) for image in result.images)]


@dataclass
class _Block:
    id: str | None
    name: str
    json: list[str] = field(default_factory=list)
    start_input: dict[str, Any] = field(default_factory=dict)


class AnthropicToolCallDecoder:
    """Assembles ``tool_use`` blocks of one response; a call is complete at its block's stop."""

    def __init__(self, names: WireNames) -> None:
        self._names = names
        self._blocks: dict[int, _Block] = {}

    def start(self, index: int, block: Any) -> None:
        """A content block began; only ``tool_use`` blocks matter here."""
        if getattr(block, "type", None) == "tool_use":
            start_input = getattr(block, "input", None)
            self._blocks[index] = _Block(getattr(block, "id", None), getattr(block, "name", ""),
                                         start_input=start_input if isinstance(start_input, dict)
                                         else {})

    def delta(self, index: int, partial_json: str) -> None:
        """A piece of a block's arguments."""
        if index in self._blocks:
            self._blocks[index].json.append(partial_json)

    def stop(self, index: int) -> NativeToolCall | None:
        """The block ended: its complete call, if it was a tool_use block."""
        block = self._blocks.pop(index, None)
        if block is None:
            return None
        arguments = "".join(block.json) or json.dumps(block.start_input)
        return NativeToolCall(block.id, self._names.name(block.name), arguments)


class AnthropicUsage:
    """A response's usage: ``message_start`` gives the first counts; ``message_delta`` counts
    are cumulative and win where present (a turn with server tools, web search for one, reads
    far more input than it started with)."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._thinking: int | None = None

    def add(self, usage: Any) -> None:
        """Take the ``usage`` of a ``message_start`` message or a ``message_delta``."""
        for name in _COUNTS:
            value = getattr(usage, name, None)
            if isinstance(value, int):
                self._counts[name] = value
        thinking = getattr(getattr(usage, "output_tokens_details", None), "thinking_tokens", None)
        if isinstance(thinking, int):
            self._thinking = thinking

    def total(self) -> TokenUsage | None:
        """The counts in the common meaning: input includes cache reads and writes (Anthropic
        counts them apart), output includes thinking (as Anthropic does)."""
        if not self._counts:
            return None
        counts = self._counts
        read = counts.get("cache_read_input_tokens")
        return TokenUsage(
            counts.get("input_tokens", 0) + (read or 0)
            + counts.get("cache_creation_input_tokens", 0),
            counts.get("output_tokens", 0),
            reasoning_tokens=self._thinking, cached_input_tokens=read,
        )
