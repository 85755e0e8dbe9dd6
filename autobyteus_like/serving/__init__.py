"""Serving a team to clients: a face, beside the CLI. ``TeamHost`` keeps a team running and
answers one ask at a time (approvals settled by an ``ApprovalPolicy``); ``mcp_server`` puts it
behind the official SDK's ``MCPServer`` (``autobyteus-like serve-mcp``, over stdio or
streamable HTTP). Importing this package loads no MCP SDK; ``mcp_server`` does."""

from autobyteus_like.serving._approval import ApprovalPolicy
from autobyteus_like.serving._team_host import TeamHost

__all__ = ["ApprovalPolicy", "TeamHost"]
