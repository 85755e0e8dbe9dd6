"""Formats: their names, which one each provider gets, and the one registry of formatter and
parser pairs. ``formatters`` and ``parsers`` sit below and are given a format; this package is
the only one that knows formats by name."""

from autobyteus_like.formats._by_name import formatter_for, parse_tool_calls, streaming_parser
from autobyteus_like.formats._names import (
    NATIVE,
    TEXT_FORMATS,
    ToolCallFormat,
    format_for_provider,
)
from autobyteus_like.formats._registry import (
    FormatRegistry,
    ParserFactory,
    ToolFormat,
    builtin_format,
)

__all__ = [
    "NATIVE",
    "TEXT_FORMATS",
    "FormatRegistry",
    "ParserFactory",
    "ToolCallFormat",
    "ToolFormat",
    "builtin_format",
    "format_for_provider",
    "formatter_for",
    "parse_tool_calls",
    "streaming_parser",
]
