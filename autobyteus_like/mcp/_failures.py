"""What went wrong with a server, in one line a person or an LLM can act on.

``why`` turns whatever a start or a call raised (an OS error, an HTTP error, an MCP error, a
timeout, an exception group from anyio's task groups) into a short reason. ``call_failure``
turns a failed call into the ``ToolFailure`` the LLM reads: a server that has gone is
"not available" (it is restarted on the next call), the server's JSON-RPC errors keep their
meaning, a result that does not parse is a malformed result.
"""

from __future__ import annotations

from typing import Any

import anyio

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["GONE", "MESSAGE_TOO_LARGE", "call_failure", "why"]

MESSAGE_TOO_LARGE = -32090
"""The JSON-RPC error code a transport gives a request whose answer was over the byte cap."""

# JSON-RPC and MCP error codes (mcp_types), spelled out so this module needs no SDK import.
_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001
_METHOD_NOT_FOUND = -32601
_INVALID_PARAMS = -32602

GONE = (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError)
"""Exceptions that mean the transport itself is gone."""


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _validation_summary(exc: BaseException) -> str:
    """``N problem(s), first: where: what`` for a pydantic ValidationError."""
    errors_of = getattr(exc, "errors", None)
    try:
        errors = errors_of(include_url=False) if callable(errors_of) else []
    except Exception:
        errors = []
    if not errors:
        return _one_line(str(exc), 200)
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    count = f"{len(errors)} problems, the first" if len(errors) > 1 else "the problem"
    return _one_line(f"{count}: {where}: {first.get('msg', 'invalid')}", 200)


def why(exc: BaseException) -> str:
    """One line saying what ``exc`` means for the server."""
    exc = _leaf(exc)
    code = getattr(exc, "code", None)
    kind = type(exc).__name__
    if isinstance(exc, FileNotFoundError):
        return f"cannot run {exc.filename or 'the command'!r}: no such file or directory"
    if isinstance(exc, PermissionError):
        return f"cannot run {exc.filename or 'the command'!r}: permission denied"
    if isinstance(exc, TimeoutError):
        return _one_line(str(exc)) or "it did not answer in time"
    if kind == "MCPError" and code == _CONNECTION_CLOSED:
        return "the connection closed (the server exited or hung up)"
    if kind == "MCPError":
        return _one_line(f"the server answered with error {code}: {exc}")
    if isinstance(exc, anyio.EndOfStream | anyio.ClosedResourceError | anyio.BrokenResourceError):
        return "the connection closed (the server exited or hung up)"
    if "ConnectError" in kind or isinstance(exc, ConnectionError):
        return _one_line(f"cannot connect: {exc}" if str(exc) else "cannot connect")
    if kind == "ValidationError":  # pydantic, on what the server sent
        return f"the server sent a malformed message: {_validation_summary(exc)}"
    if "HTTPStatusError" in kind:
        return _one_line(f"the server answered HTTP {exc}")
    return _one_line(f"{kind}: {exc}" if str(exc) else kind)


def _malformed(exc: BaseException) -> bool:
    kind = type(exc).__name__
    return kind == "ValidationError" or (
        isinstance(exc, RuntimeError) and "schema" in str(exc).lower())


def call_failure(exc: BaseException, tool: str, server: str, last_words: str = "",
                 remote: bool = False) -> tuple[ToolFailure, bool]:
    """The failure the LLM reads for a call that raised ``exc``, and whether the server has
    gone (so the toolset starts it again, or reconnects to a ``remote`` one, on the next
    call)."""
    exc = _leaf(exc)
    code: Any = getattr(exc, "code", None)
    kind = type(exc).__name__
    if isinstance(exc, GONE) or (kind == "MCPError" and code == _CONNECTION_CLOSED):
        words = f" (its last words on stderr: {last_words})" if last_words else ""
        return ToolFailure(
            ErrorCode.NOT_AVAILABLE,
            f"MCP server {server!r} is not available: {why(exc)} during the call to {tool}"
            f"{words}; it will be {'reconnected' if remote else 'restarted'} on the next call",
            suggestion="call the tool again; if it keeps failing, do without it",
        ), True
    if kind == "MCPError" and code == MESSAGE_TOO_LARGE:
        return ToolFailure(ErrorCode.TOOL_ERROR, f"{tool}: {_one_line(str(exc))}",
                           suggestion="ask for less at a time (a narrower query, fewer items)"
                           ), False
    if kind == "MCPError" and code == _REQUEST_TIMEOUT:
        return ToolFailure(ErrorCode.TIMEOUT, f"{tool}: {_one_line(str(exc))}",
                           suggestion="simplify the operation or split it into smaller calls"
                           ), False
    if kind == "MCPError" and code == _INVALID_PARAMS:
        return ToolFailure(ErrorCode.INVALID_ARGS,
                           f"the server refused the arguments of {tool}: {_one_line(str(exc))}",
                           suggestion="fix the arguments to match the tool's schema"), False
    if kind == "MCPError" and code == _METHOD_NOT_FOUND:
        return ToolFailure(ErrorCode.NOT_FOUND, f"{tool}: {_one_line(str(exc))}",
                           suggestion="use another tool"), False
    if _malformed(exc):
        detail = _validation_summary(exc) if kind == "ValidationError" else _one_line(
            str(exc), 200)
        return ToolFailure(ErrorCode.INTERNAL,
                           f"MCP server {server!r} sent a malformed result for {tool}: {detail}",
                           suggestion="try another approach; this server's answer is unusable"
                           ), False
    return ToolFailure(ErrorCode.INTERNAL, f"{tool} failed: {why(exc)}",
                       suggestion="try again or take another approach"), False
