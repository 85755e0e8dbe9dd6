"""The LLM providers the library knows by name, and reading such names as users write them."""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

__all__ = ["LLMProvider", "parse_member"]

E = TypeVar("E", bound=StrEnum)


def parse_member(cls: type[E], value: E | str, what: str, plural: str) -> E:
    """``value`` as a member of ``cls`` (case-insensitive), or a ValueError listing them all
    (``unknown {what} 'x'; known {plural}: ...``)."""
    if isinstance(value, cls):
        return value
    try:
        return cls(str(value).strip().lower())
    except ValueError:
        known = ", ".join(member.value for member in cls)
        raise ValueError(f"unknown {what} {value!r}; known {plural}: {known}") from None


class LLMProvider(StrEnum):
    """An LLM vendor or wire family; decides the default tool-call format (seed 003)."""

    OPENAI = "openai"
    MISTRAL = "mistral"
    DEEPSEEK = "deepseek"
    GROK = "grok"
    GEMINI = "gemini"
    ANTHROPIC = "anthropic"
    OLLAMA = "ollama"
    VLLM = "vllm"
    LLAMACPP = "llamacpp"
    SCRIPTED = "scripted"
    OTHER = "other"

    @classmethod
    def parse(cls, value: LLMProvider | str) -> LLMProvider:
        """Accept a member or its string value (case-insensitive), with a clear error."""
        return parse_member(cls, value, "LLM provider", "providers")
