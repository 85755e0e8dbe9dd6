"""Declaring tools: definitions, the ``@tool`` decorator, registries, calls and results."""

from autobyteus_like.tools.base_tool import BaseTool
from autobyteus_like.tools.decorator import tool
from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.errors import (
    DuplicateToolError,
    ToolArgumentError,
    ToolDeclarationError,
    ToolFailure,
    UnknownToolError,
)
from autobyteus_like.tools.invocation import ErrorCode, ToolError, ToolInvocation, ToolResult
from autobyteus_like.tools.registry import ToolRegistry

__all__ = [
    "BaseTool",
    "DuplicateToolError",
    "ErrorCode",
    "ToolArgumentError",
    "ToolDeclarationError",
    "ToolDefinition",
    "ToolError",
    "ToolFailure",
    "ToolInvocation",
    "ToolRegistry",
    "ToolResult",
    "UnknownToolError",
    "tool",
]
