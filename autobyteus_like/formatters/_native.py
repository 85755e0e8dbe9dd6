"""The ``native`` format: tools go to the provider in its own ``tools`` parameter, not the prompt.

Nothing is taught in the system prompt; calls and results travel as the provider's structured
messages (see the provider adapters). ``render_results`` exists for logs and tests only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autobyteus_like.formatters._base import ToolFormatter, json_text
from autobyteus_like.formatters._json_family import result_block
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["NativeFormatter"]


class NativeFormatter(ToolFormatter):
    """Teaches nothing in the prompt: the provider declares the tools."""

    format = "native"
    teaches_in_prompt = False

    def guidelines(self) -> str:
        return ""

    def describe_tool(self, tool: ToolDefinition) -> str:
        return ""

    def format_call(
        self, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> str:
        return json_text({"id": call_id, "name": name, "arguments": arguments})

    def render_results(self, pairs: Sequence[tuple[ToolInvocation, ToolResult]]) -> str:
        return "\n".join(json_text(result_block(inv, res)) for inv, res in pairs)
