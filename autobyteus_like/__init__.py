"""autobyteus_like: tool calling done right, for agents and teams of agents on pykka actors.

Teams (``AgentTeam``, ``TeamConfig``) and ``__version__`` load on first use, so an embedded
agent pays only for what it uses.
"""

from typing import TYPE_CHECKING, Any

from loguru import logger as _logger

from autobyteus_like.agent import Agent, AgentConfig
from autobyteus_like.agent._subscription import AsyncEventSubscription, EventSubscription
from autobyteus_like.errors import (
    AgentStoppedError,
    AgentTurnError,
    AutobyteusLikeError,
    BadRequestError,
    CallAlreadyDecidedError,
    ConfigError,
    DecisionRefusedError,
    DuplicateToolError,
    LLMError,
    MissingExtraError,
    ModelRetry,
    OutputValidationError,
    OwnThreadError,
    RunRefusedError,
    ScriptExhaustedError,
    SessionInUseError,
    SessionLostError,
    StoreError,
    StrayEventError,
    ToolArgumentError,
    ToolDeclarationError,
    ToolFailure,
    TransientStoreError,
    UnfinishedSessionError,
    UnknownApprovalError,
    UnknownMemberError,
    UnknownToolError,
    UsageError,
    UsageLimitExceededError,
)
from autobyteus_like.formats import FormatRegistry, ToolCallFormat
from autobyteus_like.history import (
    AssistantMessage,
    HistoryMessage,
    SystemMessage,
    ToolResultsMessage,
    UserMessage,
    history_from_json,
    history_to_json,
    keep_last_turns,
    summarize_older,
    token_budget,
)
from autobyteus_like.hooks import AgentHooks
from autobyteus_like.llm import LLM, FallbackLLM, ScriptedLLM
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.tools import (
    BaseTool,
    ErrorCode,
    ImageContent,
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
from autobyteus_like.tools._call_rules import ToolChoice
from autobyteus_like.tracing import Tracing, configure_tracing
from autobyteus_like.usage import ModelPrice, PriceTable, UsageLimits, UsageReport, UsageTotals

if TYPE_CHECKING:
    from autobyteus_like.runtime import LocalRuntime, RayRuntime
    from autobyteus_like.team import AgentTeam, TeamConfig

    __version__: str


def __getattr__(name: str) -> Any:
    """``AgentTeam``, ``TeamConfig`` and ``__version__``, loaded when first asked for."""
    if name in ("AgentTeam", "TeamConfig"):
        from autobyteus_like import team

        value = getattr(team, name)
    elif name in ("LocalRuntime", "RayRuntime"):  # data only: Ray loads with a ray team
        from autobyteus_like import runtime

        value = getattr(runtime, name)
    elif name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("autobyteus-like")
        except PackageNotFoundError:  # a source tree that was never installed
            value = "0+unknown"
    else:
        raise AttributeError(f"module 'autobyteus_like' has no attribute {name!r}")
    globals()[name] = value
    return value

# A library stays silent unless its user asks: ``logger.enable("autobyteus_like")`` turns it on.
_logger.disable("autobyteus_like")

__all__ = [
    "LLM",
    "Agent",
    "AgentConfig",
    "AgentHooks",
    "AgentStoppedError",
    "AgentTeam",
    "AgentTurnError",
    "AssistantMessage",
    "AsyncEventSubscription",
    "AutobyteusLikeError",
    "BadRequestError",
    "BaseTool",
    "CallAlreadyDecidedError",
    "ConfigError",
    "DecisionRefusedError",
    "DuplicateToolError",
    "ErrorCode",
    "EventSubscription",
    "FallbackLLM",
    "FormatRegistry",
    "HistoryMessage",
    "ImageContent",
    "LLMError",
    "LLMProvider",
    "LocalRuntime",
    "MissingExtraError",
    "ModelPrice",
    "ModelRetry",
    "OutputValidationError",
    "OwnThreadError",
    "PriceTable",
    "RayRuntime",
    "RunRefusedError",
    "SandboxPolicy",
    "ScriptExhaustedError",
    "ScriptedLLM",
    "SessionInUseError",
    "SessionLostError",
    "StoreError",
    "StrayEventError",
    "SystemMessage",
    "TeamConfig",
    "ToolArgumentError",
    "ToolCallFormat",
    "ToolChoice",
    "ToolContext",
    "ToolDeclarationError",
    "ToolDefinition",
    "ToolErrorInfo",
    "ToolFailure",
    "ToolInvocation",
    "ToolRegistry",
    "ToolResult",
    "ToolResultsMessage",
    "Tracing",
    "TransientStoreError",
    "UnfinishedSessionError",
    "UnknownApprovalError",
    "UnknownMemberError",
    "UnknownToolError",
    "UsageError",
    "UsageLimitExceededError",
    "UsageLimits",
    "UsageReport",
    "UsageTotals",
    "UserMessage",
    "__version__",
    "builtin_tools",
    "configure_tracing",
    "history_from_json",
    "history_to_json",
    "keep_last_turns",
    "summarize_older",
    "token_budget",
    "tool",
]
