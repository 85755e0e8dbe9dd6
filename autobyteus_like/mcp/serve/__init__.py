"""``autobyteus-like serve-mcp``: a team as an MCP server (the official SDK's ``MCPServer``),
over stdio or streamable HTTP."""

from autobyteus_like.mcp.serve.server import build_server, serve

__all__ = ["build_server", "serve"]
