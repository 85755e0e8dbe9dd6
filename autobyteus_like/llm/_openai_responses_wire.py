"""The OpenAI Responses API wire format: input items from our messages, function tools from
our definitions, and the reader that assembles a streamed response into our chunks.

Stateless by design (``store: false``): every request carries the whole conversation as items.
An assistant turn becomes its reasoning items (kept verbatim, ``encrypted_content`` included,
so a reasoning model keeps its reasoning across tool calls), its text, and one
``function_call`` item per call; results become ``function_call_output`` items in invocation
order. Reasoning items travel in ``Message.carried`` (``{"wire": "openai-responses", "item":
{...}}``), which every other wire ignores.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from autobyteus_like.llm import _finish_reasons as finish_reasons
from autobyteus_like.llm._messages import LLMRequest, Message, NativeToolCall, TokenUsage
from autobyteus_like.llm._openai_wire import result_text
from autobyteus_like.llm._wire_images import responses_image
from autobyteus_like.llm._wire_names import WireNames
from autobyteus_like.tools._invocation import ToolResult

__all__ = ["WIRE", "ResponsesStreamReader", "carried_items", "encode_input", "encode_tools"]

WIRE = "openai-responses"
"""The name carried items of this wire go by."""

_KEPT_REASONING_KEYS = ("type", "id", "summary", "content", "encrypted_content")


def encode_tools(request: LLMRequest, names: WireNames) -> list[dict[str, Any]]:
    """Function tools (flat, not nested under ``function`` as in Chat Completions)."""
    return [
        {"type": "function", "name": names.wire(tool.name), "description": tool.description,
         "parameters": tool.shared_inline_schema, "strict": False}
        for tool in request.tools
    ]


def encode_input(messages: tuple[Message, ...] | list[Message], names: WireNames
                 ) -> list[dict[str, Any]]:
    """The conversation as Responses input items, in order."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            items.extend(
                {"type": "function_call_output", "call_id": result.invocation_id,
                 "output": _output(result)}
                for result in message.tool_results
            )
        elif message.role == "assistant":
            items.extend(carried_items(message))
            if message.content:
                items.append({"type": "message", "role": "assistant",
                              "content": [{"type": "output_text", "text": message.content}]})
            items.extend(
                {"type": "function_call", "call_id": call.id, "name": names.wire(call.name),
                 "arguments": json.dumps(call.arguments, ensure_ascii=False)}
                for call in message.tool_calls
            )
        elif message.images:
            items.append({"role": "user", "content": [
                *([{"type": "input_text", "text": message.content}] if message.content else []),
                *(responses_image(image) for image in message.images)]})
        else:
            items.append({"role": "user", "content": message.content})
    return items


def _output(result: ToolResult) -> str | list[dict[str, Any]]:
    """A result's text, or its text and images as ``input_text``/``input_image`` parts."""
    if not result.images:
        return result_text(result)
    return [{"type": "input_text", "text": result_text(result)},
            *(responses_image(image) for image in result.images)]


def carried_items(message: Message) -> list[dict[str, Any]]:
    """The items of this wire an assistant message carries back (reasoning, as received)."""
    return [dict(entry["item"]) for entry in message.carried
            if entry.get("wire") == WIRE and isinstance(entry.get("item"), dict)]


def _get(obj: Any, key: str) -> Any:
    """A field of an SDK object or of a plain dict (None if absent)."""
    if obj is None:
        return None
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _plain(obj: Any) -> Any:
    """An SDK model as plain JSON data (dicts, lists, scalars)."""
    dump = getattr(obj, "model_dump", None)
    if dump is not None:
        return dump(mode="json", exclude_none=True)
    return obj


@dataclass
class _Call:
    call_id: str | None
    name: str
    arguments: list[str] = field(default_factory=list)
    done: str | None = None


