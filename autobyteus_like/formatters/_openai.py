"""The ``openai`` format: OpenAI function objects, calls as a ``tool_calls`` list."""

from __future__ import annotations

from typing import Any

from autobyteus_like.formatters._json_family import JsonFamilyFormatter
from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["OpenAiFormatter"]


class OpenAiFormatter(JsonFamilyFormatter):
    """OpenAI, Mistral, DeepSeek and Grok read this shape best (their native wire shape)."""

    format = "openai"
    call_shape_hint = (
        '{"tool_calls": [{"type": "function", "function": {"name": "<tool name>", '
        '"arguments": {<arguments>}}}]}'
    )
    multi_call_hint = "To call several tools at once, put several entries in `tool_calls`."

    def schema_object(self, tool: ToolDefinition) -> dict[str, Any]:
        return {"type": "function", "function": super().schema_object(tool)}

    def call_object(
        self, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> Any:
        call: dict[str, Any] = {
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        if call_id:
            call = {"id": call_id, **call}
        return {"tool_calls": [call]}
