"""LLMs: the streaming interface, messages, and ScriptedLLM (the offline provider)."""

from autobyteus_like.llm.base import LLM, LLMError
from autobyteus_like.llm.messages import LLMChunk, LLMRequest, Message, TokenUsage
from autobyteus_like.llm.scripted import ScriptedLLM, ScriptExhaustedError

__all__ = [
    "LLM",
    "LLMChunk",
    "LLMError",
    "LLMRequest",
    "Message",
    "ScriptExhaustedError",
    "ScriptedLLM",
    "TokenUsage",
]
