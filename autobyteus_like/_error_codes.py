"""ErrorCode: the machine-readable code of every failure a tool result or an error carries
(data, not an exception; ``errors`` re-exports it beside the exceptions that use it)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ErrorCode"]


class ErrorCode(StrEnum):
    """Machine-readable failure codes: seed 001's, plus the ones the runtime needs."""

    NOT_FOUND = "NOT_FOUND"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    TIMEOUT = "TIMEOUT"
    INVALID_ARGS = "INVALID_ARGS"
    MISSING_WHY = "MISSING_WHY"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    PARSE_ERROR = "PARSE_ERROR"
    DENIED = "DENIED"
    NOT_AVAILABLE = "NOT_AVAILABLE"
    """The tool's server is gone or not running (an MCP server that died; it is restarted)."""
    TOOL_ERROR = "TOOL_ERROR"
    """The tool ran and reported an error of its own (an MCP result with ``isError``)."""
    INTERRUPTED = "INTERRUPTED"
    """The call was running when its process stopped; whether it finished is unknown."""
    INTERNAL = "INTERNAL"
    LIMIT = "LIMIT"
    """A usage limit of the run (``max_tool_calls``) refused the call: it never ran."""
