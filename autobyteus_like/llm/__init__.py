"""LLMs: the streaming interface, messages, ScriptedLLM (the offline provider), and
OpenAILLM (``autobyteus_like.llm.openai_llm``, loaded on use: it needs the openai extra)."""

from autobyteus_like.llm.base import LLM, LLMError
from autobyteus_like.llm.messages import LLMChunk, LLMRequest, Message, NativeToolCall, TokenUsage
from autobyteus_like.llm.scripted import ScriptedLLM, ScriptedReply, ScriptExhaustedError

__all__ = [
    "LLM",
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
