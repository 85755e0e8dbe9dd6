"""A whole (unstreamed) Chat Completion as the chunks a stream would have given.

Used where a server cannot stream a request with tools: the agent sees the same chunks either
way, so nothing above the wire knows which way the answer came.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from autobyteus_like.llm import _finish_reasons as finish_reasons
from autobyteus_like.llm._messages import LLMChunk, TokenUsage
from autobyteus_like.llm._openai_wire import OpenAIToolCallDecoder
from autobyteus_like.llm._wire_names import WireNames

__all__ = ["completion_chunks"]


def completion_chunks(completion: Any, names: WireNames,
                      usage_of: Callable[[Any], TokenUsage]) -> Iterator[LLMChunk]:
    """The text, then the calls with the usage and finish reason (one choice: the first).
    ``function_call`` (the legacy field) is read only when ``tool_calls`` is absent."""
    choices = getattr(completion, "choices", None) or []
    choice = choices[0] if choices else None
    message = getattr(choice, "message", None)
    text = getattr(message, "content", None)
    if isinstance(text, str) and text:
        yield LLMChunk(text=text)
    decoder = OpenAIToolCallDecoder(names)
    calls = getattr(message, "tool_calls", None) or []
    decoder.add([{"index": index, "id": getattr(call, "id", None),
                  "function": getattr(call, "function", None)}
                 for index, call in enumerate(calls)])
    legacy = getattr(message, "function_call", None)
    if not calls and legacy is not None:
        decoder.add([{"index": 0, "function": legacy}])
    usage = getattr(completion, "usage", None)
    finish = getattr(choice, "finish_reason", None)
    yield LLMChunk(tool_calls=decoder.finish(),
                   usage=usage_of(usage) if usage is not None else None,
                   finish_reason=finish_reasons.openai(finish), provider_finish_reason=finish)
