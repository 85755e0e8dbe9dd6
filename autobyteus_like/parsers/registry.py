"""The built-in parser of each format."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from types import MappingProxyType

from autobyteus_like.parsers.base import FormatParser
from autobyteus_like.parsers.execute_parser import ExecuteParser
from autobyteus_like.parsers.json_parser import JsonToolCallParser
from autobyteus_like.parsers.text_only_parser import TextOnlyParser
from autobyteus_like.parsers.tool_call_parser import ToolCallTagParser
from autobyteus_like.parsers.xml_parser import XmlToolCallParser
from autobyteus_like.tool_call_format import ToolCallFormat
from autobyteus_like.tools.invocation_ids import InvocationIdAllocator
from autobyteus_like.tools.registry import ToolRegistry

__all__ = ["BUILTIN_PARSERS", "ParserFactory"]

ParserFactory = Callable[[ToolRegistry | None, InvocationIdAllocator], FormatParser]

BUILTIN_PARSERS: Mapping[ToolCallFormat, ParserFactory] = MappingProxyType(
    {
        ToolCallFormat.OPENAI: partial(JsonToolCallParser, format=ToolCallFormat.OPENAI),
        ToolCallFormat.GEMINI: partial(JsonToolCallParser, format=ToolCallFormat.GEMINI),
        ToolCallFormat.JSON: partial(JsonToolCallParser, format=ToolCallFormat.JSON),
        ToolCallFormat.XML: XmlToolCallParser,
        ToolCallFormat.EXECUTE: ExecuteParser,
        ToolCallFormat.TOOL_CALL: ToolCallTagParser,
        ToolCallFormat.NATIVE: TextOnlyParser,
    }
)
