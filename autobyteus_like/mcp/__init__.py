"""MCP as a client, with the official ``mcp`` SDK (``pip install 'autobyteus-like[mcp]'``):
``MCPToolset``, an MCP server's tools for agents and teams (``tools=[..., toolset]``, or
``mcp_servers:`` in a team file), started and stopped with them. Serving a team over MCP is a
face above this package (``autobyteus_like.serving``).

Importing this package loads neither the SDK nor ``jsonschema``; starting a toolset does.
"""

from autobyteus_like.mcp._server_config import MCPServerConfig
from autobyteus_like.mcp._toolset import MCPToolset

__all__ = ["MCPServerConfig", "MCPToolset"]
