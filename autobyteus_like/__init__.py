"""autobyteus_like: tool calling done right, for agents and teams of agents on pykka actors."""

from importlib.metadata import PackageNotFoundError, version

from loguru import logger as _logger

from autobyteus_like.agent import Agent, AgentConfig
from autobyteus_like.errors import (
    AgentStoppedError,
    AgentTurnError,
    AutobyteusLikeError,
    ConfigError,
    DuplicateToolError,
    LLMError,
    ScriptExhaustedError,
    ToolArgumentError,
    ToolDeclarationError,
    ToolFailure,
    UnknownToolError,
    UsageError,
)
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.llm import LLM, ScriptedLLM
from autobyteus_like.providers import LLMProvider
from autobyteus_like.team import AgentTeam, TeamConfig
from autobyteus_like.tool_call_format import ToolCallFormat
from autobyteus_like.tools import (
    BaseTool,
    ErrorCode,
    SandboxPolicy,
    ToolContext,
    ToolDefinition,
    ToolErrorInfo,
    ToolInvocation,
    ToolRegistry,
    ToolResult,
    builtin_tools,
    tool,
)

try:
    __version__ = version("autobyteus-like")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

# A library stays silent unless its user asks: ``logger.enable("autobyteus_like")`` turns it on.
_logger.disable("autobyteus_like")

__all__ = [
    "LLM",
    "Agent",
    "AgentConfig",
    "AgentStoppedError",
    "AgentTeam",
    "AgentTurnError",
    "AutobyteusLikeError",
    "BaseTool",
    "ConfigError",
    "DuplicateToolError",
    "ErrorCode",
    "FormatRegistry",
    "LLMError",
    "LLMProvider",
    "SandboxPolicy",
    "ScriptExhaustedError",
    "ScriptedLLM",
    "TeamConfig",
    "ToolArgumentError",
    "ToolCallFormat",
    "ToolContext",
    "ToolDeclarationError",
    "ToolDefinition",
    "ToolErrorInfo",
    "ToolFailure",
    "ToolInvocation",
    "ToolRegistry",
    "ToolResult",
    "UnknownToolError",
    "UsageError",
    "__version__",
    "builtin_tools",
    "tool",
]