class ResponsesStreamReader:
    """Reads one response's events (SDK objects or dicts); ``feed`` returns the text and the
    calls each event completes; ``result`` the usage, finish and carried items at the end.

    A call is complete at its ``response.output_item.done`` (or, should that never come, at
    ``response.completed``), with the arguments of ``function_call_arguments.done`` when sent,
    else the deltas joined. Calls come out in ``output_index`` order of their completion, which
    the API sends in order.
    """

    def __init__(self, names: WireNames) -> None:
        self._names = names
        self._calls: dict[str, _Call] = {}
        self._emitted: set[str] = set()
        self.carried: list[dict[str, Any]] = []
        self.usage: TokenUsage | None = None
        self.status: str | None = None
        self.incomplete_reason: str | None = None
        self.response_id: str | None = None
        self.made_calls = False
        self.refused = False
        self.failure: tuple[str | None, str] | None = None

    def feed(self, event: Any) -> tuple[str, list[NativeToolCall]]:
        """Take one event. A failed response or an error event sets ``failure`` (its code
        and message); the caller ends the request there."""
        kind = _get(event, "type")
        if kind == "response.output_text.delta":
            return str(_get(event, "delta") or ""), []
        if kind == "response.refusal.delta":  # the model declined: its words are the answer
            self.refused = True
            return str(_get(event, "delta") or ""), []
        if kind == "response.output_item.added":
            self._added(_get(event, "item"))
        elif kind == "response.function_call_arguments.delta":
            call = self._calls.get(str(_get(event, "item_id")))
            if call is not None:
                call.arguments.append(str(_get(event, "delta") or ""))
        elif kind == "response.function_call_arguments.done":
            call = self._calls.get(str(_get(event, "item_id")))
            if call is not None and isinstance(_get(event, "arguments"), str):
                call.done = _get(event, "arguments")
        elif kind == "response.output_item.done":
            return "", self._item_done(_get(event, "item"))
        elif kind in ("response.created", "response.in_progress"):
            self.response_id = _get(_get(event, "response"), "id") or self.response_id
        elif kind in ("response.completed", "response.incomplete"):
            return "", self._finished(_get(event, "response"))
        elif kind == "response.failed":
            error = _get(_get(event, "response"), "error")
            self.failure = (_get(error, "code"),
                            str(_get(error, "message") or "the response failed"))
        elif kind == "error":
            self.failure = (_get(event, "code"), str(_get(event, "message") or "an error event"))
        return "", []

    def _added(self, item: Any) -> None:
        if _get(item, "type") == "function_call":
            self._calls[str(_get(item, "id"))] = _Call(
                _get(item, "call_id"), str(_get(item, "name") or ""),
                [str(_get(item, "arguments") or "")])

    def _item_done(self, item: Any) -> list[NativeToolCall]:
        kind = _get(item, "type")
        if kind == "reasoning":
            data = _plain(item)
            if isinstance(data, dict):
                kept = {key: data[key] for key in _KEPT_REASONING_KEYS if key in data}
                self.carried.append({"wire": WIRE, "item": kept})
            return []
        if kind != "function_call":
            return []
        key = str(_get(item, "id"))
        call = self._calls.pop(key, None) or _Call(None, "")
        call.call_id = _get(item, "call_id") or call.call_id
        call.name = _get(item, "name") or call.name
        arguments = _get(item, "arguments")
        if isinstance(arguments, str):
            call.done = arguments
        return [self._emit(key, call)]

    def _emit(self, key: str, call: _Call) -> NativeToolCall:
        self._emitted.add(key)
        self.made_calls = True
        arguments = call.done if call.done is not None else "".join(call.arguments)
        return NativeToolCall(call.call_id, self._names.name(call.name), arguments)

    def _finished(self, response: Any) -> list[NativeToolCall]:
        self.status = _get(response, "status")
        self.response_id = _get(response, "id") or self.response_id
        details = _get(response, "incomplete_details")
        self.incomplete_reason = _get(details, "reason")
        usage = _get(response, "usage")
        if usage is not None:
            self.usage = TokenUsage(
                _get(usage, "input_tokens") or 0, _get(usage, "output_tokens") or 0,
                reasoning_tokens=_get(_get(usage, "output_tokens_details"), "reasoning_tokens"),
                cached_input_tokens=_get(_get(usage, "input_tokens_details"), "cached_tokens"))
        left = [self._emit(key, call) for key, call in self._calls.items()
                if key not in self._emitted]
        self._calls = {}
        return left

    @property
    def provider_finish(self) -> str | None:
        """``completed``, or the reason a response is incomplete (``max_output_tokens``)."""
        if self.status == "incomplete":
            return self.incomplete_reason or "incomplete"
        return self.status

    @property
    def finish(self) -> str | None:
        """The common vocabulary (``finish_reasons``)."""
        if self.status is None:
            return None
        if self.status == "incomplete":
            return {"max_output_tokens": finish_reasons.LENGTH,
                    "content_filter": finish_reasons.CONTENT_FILTER}.get(
                        self.incomplete_reason or "", self.incomplete_reason)
        if self.refused:
            return finish_reasons.CONTENT_FILTER
        return finish_reasons.TOOL_CALLS if self.made_calls else finish_reasons.STOP
