"""The ``execute`` format (seed 000): THINK / EXECUTE / RESULTS with JSON arrays."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autobyteus_like.formatters._base import ToolFormatter, error_text, json_text
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["ExecuteFormatter"]

_GUIDELINES = """\
Work in three phases: THINK, EXECUTE, RESULTS.
- THINK (optional): reason inside <think>...</think>. Nothing in it is executed or shown.
- EXECUTE: call tools with a JSON array inside <execute> markers, one object per call:
  <execute>
  [
    {"name": "TOOL_NAME", "args": {"ARGUMENT_NAME": "value"}}
  ]
  </execute>
  Calls run one after another in array order; a failed call does not stop the later ones.
  Write `args` as a JSON object (arrays as arrays, objects as objects); JSON string escaping makes
  any content safe, including markup and </execute> inside a string.
- RESULTS: the system answers with a JSON array inside <results> markers, one element per call in
  the same order: {"tool": name, "status": "success" | "failure", "content": output or error}.
Answer without an <execute> block when you are done."""


class ExecuteFormatter(ToolFormatter):
    """Batched calls in one ``<execute>`` JSON array, results by position."""

    format = "execute"

    def guidelines(self) -> str:
        return _GUIDELINES

    def describe_tool(self, tool: ToolDefinition) -> str:
        return json_text(
            {"name": tool.name, "description": tool.description, "args": tool.inline_schema()}
        )

    def format_call(
        self, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> str:
        return "<execute>\n[\n  " + json_text({"name": name, "args": arguments}) + "\n]\n</execute>"

    def render_results(self, pairs: Sequence[tuple[ToolInvocation, ToolResult]]) -> str:
        rows = []
        for invocation, result in pairs:
            content = result.content if result.status == "success" else error_text(result)
            rows.append(json_text({"tool": invocation.name, "status": result.status,
                                   "content": content}))
        return "<results>\n[\n  " + ",\n  ".join(rows) + "\n]\n</results>"
