"""Redaction for what leaves the agent towards people and disks (seed 002 REDACTION_REQUIRED):
events, logs and the session log. The LLM still gets every value."""

from __future__ import annotations

from typing import Any

from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["REDACTED", "redact_invocation", "redact_result"]

REDACTED = "[redacted]"


def redact_invocation(invocation: ToolInvocation, tool: ToolDefinition | None) -> ToolInvocation:
    """The invocation with the tool's masked arguments replaced by the marker."""
    if tool is None or not tool.masked_arguments:
        return invocation
    masked = {key: REDACTED if key in tool.masked_arguments else value
              for key, value in invocation.arguments.items()}
    return invocation.model_copy(update={"arguments": masked})


def redact_result(result: ToolResult, tool: ToolDefinition | None) -> ToolResult:
    """The result with every field outside the tool's allowlist replaced by the marker (a
    result that is not an object is kept only if the allowlist is empty of meaning: None)."""
    if tool is None or tool.result_allowlist is None or result.status != "success":
        return result
    allowed = set(tool.result_allowlist)
    return result.model_copy(update={"content": _only(result.content, allowed)})


def _only(content: Any, allowed: set[str]) -> Any:
    if isinstance(content, dict):
        return {key: value if key in allowed else REDACTED for key, value in content.items()}
    if isinstance(content, list):
        return [_only(item, allowed) for item in content]
    return REDACTED
