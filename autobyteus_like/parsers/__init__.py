"""Reading tool calls back out of LLM text, whole or streamed, in every format."""

from autobyteus_like.parsers.base import FormatParser
from autobyteus_like.parsers.events import (
    ParseErrorInfo,
    ParseEvent,
    ParseResult,
    TextDelta,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
)
from autobyteus_like.parsers.streaming import StreamingToolCallParser, parse_tool_calls
from autobyteus_like.tools.invocation_ids import InvocationIdAllocator

__all__ = [
    "FormatParser",
    "InvocationIdAllocator",
    "ParseErrorInfo",
    "ParseEvent",
    "ParseResult",
    "StreamingToolCallParser",
    "TextDelta",
    "ToolCallCompleted",
    "ToolCallFailed",
    "ToolCallStarted",
    "parse_tool_calls",
]
