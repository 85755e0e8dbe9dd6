"""Our reply chunks as Chat Completions answers: the streamed ``chat.completion.chunk``s (a
text delta as it comes, each call as soon as it is complete, with its id and its arguments in
one delta, ``finish_reason: "tool_calls"`` when there were calls) and the whole
``chat.completion``."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable
from typing import Any

from autobyteus_like.llm._messages import LLMChunk, NativeToolCall, TokenUsage

__all__ = ["ChunkWriter", "completion"]


def _usage(usage: TokenUsage | None) -> dict[str, int] | None:
    if usage is None:
        return None
    return {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens}


def _finish(called: bool, finish: str | None) -> str:
    if called:
        return "tool_calls"
    return finish if finish in ("stop", "length", "content_filter") else "stop"


def _call(call: NativeToolCall, index: int | None = None) -> dict[str, Any]:
    shown: dict[str, Any] = {"id": call.id or f"call_{secrets.token_hex(12)}",
                             "type": "function",
                             "function": {"name": call.name, "arguments": call.arguments or "{}"}}
    return shown if index is None else {"index": index, **shown}


class ChunkWriter:
    """The streamed answer's chunks, one ``of()`` per reply chunk."""

    def __init__(self, model: str, *, include_usage: bool) -> None:
        self.model = model
        self.include_usage = include_usage
        self.id = f"chatcmpl-{secrets.token_hex(12)}"
        self.created = int(time.time())
        self._calls = 0
        self._usage: TokenUsage | None = None
        self._finish: str | None = None

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    def first(self) -> dict[str, Any]:
        return self._chunk({"role": "assistant", "content": ""})

    def of(self, chunk: LLMChunk) -> list[dict[str, Any]]:
        out = []
        if chunk.text:
            out.append(self._chunk({"content": chunk.text}))
        for call in chunk.tool_calls:
            out.append(self._chunk({"tool_calls": [_call(call, self._calls)]}))
            self._calls += 1
        self._usage = chunk.usage or self._usage
        self._finish = chunk.finish_reason or self._finish
        return out

    def last(self) -> list[dict[str, Any]]:
        out = [self._chunk({}, _finish(self._calls > 0, self._finish))]
        if self.include_usage:
            out.append({"id": self.id, "object": "chat.completion.chunk",
                        "created": self.created, "model": self.model, "choices": [],
                        "usage": _usage(self._usage)})
        return out


def completion(model: str, chunks: Iterable[LLMChunk]) -> dict[str, Any]:
    """The whole answer from every reply chunk."""
    text: list[str] = []
    calls: list[NativeToolCall] = []
    usage: TokenUsage | None = None
    finish: str | None = None
    for chunk in chunks:
        text.append(chunk.text)
        calls.extend(chunk.tool_calls)
        usage, finish = chunk.usage or usage, chunk.finish_reason or finish
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = [_call(call) for call in calls]
    answer: dict[str, Any] = {
        "id": f"chatcmpl-{secrets.token_hex(12)}", "object": "chat.completion",
        "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(bool(calls),
                                                                             finish)}]}
    if usage is not None:
        answer["usage"] = _usage(usage)
    return answer
