"""A text format's teaching under a member's call rules: the manifest says that a call is
required, or which one tool to call, or that one call per reply is allowed; ``none`` teaches
no tool at all. The rules themselves are enforced by the parser (``parsers.call_policy``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autobyteus_like.formatters._base import ToolFormatter
from autobyteus_like.tools._call_rules import CallRules
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["RuledFormatter", "rules_text"]


def rules_text(rules: CallRules) -> str:
    """The sentences that teach ``rules`` (empty when they ask for nothing)."""
    lines: list[str] = []
    choice = rules.choice
    if choice is not None and choice.mode == "required":
        lines.append("A tool call is required: call a tool before you answer. An answer "
                     "without any tool call is an error.")
    elif choice is not None and choice.mode == "tool":
        lines.append(f"A call of the tool {choice.name} is required: call it before you "
                     "answer. An answer without that call is an error.")
    if rules.one_call_only:
        lines.append("Write at most one tool call per reply; you see its result before you "
                     "write the next. A second call in the same reply is not run.")
    return "\n".join(lines)


class RuledFormatter(ToolFormatter):
    """``inner`` with ``rules`` taught in its guidelines (and, for a named tool, only that
    tool taught)."""

    def __init__(self, inner: ToolFormatter, rules: CallRules) -> None:
        self.inner = inner
        self.rules = rules
        self.format = inner.format
        choice = rules.choice
        self.teaches_in_prompt = inner.teaches_in_prompt and not (
            choice is not None and choice.mode == "none")

    def teaches(self, tool: ToolDefinition) -> bool:
        choice = self.rules.choice
        return (choice is None or choice.mode != "tool" or tool.name == choice.name) and \
            self.inner.teaches(tool)

    def guidelines(self) -> str:
        extra = rules_text(self.rules)
        return f"{self.inner.guidelines()}\n\n{extra}" if extra else self.inner.guidelines()

    def describe_tool(self, tool: ToolDefinition) -> str:
        return self.inner.describe_tool(tool)

    def format_call(self, name: str, arguments: dict[str, Any],
                    call_id: str | None = None) -> str:
        return self.inner.format_call(name, arguments, call_id)

    def render_results(self, pairs: Sequence[tuple[ToolInvocation, ToolResult]]) -> str:
        return self.inner.render_results(pairs)

    def example_fence(self) -> str:
        return self.inner.example_fence()
