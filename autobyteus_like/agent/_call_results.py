"""The results a tool call can end with, built so that building them never fails: whatever a
tool returned or raised (an exception whose ``str`` raises, a ``ToolFailure`` with a code that
is not one, ``SystemExit``) becomes a result the LLM can read."""

from __future__ import annotations

from typing import Any

from autobyteus_like.errors import ToolArgumentError, ToolFailure
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._image_content import ImageContent
from autobyteus_like.tools._invocation import ErrorCode, ToolInvocation, ToolResult
from autobyteus_like.tools._result_values import DEFAULT_MAX_RESULT_CHARS, capped, json_value

__all__ = ["failure_result", "hook_result", "shown_text", "success_result", "timeout_result"]

_MAX_MESSAGE = 2000


def shown_text(value: object) -> str:
    """``str(value)``, or a description when even that fails."""
    try:
        return str(value)
    except Exception:
        return f"<a {type(value).__name__} that cannot be shown>"


def success_result(invocation: ToolInvocation, value: Any,
                   max_chars: int = DEFAULT_MAX_RESULT_CHARS) -> ToolResult:
    """A success; its content is JSON by construction (value by value, see
    ``tools/_result_values.py``) and at most ``max_chars`` long as text, so the model is built
    without validating it a second time. Images (returned alone or in a list) go to
    ``images``, each named in the content where it was."""
    images: list[ImageContent] = []
    if isinstance(value, ImageContent) or (
            isinstance(value, list | tuple) and any(isinstance(v, ImageContent) for v in value)):
        value = _images_named(value, images)
    content = capped(json_value(value), max_chars)
    return ToolResult.trusted_success(invocation, content, tuple(images))


def _images_named(value: Any, images: list[ImageContent]) -> Any:
    """``value`` with each image replaced by its label, the images collected in order."""
    def label(item: Any) -> Any:
        if isinstance(item, ImageContent):
            images.append(item)
            return item.label(len(images))
        return item

    if isinstance(value, ImageContent):
        return label(value)
    return [label(item) for item in value]


def failure_result(invocation: ToolInvocation, tool: ToolDefinition, exc: BaseException
                   ) -> ToolResult:
    """What the LLM is told about an exception from a tool (never raises)."""
    try:
        if isinstance(exc, ToolFailure):
            try:
                code = ErrorCode(exc.code)
            except ValueError:
                return ToolResult.failure(
                    invocation, ErrorCode.INTERNAL,
                    f"{tool.name} failed with an unknown code {shown_text(exc.code)[:80]!r}: "
                    f"{shown_text(exc.message)[:_MAX_MESSAGE]}")
            suggestion = None if exc.suggestion is None else shown_text(exc.suggestion)
            return ToolResult.failure(invocation, code, shown_text(exc.message)[:_MAX_MESSAGE],
                                      suggestion=suggestion, recoverable=bool(exc.recoverable))
        if isinstance(exc, ToolArgumentError):
            return ToolResult.failure(invocation, ErrorCode.INVALID_ARGS, shown_text(exc))
        return ToolResult.failure(
            invocation, ErrorCode.INTERNAL,
            f"{tool.name} raised {type(exc).__name__}: {shown_text(exc)[:_MAX_MESSAGE]}")
    except Exception:  # a result that cannot be built from what was raised: say only its kind
        return ToolResult.failure(invocation, ErrorCode.INTERNAL,
                                  f"{tool.name} raised {type(exc).__name__}")


def hook_result(invocation: ToolInvocation, hook: str, exc: BaseException) -> ToolResult:
    """A hook wrapping the call (``hook``: ``Class.wrap_tool_call``) raised ``exc``: the
    call failed, and says which hook failed it (never raises)."""
    return ToolResult.failure(
        invocation, ErrorCode.INTERNAL,
        f"the hook {hook} raised {type(exc).__name__}: {shown_text(exc)[:_MAX_MESSAGE]}",
        recoverable=False)


def timeout_result(invocation: ToolInvocation, tool: ToolDefinition, timeout: float
                   ) -> ToolResult:
    """The call did not finish in time."""
    return ToolResult.failure(
        invocation, ErrorCode.TIMEOUT, f"{tool.name} did not finish within {timeout:g} s",
        suggestion="simplify the operation or split it into smaller calls",
    )
