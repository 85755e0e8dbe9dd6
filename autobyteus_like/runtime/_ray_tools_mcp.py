"""MCP tool sources on Ray: each host starts the servers its members use, and they end with it.

The driver does not run a Ray team's servers; it sends each host a ``SourceRecipe`` (the
server's name and config) for every server one of the host's members names a tool of. The
host makes one ``MCPToolset`` per server, shared by its members: each member's agent acquires
it when it starts and releases it when it stops (the last release stops the server), with the
same startup timeout, call timeouts and process clean-up as a local toolset. A stdio server
is started through ``ray_mcp_guard.py``, so it also ends when the host's process is killed
(no orphan on the node); Ray's restart of the host starts it anew.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autobyteus_like.errors import ConfigError
from autobyteus_like.tools._registry import ToolSource

__all__ = ["SourceRecipe", "host_sources", "recipes_for", "split_recipes"]

_GUARD = str(Path(__file__).resolve().parent / "_ray_mcp_guard.py")


@dataclass(frozen=True, slots=True)
class SourceRecipe:
    """What a host needs to start one MCP server itself: its name and config."""

    namespace: str
    config: Any  # an MCPServerConfig


def recipes_for(team: str, sources: Sequence[ToolSource], tool_names: Iterable[str]
                ) -> list[SourceRecipe]:
    """The recipes of the sources a member with these configured tool names (or patterns)
    uses. A source that is not an ``MCPToolset`` cannot be rebuilt in a host: ``ConfigError``."""
    from autobyteus_like.mcp import MCPToolset

    foreign = [type(source).__name__ for source in sources
               if not isinstance(source, MCPToolset)]
    if foreign:
        raise ConfigError(f"team {team!r}", [
            f"runtime: members on Ray run MCP servers in their hosts; a tool source of type "
            f"{', '.join(foreign)} cannot be moved there (use backend: local)"])
    names = [name for name in tool_names if isinstance(name, str)]
    return [SourceRecipe(source.namespace, source.config) for source in sources
            if isinstance(source, MCPToolset) and _uses(names, source.namespace)]


def _uses(names: Sequence[str], namespace: str) -> bool:
    """Whether a tool name or pattern can name a tool of ``namespace`` (``ns.tool``)."""
    return any(fnmatch.fnmatchcase(namespace, name.partition(".")[0]) and "." in name
               for name in names)


def split_recipes(tools: Iterable[Any]) -> tuple[list[Any], list[SourceRecipe]]:
    """A host member's tools, and the recipes of its sources, apart."""
    plain: list[Any] = []
    recipes: list[SourceRecipe] = []
    for tool in tools:
        (recipes if isinstance(tool, SourceRecipe) else plain).append(tool)
    return plain, recipes


def host_sources(recipes: Iterable[SourceRecipe]) -> dict[str, ToolSource]:
    """One toolset per server for a whole host (not started: its members' agents do that),
    a stdio server launched through the guard that ends it with this process."""
    from autobyteus_like.mcp import MCPToolset

    made: dict[str, ToolSource] = {}
    for recipe in recipes:
        if recipe.namespace in made:
            continue
        config = recipe.config
        if config.command is not None:
            config = config.model_copy(update={
                "command": sys.executable,
                "args": [_GUARD, str(os.getpid()), config.command, *config.args]})
        made[recipe.namespace] = MCPToolset(recipe.namespace, config)
    return made
