"""Formats by name, for callers that hold a name rather than a ``ToolFormat``: the formatter
that teaches it, a streaming parser for one response, and the calls of a whole response."""

from __future__ import annotations

from autobyteus_like.formats._names import ToolCallFormat
from autobyteus_like.formats._registry import ToolFormat, builtin_format
from autobyteus_like.formatters._base import ToolFormatter
from autobyteus_like.parsers._parse_events import ParseResult
from autobyteus_like.parsers._streaming import StreamingToolCallParser, ToolsArg
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator

__all__ = ["formatter_for", "parse_tool_calls", "streaming_parser"]

FormatName = ToolFormat | ToolCallFormat | str


def _format(format: FormatName) -> ToolFormat:
    return format if isinstance(format, ToolFormat) else builtin_format(format)


def formatter_for(format: FormatName | ToolFormatter) -> ToolFormatter:
    """The formatter of a built-in format (by name) or of a ``ToolFormat``; a formatter is
    returned as it is. A ``ValueError`` lists the known names."""
    return format if isinstance(format, ToolFormatter) else _format(format).formatter


def streaming_parser(format: FormatName, tools: ToolsArg = None,
                     ids: InvocationIdAllocator | None = None) -> StreamingToolCallParser:
    """A new streaming parser for one response in ``format`` (see ``StreamingToolCallParser``)."""
    return _format(format).parser(tools, ids)


def parse_tool_calls(text: str, format: FormatName, tools: ToolsArg = None,
                     ids: InvocationIdAllocator | None = None) -> ParseResult:
    """Every call in a whole response, in document order, with errors and the prose around.

    A whole response is read by the same state machine as a stream, fed in one chunk, so the
    two can never disagree."""
    parser = streaming_parser(format, tools, ids)
    return ParseResult.from_events(parser.feed(text) + parser.finish())
