"""autobyteus_like: tool calling done right, for agents and teams of agents on pykka actors."""

from loguru import logger as _logger

from autobyteus_like.agent import Agent, AgentConfig, AgentStoppedError
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.handlers import AgentTurnError
from autobyteus_like.llm import LLM, ScriptedLLM
from autobyteus_like.providers import LLMProvider
from autobyteus_like.team import AgentTeam, ConfigError, TeamConfig
from autobyteus_like.tool_call_format import ToolCallFormat
from autobyteus_like.tools import (
    BaseTool,
    ErrorCode,
    SandboxPolicy,
    ToolArgumentError,
    ToolDefinition,
    ToolError,
    ToolInvocation,
    ToolRegistry,
    ToolResult,
    builtin_tools,
    tool,
)

# A library stays silent unless its user asks: ``logger.enable("autobyteus_like")`` turns it on.
_logger.disable("autobyteus_like")

__all__ = [
    "LLM",
    "Agent",
    "AgentConfig",
    "AgentStoppedError",
    "AgentTeam",
    "AgentTurnError",
    "BaseTool",
    "ConfigError",
    "ErrorCode",
    "FormatRegistry",
    "LLMProvider",
    "SandboxPolicy",
    "ScriptedLLM",
    "TeamConfig",
    "ToolArgumentError",
    "ToolCallFormat",
    "ToolDefinition",
    "ToolError",
    "ToolInvocation",
    "ToolRegistry",
    "ToolResult",
    "builtin_tools",
    "tool",
]
