"""MCP as a client, with the official ``mcp`` SDK (``pip install 'autobyteus-like[mcp]'``):
``MCPToolset``, an MCP server's tools for agents and teams (``tools=[..., toolset]``, or
``mcp_servers:`` in a team file), started and stopped with them. Serving a team over MCP is a
face above this package (``autobyteus_like.serving``).

Importing this package loads neither the SDK nor ``jsonschema``; starting a toolset does.
"""

from autobyteus_like.mcp._catalogue import MCPPrompt, MCPPromptInfo, MCPResource
from autobyteus_like.mcp._elicitation import ElicitationHandler, ElicitationRequest
from autobyteus_like.mcp._server_config import MCPServerConfig
from autobyteus_like.mcp._tool_definitions import IDEMPOTENCY_META_KEY
from autobyteus_like.mcp._toolset import MCPToolset

__all__ = [
    "IDEMPOTENCY_META_KEY",
    "ElicitationHandler",
    "ElicitationRequest",
    "LLMSampler",
    "MCPPrompt",
    "MCPPromptInfo",
    "MCPResource",
    "MCPServerConfig",
    "MCPToolset",
    "Sampler",
    "SamplingRequest",
]


def __getattr__(name: str) -> object:
    """The sampling names, imported when first asked for (they load the LLM package)."""
    if name in ("Sampler", "SamplingRequest", "LLMSampler"):
        from autobyteus_like.mcp import _sampling

        value = getattr(_sampling, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'autobyteus_like.mcp' has no attribute {name!r}")
