"""The LLM providers the library knows by name."""

from __future__ import annotations

from enum import StrEnum

from autobyteus_like.enum_names import parse_member

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
    VLLM = "vllm"
    LLAMACPP = "llamacpp"
    SCRIPTED = "scripted"
    OTHER = "other"

    @classmethod
    def parse(cls, value: LLMProvider | str) -> LLMProvider:
        """Accept a member or its string value (case-insensitive), with a clear error."""
        return parse_member(cls, value, "LLM provider", "providers")
