"""The built-in formatter of each format (stateless instances, read-only table)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from autobyteus_like.formatters.base import ToolFormatter
from autobyteus_like.formatters.execute_formatter import ExecuteFormatter
from autobyteus_like.formatters.gemini_formatter import GeminiFormatter
from autobyteus_like.formatters.json_formatter import JsonFormatter
from autobyteus_like.formatters.native_formatter import NativeFormatter
from autobyteus_like.formatters.openai_formatter import OpenAiFormatter
from autobyteus_like.formatters.tool_call_formatter import ToolCallFormatter
from autobyteus_like.formatters.xml_formatter import XmlFormatter
from autobyteus_like.tool_call_format import ToolCallFormat

__all__ = ["BUILTIN_FORMATTERS", "formatter_for"]

BUILTIN_FORMATTERS: Mapping[ToolCallFormat, ToolFormatter] = MappingProxyType(
    {
        formatter.format: formatter
        for formatter in (
            OpenAiFormatter(),
            GeminiFormatter(),
            JsonFormatter(),
            XmlFormatter(),
            ExecuteFormatter(),
            ToolCallFormatter(),
            NativeFormatter(),
        )
    }
)


def formatter_for(format: ToolCallFormat | str | ToolFormatter) -> ToolFormatter:
    """The formatter for a format name, or the formatter itself if one is given."""
    if isinstance(format, ToolFormatter):
        return format
    return BUILTIN_FORMATTERS[ToolCallFormat.parse(format)]
