"""What the provider tests share: two sample tools (one with a name providers reject) and a
way to read a whole stream."""

from __future__ import annotations

import threading

from autobyteus_like import tool
from autobyteus_like.llm import LLM, LLMRequest, NativeToolCall, TokenUsage


@tool(name="fs.read")
def fs_read(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def collect(llm: LLM, request: LLMRequest) -> tuple[str, list[NativeToolCall], TokenUsage | None]:
    """The text, the native calls and the last usage of one streamed response."""
    text, calls, usage = [], [], None
    for chunk in llm.stream(request, threading.Event()):
        text.append(chunk.text)
        calls.extend(chunk.tool_calls)
        usage = chunk.usage or usage
    return "".join(text), calls, usage
