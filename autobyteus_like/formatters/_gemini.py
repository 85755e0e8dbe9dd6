"""The ``gemini`` format: Gemini function declarations, calls as ``{"name", "args"}``."""

from __future__ import annotations

from typing import Any

from autobyteus_like.formatters._json_family import JsonFamilyFormatter

__all__ = ["GeminiFormatter"]


class GeminiFormatter(JsonFamilyFormatter):
    """Gemini's own function-call shape."""

    format = "gemini"
    call_shape_hint = '{"name": "<tool name>", "args": {<arguments>}}'
    multi_call_hint = "To call several tools at once, write a JSON array of such objects."

    def call_object(
        self, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> Any:
        body: dict[str, Any] = {"name": name, "args": arguments}
        if call_id:
            body = {"id": call_id, **body}
        return body
