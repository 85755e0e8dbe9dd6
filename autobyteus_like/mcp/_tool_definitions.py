"""A server's tool listing as ``ToolDefinition``s: namespaced, checked, with its policy applied.

Each MCP tool becomes a definition whose ``input_schema`` is the server's ``inputSchema`` (so
every manifest format is built from it and arguments are validated against it before a call)
and whose function forwards the validated arguments to the server. What cannot be used is
left out and said why, one line each in ``problems``: a schema that is not a usable JSON
Schema, a name listed twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

from autobyteus_like.errors import ToolDeclarationError
from autobyteus_like.mcp._schema_guard import schema_problem
from autobyteus_like.mcp._server_config import MCPServerConfig
from autobyteus_like.mcp._tool_names import local_tool_name
from autobyteus_like.mcp._tool_policy import ToolPolicy
from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["CallFactory", "Listing", "build_listing"]

MAX_DESCRIPTION_CHARS = 2_000
"""A description is shown in every manifest: a server's essay is cut here."""

CallFactory = Callable[[str, str], Callable[[dict[str, Any]], Coroutine[Any, Any, Any]]]
"""(server's name, local name) -> the async function a definition calls."""


@dataclass
class Listing:
    """The definitions made from one listing, and the tools left out (one line each)."""

    definitions: list[ToolDefinition] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Local name -> what the definition was made from (to reuse unchanged definitions)."""


def _description(tool: Any) -> str:
    text = getattr(tool, "description", None) or getattr(tool, "title", None) or ""
    text = str(text).strip()
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[:MAX_DESCRIPTION_CHARS] + " [description cut]"
    return text


def build_listing(server: str, config: MCPServerConfig, tools: Sequence[Any],
                  make_call: CallFactory, previous: Listing | None = None,
                  call_soon: Callable[[Callable[[], None]], None] | None = None) -> Listing:
    """Definitions for ``tools`` (the SDK's ``Tool`` objects); a definition whose tool is
    unchanged since ``previous`` is reused as it is. ``call_soon`` posts to the session's
    loop, where the agent then starts each call (see ``ToolDefinition.call_soon``)."""
    policy = ToolPolicy(config)
    listing = Listing()
    seen: set[str] = set()
    reusable = {d.name: d for d in previous.definitions} if previous else {}
    for tool in tools:
        remote = str(getattr(tool, "name", ""))
        if not remote:
            listing.problems.append("a tool without a name was left out")
            continue
        if not policy.offered(remote):
            continue
        local = local_tool_name(server, remote)
        if local in seen:
            listing.problems.append(f"{remote!r} is listed twice; the second was left out")
            continue
        seen.add(local)
        schema = getattr(tool, "input_schema", None)
        problem = schema_problem(schema)
        if problem is not None:
            listing.problems.append(f"{remote!r} was left out: {problem}")
            continue
        description = _description(tool)
        key = (remote, description, json.dumps(schema, sort_keys=True))
        listing.keys[local] = key
        old = reusable.get(local)
        if old is not None and previous is not None and previous.keys.get(local) == key:
            listing.definitions.append(old)
            continue
        try:
            definition = ToolDefinition(
                name=local, description=description, arguments_model=None,
                function=make_call(remote, local), input_schema=schema,
                requires_approval=policy.requires_approval(remote), timeout_s=config.timeout_s,
                category="mcp", masked_arguments=policy.masked_arguments(remote),
                call_soon=call_soon,
            )
        except ToolDeclarationError as exc:
            listing.problems.append(f"{remote!r} was left out: {exc}")
            continue
        listing.definitions.append(definition)
    return listing
