"""The names of the tool-call formats and which one each provider gets by default."""

from __future__ import annotations

from enum import StrEnum

from autobyteus_like.llm._providers import LLMProvider, parse_member

__all__ = ["NATIVE", "TEXT_FORMATS", "ToolCallFormat", "format_for_provider"]


class ToolCallFormat(StrEnum):
    """How tools are taught to an LLM and how its calls are read back."""

    OPENAI = "openai"
    GEMINI = "gemini"
    JSON = "json"
    XML = "xml"
    EXECUTE = "execute"
    TOOL_CALL = "tool_call"
    NATIVE = "native"
    """Tools in the provider's own ``tools`` parameter; calls and results as structured data."""

    @classmethod
    def parse(cls, value: ToolCallFormat | str) -> ToolCallFormat:
        """Accept a member or its string value (case-insensitive), with a clear error."""
        return parse_member(cls, value, "tool call format", "formats")


NATIVE = ToolCallFormat.NATIVE.value
"""Native tool calling: tools in the provider's ``tools`` parameter, calls as structured data."""

TEXT_FORMATS: tuple[ToolCallFormat, ...] = tuple(f for f in ToolCallFormat
                                                if f is not ToolCallFormat.NATIVE)
"""The formats whose calls are written in the text (every one but native)."""

_PROVIDER_DEFAULTS: dict[LLMProvider, ToolCallFormat] = {
    LLMProvider.OPENAI: ToolCallFormat.OPENAI,
    LLMProvider.MISTRAL: ToolCallFormat.OPENAI,
    LLMProvider.DEEPSEEK: ToolCallFormat.OPENAI,
    LLMProvider.GROK: ToolCallFormat.OPENAI,
    LLMProvider.GEMINI: ToolCallFormat.GEMINI,
    LLMProvider.ANTHROPIC: ToolCallFormat.XML,
}


def format_for_provider(
    provider: LLMProvider | str, use_xml_tool_format: bool = False
) -> ToolCallFormat:
    """The default format for a provider; ``use_xml_tool_format`` forces XML (seed 003)."""
    if use_xml_tool_format:
        return ToolCallFormat.XML
    return _PROVIDER_DEFAULTS.get(LLMProvider.parse(provider), ToolCallFormat.JSON)
