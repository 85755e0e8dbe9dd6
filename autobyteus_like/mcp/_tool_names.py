"""Local names for a server's tools: ``<server>.<tool>``, legal for a ``ToolDefinition``.

MCP lets a server name its tools almost anything (spaces, slashes, any script, any length).
A name that is already legal is kept as it is. One that is not is cleaned (every other character
becomes ``_``, the length is cut) and always gets a short hash of the original name, so it is
the same on every listing and can never meet a legal name or another cleaned one. Calls go to
the server under its own name.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["local_tool_name"]

_LEGAL_PART = re.compile(r"^[A-Za-z0-9_.\-]+$")
_ILLEGAL = re.compile(r"[^A-Za-z0-9_.\-]")
_MAX_NAME = 128


def local_tool_name(server: str, name: str) -> str:
    """``server.name``, or ``server.<cleaned>_<hash>`` when ``name`` cannot be used as is."""
    room = _MAX_NAME - len(server) - 1
    if _LEGAL_PART.match(name) and len(name) <= room:
        return f"{server}.{name}"
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    cleaned = _ILLEGAL.sub("_", name)[: room - len(digest) - 1] or "tool"
    return f"{server}.{cleaned}_{digest}"
