"""Errors raised while declaring, registering or validating tools."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autobyteus_like.tools.invocation import ErrorCode

__all__ = [
    "DuplicateToolError",
    "ToolArgumentError",
    "ToolDeclarationError",
    "ToolFailure",
    "UnknownToolError",
]


class ToolDeclarationError(TypeError):
    """A function or class cannot become a tool (missing type hint, bad name, ...)."""


class DuplicateToolError(ValueError):
    """A registry already holds a tool of that name."""


class UnknownToolError(KeyError):
    """A registry has no tool of that name."""

    def __init__(self, name: str, available: list[str]) -> None:
        self.name = name
        self.available = available
        listing = ", ".join(available) if available else "none"
        super().__init__(f"unknown tool {name!r}; available tools: {listing}")

    def __str__(self) -> str:
        return str(self.args[0])


class ToolArgumentError(ValueError):
    """Arguments do not fit a tool's schema; ``problems`` lists each one in plain words."""

    def __init__(self, tool_name: str, problems: list[str]) -> None:
        self.tool_name = tool_name
        self.problems = problems
        super().__init__(f"invalid arguments for tool {tool_name!r}: " + "; ".join(problems))


class ToolFailure(Exception):
    """Raised by a tool body to fail with a specific code (seed 001): the LLM gets the code,
    the message and the suggestion instead of a generic INTERNAL error."""

    def __init__(
        self, code: ErrorCode, message: str, *, suggestion: str | None = None,
        recoverable: bool = True,
    ) -> None:
        self.code = code
        self.message = message
        self.suggestion = suggestion
        self.recoverable = recoverable
        super().__init__(message)
