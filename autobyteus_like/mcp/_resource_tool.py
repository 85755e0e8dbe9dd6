"""``<server>.read_resource``: one server's resources as a tool (``resources_tool: true``).

The tool reads a resource of that server only (the URI goes to it and nowhere else), and its
text is cut at the server's ``max_result_chars`` like any result. Its description lists the
resources the server listed when it started (the first ``_LISTED``). A tool the server itself
names ``read_resource`` keeps the name; ours is then left out, said in ``problems``.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from autobyteus_like.mcp._catalogue import resource_info
from autobyteus_like.mcp._tool_definitions import Listing
from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["add_resource_tool"]

_LISTED = 50
_SCHEMA = {"type": "object", "properties": {"uri": {
    "type": "string", "minLength": 1, "maxLength": 4_096,
    "description": "the resource's URI, as listed"}}, "required": ["uri"],
    "additionalProperties": False}


def add_resource_tool(listing: Listing, server: str, resources: Sequence[Any],
                      read: Callable[[dict[str, Any]], Coroutine[Any, Any, Any]],
                      call_soon: Callable[[Callable[[], None]], None]) -> None:
    """Append the tool to ``listing`` (or say why not in its problems)."""
    name = f"{server}.read_resource"
    if any(d.name == name for d in listing.definitions):
        listing.problems.append("the server has its own tool 'read_resource'; "
                                "resources_tool gave none")
        return
    lines = []
    for resource in resources[:_LISTED]:
        info = resource_info(resource)
        about = f" ({info.mime_type})" if info.mime_type else ""
        lines.append(f"- {info.uri}: {info.name}{about}")
    more = f"\n(and {len(resources) - _LISTED} more)" if len(resources) > _LISTED else ""
    known = ("\nResources:\n" + "\n".join(lines) + more) if lines else ""
    listing.definitions.append(ToolDefinition(
        name=name, description=f"Read a resource of the MCP server {server!r} by its URI."
        + known, arguments_model=None, function=read, input_schema=_SCHEMA,
        category="mcp", call_soon=call_soon))
