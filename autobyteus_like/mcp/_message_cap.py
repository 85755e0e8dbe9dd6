"""The answer to a request whose reply was over the byte cap (``max_message_bytes``).

Every transport bounds what it reads from a server before anything parses it (stdio:
``stdio_transport``; streamable HTTP and SSE: ``http_transport``). An oversized message is
skipped as it streams in, only counted; the request it answered gets this JSON-RPC error
instead, so its call ends at once with a TOOL_ERROR naming the size (``failures``).
"""

from __future__ import annotations

import re
from typing import Any

import mcp_types as types

from autobyteus_like.mcp._failures import MESSAGE_TOO_LARGE

__all__ = ["HEAD_BYTES", "id_in", "too_large_error", "too_large_text"]

HEAD_BYTES = 512
"""How much of an oversized message is kept, to find the id of the request it answers."""
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')


def too_large_text(size: int, cap: int) -> str:
    """What the caller is told about a message of ``size`` bytes."""
    return (f"the server's message was {size:,} bytes, over the cap of {cap:,} bytes "
            "(max_message_bytes); it was not read")


def id_in(head: bytes) -> Any:
    """The JSON-RPC id at the start of a message (None when none is found)."""
    found = _ID.search(head)
    if found is None:
        return None
    raw = found.group(1).decode("utf-8", "replace")
    return raw[1:-1] if raw.startswith('"') else int(raw)


def too_large_error(request_id: Any, size: int, cap: int) -> types.JSONRPCError:
    """The error answer to request ``request_id``, whose reply was ``size`` bytes."""
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
        code=MESSAGE_TOO_LARGE, message=too_large_text(size, cap)))
