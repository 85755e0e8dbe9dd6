"""The ``tool_call`` format (seed 004): ``<TOOL_CALL>{"tool", "args", "reasoning"}</TOOL_CALL>``."""

from __future__ import annotations

from autobyteus_like.parsers._marked_block import MarkedBlockParser

__all__ = ["ToolCallTagParser"]


class ToolCallTagParser(MarkedBlockParser):
    """Invalid JSON is reported as an error and the block stays in the text."""

    format_name = "tool_call"
    open_marker = "<TOOL_CALL>"
    close_marker = "</TOOL_CALL>"
