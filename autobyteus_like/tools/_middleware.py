"""Tool middleware (seed 004): functions ``mw(call, next)`` wrapped around every execution,
for logging, timing, caching or policy. The first in the list is the outermost."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation

__all__ = ["Middleware", "ToolCall", "run_with_middleware"]


@dataclass(frozen=True)
class ToolCall:
    """One execution as middleware sees it. ``replace`` gives a changed copy to pass on."""

    invocation: ToolInvocation
    tool: ToolDefinition
    context: ToolContext

    @property
    def arguments(self) -> dict[str, Any]:
        """The call's arguments."""
        return self.invocation.arguments

    def replace(self, **changes: Any) -> ToolCall:
        """A copy with some fields changed (``arguments=`` changes the invocation's)."""
        if "arguments" in changes:
            arguments = changes.pop("arguments")
            changes["invocation"] = self.invocation.model_copy(update={"arguments": arguments})
        return dataclasses.replace(self, **changes)


Middleware = Callable[[ToolCall, Callable[[ToolCall], Any]], Any]


def run_with_middleware(
    call: ToolCall, middleware: Sequence[Middleware], final: Callable[[ToolCall], Any]
) -> Any:
    """Run ``final`` inside every middleware, outermost first."""

    def step(index: int) -> Callable[[ToolCall], Any]:
        if index == len(middleware):
            return final
        return lambda current: middleware[index](current, step(index + 1))

    return step(0)(call)
