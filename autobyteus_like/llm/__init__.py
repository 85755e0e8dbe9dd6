"""LLMs: the streaming interface, messages, ScriptedLLM (the offline provider), and
FallbackLLM, OpenAILLM (``autobyteus_like.llm.openai_llm``, loaded on use: it needs the
openai extra; so does ``openai_responses_llm.OpenAIResponsesLLM``)."""

from autobyteus_like.llm.base import LLM, LLMError
from autobyteus_like.llm.fallback import FallbackLLM
from autobyteus_like.llm.messages import LLMChunk, LLMRequest, Message, NativeToolCall, TokenUsage
from autobyteus_like.llm.scripted import (
    FunctionLLM,
    ScriptedLLM,
    ScriptedReply,
    ScriptExhaustedError,
)

__all__ = [
    "LLM",
    "FallbackLLM",
    "FunctionLLM",
    "LLMChunk",
    "LLMError",
    "LLMRequest",
    "Message",
    "NativeToolCall",
    "ScriptExhaustedError",
    "ScriptedLLM",
    "ScriptedReply",
    "TokenUsage",
]
