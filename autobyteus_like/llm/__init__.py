"""LLMs: the streaming interface, messages, ScriptedLLM (the offline provider), FallbackLLM,
and the providers' LLMs, each loaded on first use since each needs its extra: ``OpenAILLM`` and
``OpenAIResponsesLLM`` (openai), ``AnthropicLLM`` (anthropic), ``GeminiLLM`` (gemini)."""

from typing import TYPE_CHECKING, Any

from autobyteus_like.llm._base import LLM, LLMError
from autobyteus_like.llm._fallback import FallbackLLM, fallback_reason
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, Message, NativeToolCall, TokenUsage
from autobyteus_like.llm._scripted import ScriptedLLM, ScriptedReply, ScriptExhaustedError

if TYPE_CHECKING:
    from autobyteus_like.llm._anthropic import AnthropicLLM
    from autobyteus_like.llm._gemini import GeminiLLM
    from autobyteus_like.llm._openai import OpenAILLM
    from autobyteus_like.llm._openai_responses import OpenAIResponsesLLM


def __getattr__(name: str) -> Any:
    """A provider's LLM class, imported when first asked for (each needs its extra)."""
    value: Any
    if name == "OpenAILLM":
        from autobyteus_like.llm._openai import OpenAILLM as value
    elif name == "OpenAIResponsesLLM":
        from autobyteus_like.llm._openai_responses import OpenAIResponsesLLM as value
    elif name == "AnthropicLLM":
        from autobyteus_like.llm._anthropic import AnthropicLLM as value
    elif name == "GeminiLLM":
        from autobyteus_like.llm._gemini import GeminiLLM as value
    else:
        raise AttributeError(f"module 'autobyteus_like.llm' has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "LLM",
    "AnthropicLLM",
    "FallbackLLM",
    "GeminiLLM",
    "LLMChunk",
    "LLMError",
    "LLMRequest",
    "Message",
    "NativeToolCall",
    "OpenAILLM",
    "OpenAIResponsesLLM",
    "ScriptExhaustedError",
    "ScriptedLLM",
    "ScriptedReply",
    "TokenUsage",
    "fallback_reason",
]
