"""The default ``json`` format, for providers without a preference."""

from __future__ import annotations

from autobyteus_like.formatters._json_family import JsonFamilyFormatter

__all__ = ["JsonFormatter"]


class JsonFormatter(JsonFamilyFormatter):
    """``{"name", "arguments"}``: the call shape nearly every model has seen."""

    format = "json"
    call_shape_hint = '{"name": "<tool name>", "arguments": {<arguments>}}'
    multi_call_hint = "To call several tools at once, write a JSON array of such objects."
