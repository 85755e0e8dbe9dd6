"""The OpenAI Chat Completions wire format (seed 002 adapters): request bodies from our
messages and tool definitions, and the decoder that assembles streamed tool-call deltas.

Every OpenAI-compatible server (DeepSeek, Mistral, Grok, Ollama, vLLM, llama.cpp) speaks it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from autobyteus_like.llm._messages import LLMRequest, NativeToolCall
from autobyteus_like.llm._wire_images import chat_image
from autobyteus_like.llm._wire_names import WireNames
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from autobyteus_like.tools._invocation import ToolResult

__all__ = ["OpenAIToolCallDecoder", "encode_messages", "encode_rules", "encode_tools",
           "result_text"]


def result_text(result: ToolResult) -> str:
    """A result as the content of a tool message: the value, or code, message, suggestion."""
    if result.status == "failure" and result.error is not None:
        error = result.error.model_dump(mode="json", exclude={"recoverable"}, exclude_none=True)
        return json.dumps({"error": error}, ensure_ascii=False)
    content = result.content
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def encode_tools(request: LLMRequest, names: WireNames, *,
                 strict: bool = False) -> list[dict[str, Any]]:
    """``tools`` for the request, from the pydantic-made schemas (never written by hand);
    ``strict``: each schema in OpenAI's strict subset (``strict_schema``)."""
    if strict:
        from autobyteus_like.llm._strict_schema import strict_schema

        return [
            {"type": "function", "function": {
                "name": names.wire(tool.name), "description": tool.description,
                "parameters": strict_schema(tool.name, tool.shared_inline_schema),
                "strict": True,
            }}
            for tool in request.tools
        ]
    return [
        {"type": "function", "function": {
            "name": names.wire(tool.name), "description": tool.description,
            "parameters": tool.shared_inline_schema,
        }}
        for tool in request.tools
    ]


def encode_rules(rules: CallRules, names: WireNames,
                 tools: tuple[str, ...] = ()) -> dict[str, Any]:
    """``tool_choice`` (``auto`` unless the member says otherwise: several compatible servers
    leave the tools out of the prompt without it) and ``parallel_tool_calls`` when set.

    ``required`` with a single tool is sent as that tool named, which means the same and which
    more servers take (llama.cpp's fails ``required`` streamed and unstreamed)."""
    choice = rules.choice or ToolChoice()
    if choice.mode == "required" and len(tools) == 1:
        choice = ToolChoice("tool", tools[0])
    fields: dict[str, Any] = {"tool_choice": (
        {"type": "function", "function": {"name": names.wire(choice.name)}}
        if choice.mode == "tool" and choice.name else choice.mode)}
    if rules.parallel is not None:
        fields["parallel_tool_calls"] = rules.parallel
    return fields


def encode_messages(request: LLMRequest, names: WireNames) -> list[dict[str, Any]]:
    """The conversation as Chat Completions messages; results become ``role: tool`` messages
    with their ``tool_call_id``, in invocation order."""
    messages: list[dict[str, Any]] = []
    if request.system_prompt:
        messages.append({"role": "system", "content": request.system_prompt})
    for message in request.messages:
        if message.role == "tool":
            messages.extend(
                {"role": "tool", "tool_call_id": result.invocation_id,
                 "content": result_text(result)}
                for result in message.tool_results
            )
            images = [i for result in message.tool_results for i in result.images]
            if images:  # a tool message takes text only: the images follow as the user's
                messages.append({"role": "user", "content": [
                    {"type": "text", "text": "The images the tool results above name:"},
                    *(chat_image(image) for image in images)]})
        elif message.role == "assistant" and message.tool_calls:
            # Empty text as "", not null: OpenAI takes either, llama.cpp's server refuses
            # null (and its chat templates read the key, so it cannot be left out).
            messages.append({
                "role": "assistant",
                "content": message.content,
                "tool_calls": [
                    {"id": call.id, "type": "function", "function": {
                        "name": names.wire(call.name),
                        "arguments": json.dumps(call.arguments, ensure_ascii=False),
                    }}
                    for call in message.tool_calls
                ],
            })
        elif message.images:
            messages.append({"role": message.role, "content": [
                *([{"type": "text", "text": message.content}] if message.content else []),
                *(chat_image(image) for image in message.images)]})
        else:
            messages.append({"role": message.role, "content": message.content})
    return messages


def _field(obj: Any, key: str) -> Any:
    """A field of an SDK object or of a plain dict (None if absent)."""
    if obj is None:
        return None
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


@dataclass
class _Partial:
    id: str | None = None
    name: str = ""
    name_pieces: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)


def _extended(gathered: str, piece: str | None) -> str:
    """``gathered`` with ``piece`` added, unless the piece repeats (or restates) it."""
    if not piece:
        return gathered
    return piece if piece.startswith(gathered) else gathered + piece


class OpenAIToolCallDecoder:
    """Accumulates ``delta.tool_calls`` by ``index`` for one response; ``finish`` gives the
    complete calls in index order. One decoder per call: nothing carries over.

    OpenAI sends a call's ``id`` and ``function.name`` once, in its first delta; some
    compatible servers (OpenRouter to Novita, for one) repeat both in every delta. A piece
    that starts with what was gathered so far is therefore the whole value again, not more of
    it; only a piece that does not is appended. Should a server ever split a name so that a
    piece starts with the part before it, the plain concatenation is taken when it, and not
    the other reading, is one of the request's tools.
    """

    def __init__(self, names: WireNames) -> None:
        self._names = names
        self._calls: dict[int, _Partial] = {}

    def add(self, deltas: Any) -> None:
        """Take one chunk's ``delta.tool_calls`` (SDK objects or plain dicts)."""
        for delta in deltas or ():
            partial = self._calls.setdefault(_field(delta, "index") or 0, _Partial())
            partial.id = _extended(partial.id or "", _field(delta, "id")) or None
            function = _field(delta, "function")
            piece = _field(function, "name")
            if piece:
                partial.name = _extended(partial.name, piece)
                partial.name_pieces.append(piece)
            partial.arguments.append(_field(function, "arguments") or "")

    def finish(self) -> tuple[NativeToolCall, ...]:
        """The assembled calls; the decoder is empty afterwards."""
        calls = tuple(
            NativeToolCall(id=partial.id, name=self._names.name(self._name(partial)),
                           arguments="".join(partial.arguments))
            for _, partial in sorted(self._calls.items())
        )
        self._calls = {}
        return calls

    def _name(self, partial: _Partial) -> str:
        if self._names.knows(partial.name):
            return partial.name
        joined = "".join(partial.name_pieces)
        if self._names.knows(joined):
            return joined
        # llama.cpp's server hands back "add:" for add (unstreamed): a known name with
        # trailing punctuation or space is that name.
        trimmed = partial.name.strip().rstrip(":;,.")
        return trimmed if self._names.knows(trimmed) else partial.name
