"""What an LLM is sent: the conversation, as immutable messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["LLMChunk", "LLMRequest", "Message", "TokenUsage"]


@dataclass(frozen=True, slots=True)
class Message:
    """One conversation message. Tool results of text formats travel as ``user`` messages."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class LLMRequest:
    """Everything one LLM call sees: the system prompt (with the tool manifest) and history."""

    system_prompt: str
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Token counts, when the provider reports them."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class LLMChunk:
    """A piece of a streamed response. ``final`` marks the last one, when the provider knows
    (it lets the agent take the last text and the end of the response as one message)."""

    text: str = ""
    usage: TokenUsage | None = None
    final: bool = False
