"""Span names and attribute names of the OpenTelemetry GenAI semantic conventions."""

from __future__ import annotations

__all__ = ["provider_name"]

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
FALLBACK_MODEL = "autobyteus.llm.fallback_model"
AGENT_NAME = "gen_ai.agent.name"
CONVERSATION_ID = "gen_ai.conversation.id"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
REASONING_TOKENS = "gen_ai.usage.reasoning.output_tokens"
FINISH_REASONS = "gen_ai.response.finish_reasons"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
ERROR_TYPE = "error.type"

# Our provider names -> the conventions' well-known values (others stay as they are).
_PROVIDERS = {"gemini": "gcp.gemini", "mistral": "mistral_ai", "grok": "x_ai"}


def provider_name(provider: str) -> str:
    """``gen_ai.provider.name`` for one of our provider names."""
    return _PROVIDERS.get(provider, provider)
