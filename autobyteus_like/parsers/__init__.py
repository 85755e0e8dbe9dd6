"""Reading tool calls back out of LLM text, streamed, one state machine per format; the
format is given to them (by name in ``autobyteus_like.formats``, the layer above)."""

from autobyteus_like.parsers._base import FormatParser
from autobyteus_like.parsers._parse_events import (
    ParseErrorInfo,
    ParseEvent,
    ParseResult,
    TextDelta,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
)
from autobyteus_like.parsers._streaming import StreamingToolCallParser
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator

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
]
