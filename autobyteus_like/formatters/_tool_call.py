"""The ``tool_call`` format (seed 004): ``<TOOL_CALL>{...}</TOOL_CALL>``, one call per answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autobyteus_like.formatters._base import ToolFormatter, error_text, json_text
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult
from autobyteus_like.tools._json_schema import schema_type

__all__ = ["ToolCallFormatter"]

_GUIDELINES = """\
TOOL CALLING PROTOCOL. When you need a tool, respond with exactly this format:
<TOOL_CALL>
{"tool": "TOOL_NAME", "args": {"ARGUMENT_NAME": "value"}, "reasoning": "why you need this tool"}
</TOOL_CALL>
Rules:
1. Use only one tool call per response.
2. The JSON inside <TOOL_CALL> must be valid; "args" follows the tool's parameters schema.
3. "tool" must match one of the available tools exactly.
4. After each call you receive `TOOL_RESULT: {"success": ..., "data": ..., "error": ...}`; then
   make another call or give the final answer.
5. When you have the final answer, respond normally without any tags."""


class ToolCallFormatter(ToolFormatter):
    """A single JSON call between ``<TOOL_CALL>`` tags; results as ``TOOL_RESULT:`` lines."""

    format = "tool_call"

    def guidelines(self) -> str:
        return _GUIDELINES

    def describe_tool(self, tool: ToolDefinition) -> str:
        schema = tool.inline_schema()
        required = set(schema.get("required", []))
        params = ", ".join(
            f"{name}{'' if name in required else '?'}: {schema_type(prop)}"
            for name, prop in schema.get("properties", {}).items()
        )
        signature = f"- {tool.name}({params}): {tool.description or 'no description'}"
        return signature + "\n  parameters: " + json_text(schema)

    def format_call(
        self, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> str:
        return "<TOOL_CALL>\n" + json_text({"tool": name, "args": arguments}) + \
            "\n</TOOL_CALL>"

    def render_results(self, pairs: Sequence[tuple[ToolInvocation, ToolResult]]) -> str:
        lines = []
        for _, result in pairs:
            ok = result.status == "success"
            body = {
                "success": ok,
                "data": result.content if ok else None,
                "error": None if ok else error_text(result),
            }
            lines.append("TOOL_RESULT: " + json_text(body))
        return "\n".join(lines)
