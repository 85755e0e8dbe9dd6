"""MCP in both directions, with the official ``mcp`` SDK (``pip install 'autobyteus-like[mcp]'``).

* ``MCPToolset``: an MCP server's tools for agents and teams (``tools=[..., toolset]``, or
  ``mcp_servers:`` in a team file); started and stopped with them.
* ``autobyteus-like serve-mcp TEAM.yaml``: a team as an MCP server (``autobyteus_like.mcp.serve``).

Importing this package loads neither the SDK nor ``jsonschema``; starting a toolset does.
"""

from autobyteus_like.mcp.config import MCPServerConfig
from autobyteus_like.mcp.toolset import MCPToolset

__all__ = ["MCPServerConfig", "MCPToolset"]
