"""Best-effort coercion of parsed argument values to the types a tool declares.

Parsers read text, so values often arrive as strings ("5", " true ", "[1, 2]"). This turns them
into what the schema asks for where that is unambiguous and leaves anything else untouched, so
that validation later reports it in words the LLM can act on. It never raises: an integer too long
for Python's ``int`` (over ``sys.get_int_max_str_digits()`` digits) stays text, for validation to
refuse.
"""

from __future__ import annotations

import json
import re
from typing import Any

from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.json_schema import schema_type, unwrap_optional

__all__ = ["coerce_arguments", "coerce_value"]

_INT = re.compile(r"[+-]?\d+")
# Unambiguous (no two ways to split a run of digits), so a long non-number fails in linear time.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def coerce_arguments(tool: ToolDefinition, arguments: dict[str, Any]) -> dict[str, Any]:
    """Each argument coerced to its declared type where possible; unknown arguments untouched."""
    properties = tool.argument_schemas
    return {
        key: coerce_value(value, properties[key]) if key in properties else value
        for key, value in arguments.items()
    }


def _allows_null(schema: dict[str, Any]) -> bool:
    options = schema.get("anyOf")
    return isinstance(options, list) and any(
        isinstance(o, dict) and o.get("type") == "null" for o in options
    )


def coerce_value(value: Any, schema: dict[str, Any]) -> Any:
    """One value coerced to one schema node, recursively through arrays and objects."""
    node = unwrap_optional(schema)
    kind = schema_type(node)
    if isinstance(value, str) and kind not in ("string", "any"):
        value = _from_text(value, kind, _allows_null(schema))
    if kind == "array" and isinstance(value, list):
        items = node.get("items")
        if isinstance(items, dict):
            return [coerce_value(item, items) for item in value]
    elif kind == "object" and isinstance(value, dict):
        properties = node.get("properties", {})
        extra = node.get("additionalProperties")
        return {
            key: coerce_value(sub, properties[key]) if key in properties
            else coerce_value(sub, extra) if isinstance(extra, dict) else sub
            for key, sub in value.items()
        }
    return value


def _from_text(value: str, kind: str, nullable: bool) -> Any:
    text = value.strip()
    if not text and nullable:
        return None
    if kind == "integer" and _INT.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python converts
            return value
    if kind == "number" and _NUMBER.fullmatch(text):
        return float(text)
    if kind == "boolean" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if kind == "array" and not text:
        return []
    if kind == "object" and not text:
        return {}
    if kind in ("array", "object") and text[:1] in "[{":
        try:
            decoded = json.loads(text)
        except (ValueError, RecursionError):
            return value
        if isinstance(decoded, list if kind == "array" else dict):
            return decoded
    return value
