"""The LLM providers the library knows by name."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["LLMProvider"]


class LLMProvider(StrEnum):
    """An LLM vendor or wire family; decides the default tool-call format (seed 003)."""

    OPENAI = "openai"
    MISTRAL = "mistral"
    DEEPSEEK = "deepseek"
    GROK = "grok"
    GEMINI = "gemini"
    ANTHROPIC = "anthropic"
    OLLAMA = "ollama"
    SCRIPTED = "scripted"
    OTHER = "other"

    @classmethod
    def parse(cls, value: LLMProvider | str) -> LLMProvider:
        """Accept an enum member or its string value (case-insensitive), with a clear error."""
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            known = ", ".join(member.value for member in cls)
            raise ValueError(f"unknown LLM provider {value!r}; known providers: {known}") from None
