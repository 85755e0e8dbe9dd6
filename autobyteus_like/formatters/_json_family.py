"""What the JSON-based formats (openai, gemini, json) share: schema blocks and result blocks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autobyteus_like.formatters._base import ToolFormatter, json_text
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["JsonFamilyFormatter", "result_block"]


def result_block(invocation: ToolInvocation, result: ToolResult) -> dict[str, Any]:
    """One result as a JSON object: name, id, status and content (the error, on failure)."""
    content: Any = result.content
    if result.status == "failure" and result.error is not None:
        content = result.error.model_dump(mode="json", exclude={"recoverable"}, exclude_none=True)
    return {
        "tool_result": {
            "id": invocation.id,
            "name": invocation.name,
            "status": result.status,
            "content": content,
        }
    }


class JsonFamilyFormatter(ToolFormatter):
    """Base of the JSON formats; subclasses choose the schema idiom and the call shape."""

    call_shape_hint: str = ""
    multi_call_hint: str = ""

    def schema_object(self, tool: ToolDefinition) -> dict[str, Any]:
        """The tool's description as a JSON object in this format's idiom."""
        return {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.inline_schema(),
        }

    def call_object(
        self, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> Any:
        """The JSON value the model writes to call one tool."""
        body: dict[str, Any] = {"name": name, "arguments": arguments}
        if call_id:
            body = {"id": call_id, **body}
        return body

    def describe_tool(self, tool: ToolDefinition) -> str:
        return json_text(self.schema_object(tool))

    def format_call(
        self, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> str:
        return json_text(self.call_object(name, arguments, call_id))

    def example_fence(self) -> str:
        return "json"

    def guidelines(self) -> str:
        return (
            "To call a tool, answer with a JSON object in a ```json fenced block, shaped like "
            f"this: {self.call_shape_hint}. {self.multi_call_hint} Arguments are a JSON object "
            "whose keys and value types follow the tool's `parameters` schema: arrays as JSON "
            "arrays, nested objects as JSON objects. Call only tools listed here; every call you "
            "write is executed, so do not write example calls you do not mean. You receive each "
            "call's result in a `tool_result` block, in the order of your calls; answer without "
            "a call when you are done."
        )

    def render_results(self, pairs: Sequence[tuple[ToolInvocation, ToolResult]]) -> str:
        lines = [json_text(result_block(inv, res)) for inv, res in pairs]
        return "Tool results, in the order of your calls:\n" + "\n".join(lines)
