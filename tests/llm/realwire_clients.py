"""The official SDK clients pointed at a replay server, and the tools a recording's request
declared: what the realwire replay tests (tests/llm, tests/usage) build alike."""

from __future__ import annotations

from autobyteus_like import tool
from autobyteus_like.llm import LLM
from autobyteus_like.llm._anthropic import AnthropicLLM
from autobyteus_like.llm._gemini import GeminiLLM
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.tools import ToolDefinition
from tests.llm.replay_server import ReplayServer


def provider_llm(provider: str, server: ReplayServer) -> LLM:
    """The recording's provider, on its SDK, talking to ``server`` (no retries)."""
    root = server.base_url.removesuffix("/v1")
    if provider == "openai":
        return OpenAILLM("recorded", base_url=server.base_url, api_key="k", max_retries=0)
    if provider == "anthropic":
        return AnthropicLLM("recorded", base_url=root, api_key="k", max_retries=0)
    return GeminiLLM("recorded", base_url=root + "/", api_key="k", max_retries=0)


def declared(names: list[str]) -> tuple[ToolDefinition, ...]:
    """The recording's client tools, declared as a native request would (names as recorded)."""

    def anything() -> str:
        """Stands in for the recorded tool."""
        return ""

    return tuple(tool(name=name)(anything) for name in dict.fromkeys(names))
