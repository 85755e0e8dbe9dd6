"""What the provider tests share: two sample tools (one with a name providers reject), a way
to read a whole stream, and each provider pointed at a local replay server."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from autobyteus_like import tool
from autobyteus_like.llm import LLM, LLMRequest, NativeToolCall, TokenUsage
from autobyteus_like.llm._anthropic import AnthropicLLM
from autobyteus_like.llm._gemini import GeminiLLM
from autobyteus_like.llm._openai import OpenAILLM
from tests.llm.replay_server import ReplayServer


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


def openai_on(server: ReplayServer, **options: Any) -> LLM:
    return OpenAILLM("gpt-4o-mini", base_url=server.base_url, api_key="k", **options)


def anthropic_on(server: ReplayServer, **options: Any) -> LLM:
    return AnthropicLLM("claude-sonnet-5", base_url=server.base_url.removesuffix("/v1"),
                        api_key="k", **options)


def gemini_on(server: ReplayServer, **options: Any) -> LLM:
    return GeminiLLM("gemini-2.5-flash", base_url=server.base_url.removesuffix("/v1") + "/",
                     api_key="k", **options)


PROVIDERS: dict[str, Callable[..., LLM]] = {
    "openai": openai_on, "anthropic": anthropic_on, "gemini": gemini_on}
"""Each real provider, made to talk to a replay server: ``PROVIDERS[name](server, **options)``."""
