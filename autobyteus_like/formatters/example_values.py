"""Deterministic example arguments for a tool, derived from its schema.

Every argument is shown, optional ones included, and every kind in its true shape: arrays as
arrays (the anchor prints them as scalars), nested objects as objects, maps as maps.
"""

from __future__ import annotations

from typing import Any

from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.json_schema import schema_type, unwrap_optional

__all__ = ["example_arguments", "example_value"]

_MAX_DEPTH = 6


def example_arguments(tool: ToolDefinition) -> dict[str, Any]:
    """An example value for every argument of ``tool``."""
    schema = tool.inline_schema()
    return {
        name: example_value(prop, name)
        for name, prop in schema.get("properties", {}).items()
    }


def example_value(schema: dict[str, Any], hint: str, depth: int = 0) -> Any:
    """An example value for one schema node; ``hint`` (the argument name) flavours strings."""
    node = unwrap_optional(schema)
    examples = node.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0]
    if "const" in node:
        return node["const"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    kind = schema_type(node)
    if depth >= _MAX_DEPTH:
        return {} if kind == "object" else [] if kind == "array" else f"example {hint}"
    if kind == "integer":
        return 3 + depth
    if kind == "number":
        return 2.5 + depth
    if kind == "boolean":
        return True
    if kind == "array":
        items = node.get("items")
        item_schema = items if isinstance(items, dict) else {"type": "string"}
        return [
            example_value(item_schema, f"{hint} {n}", depth + 1) for n in (1, 2)
        ]
    if kind == "object":
        properties = node.get("properties")
        if isinstance(properties, dict) and properties:
            return {name: example_value(sub, name, depth + 1) for name, sub in properties.items()}
        extra = node.get("additionalProperties")
        value_schema = extra if isinstance(extra, dict) else {"type": "string"}
        return {"key": example_value(value_schema, "value", depth + 1)}
    return f"example {hint}"
