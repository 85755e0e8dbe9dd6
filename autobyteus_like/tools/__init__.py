"""Declaring tools: definitions, the ``@tool`` decorator, registries, calls and results."""

from autobyteus_like.errors import (
    DuplicateToolError,
    ToolArgumentError,
    ToolDeclarationError,
    ToolFailure,
    UnknownToolError,
)
from autobyteus_like.tools._approval import (
    APPROVAL_POLICIES,
    ApprovalPolicyName,
    waits_for_approval,
)
from autobyteus_like.tools._base import BaseTool
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._handoff import HandoffEntry
from autobyteus_like.tools._image_content import ImageContent
from autobyteus_like.tools._invocation import ErrorCode, ToolErrorInfo, ToolInvocation, ToolResult
from autobyteus_like.tools._registry import ToolRegistry
from autobyteus_like.tools._sandbox import SandboxPolicy


def builtin_tools() -> ToolRegistry:
    """A fresh registry with every builtin tool (``fs.*``, ``search.lexical``,
    ``terminal.run``, ``python.exec``, ``memory.summarize``, ``memory.advise``, and with their
    extras ``search.vector`` and ``js.exec``: docs/builtin-tools.md), loaded on first use."""
    from autobyteus_like.tools.builtin import builtin_tools as make

    return make()


__all__ = [
    "APPROVAL_POLICIES",
    "ApprovalPolicyName",
    "BaseTool",
    "DuplicateToolError",
    "ErrorCode",
    "HandoffEntry",
    "ImageContent",
    "SandboxPolicy",
    "ToolArgumentError",
    "ToolContext",
    "ToolDeclarationError",
    "ToolDefinition",
    "ToolErrorInfo",
    "ToolFailure",
    "ToolInvocation",
    "ToolRegistry",
    "ToolResult",
    "UnknownToolError",
    "builtin_tools",
    "tool",
    "waits_for_approval",
]
