"""Deterministic example arguments for a tool, derived from its schema.

Every argument is shown, optional ones included, and every kind in its true shape: arrays as
arrays (the anchor prints them as scalars), nested objects as objects, maps as maps. Each
example satisfies the schema's own constraints (bounds, multiples, lengths, item counts, string
formats, and patterns where a value can be derived), so the LLM is never taught a call the
tool would refuse.
"""

from __future__ import annotations

import math
from typing import Any

from autobyteus_like.formatters._pattern_example import string_for_pattern
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._json_schema import schema_type, unwrap_optional

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
        return _integer(node, 3 + depth)
    if kind == "number":
        return _number(node, 2.5 + depth)
    if kind == "boolean":
        return True
    if kind == "array":
        items = node.get("items")
        item_schema = items if isinstance(items, dict) else {"type": "string"}
        count = _count(node.get("minItems"), node.get("maxItems"), 2)
        values = [example_value(item_schema, f"{hint} {n}", depth + 1)
                  for n in range(1, count + 1)]
        if node.get("uniqueItems"):
            values = _distinct(values)
        return values
    if kind == "object":
        properties = node.get("properties")
        if isinstance(properties, dict) and properties:
            return {name: example_value(sub, name, depth + 1) for name, sub in properties.items()}
        extra = node.get("additionalProperties")
        value_schema = extra if isinstance(extra, dict) else {"type": "string"}
        return {"key": example_value(value_schema, "value", depth + 1)}
    return _string(node, hint)


_FORMATS = {
    "email": "user@example.com", "date": "2024-01-31", "date-time": "2024-01-31T12:00:00Z",
    "time": "12:00:00", "uri": "https://example.com/", "url": "https://example.com/",
    "uuid": "123e4567-e89b-12d3-a456-426614174000", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
    "hostname": "example.com",
}


def _string(node: dict[str, Any], hint: str) -> str:
    low, high = _whole(node.get("minLength")) or 0, _whole(node.get("maxLength"))
    text = _FORMATS.get(str(node.get("format")), f"example {hint}")
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        derived = string_for_pattern(pattern, low, high, hint=text)
        if derived is not None:
            return derived
    if len(text) < low:
        text += "x" * (low - len(text))
    return text if high is None else text[:high]


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _count(low: Any, high: Any, wanted: int) -> int:
    count = max(wanted, _whole(low) or 0)
    most = _whole(high)
    return count if most is None else min(count, most)


def _bounds(node: dict[str, Any], step: float) -> tuple[float | None, float | None]:
    low, high = node.get("minimum"), node.get("maximum")
    if isinstance(node.get("exclusiveMinimum"), int | float):
        low = node["exclusiveMinimum"] + step
    if isinstance(node.get("exclusiveMaximum"), int | float):
        high = node["exclusiveMaximum"] - step
    return low, high


def _integer(node: dict[str, Any], wanted: int) -> int:
    low, high = _bounds(node, 1)
    value = wanted
    if low is not None and value < low:
        value = math.ceil(low)
    if high is not None and value > high:
        value = math.floor(high)
    step = node.get("multipleOf")
    if isinstance(step, int) and step > 0 and value % step:
        up = value + step - value % step
        value = up if high is None or up <= high else value - value % step
    return value


def _number(node: dict[str, Any], wanted: float) -> float:
    low, high = node.get("minimum"), node.get("maximum")
    open_low, open_high = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
    value = wanted
    floor = low if isinstance(low, int | float) else open_low
    ceiling = high if isinstance(high, int | float) else open_high
    if isinstance(floor, int | float) and (value < floor or (value == floor and open_low == floor)):
        value = floor + 1 if not isinstance(ceiling, int | float) or floor + 1 < ceiling \
            else (floor + ceiling) / 2
    if isinstance(ceiling, int | float) and (value > ceiling or (value == ceiling
                                                                   and open_high == ceiling)):
        value = ceiling - 1 if not isinstance(floor, int | float) or ceiling - 1 > floor \
            else (floor + ceiling) / 2
    step = node.get("multipleOf")
    if isinstance(step, int | float) and step > 0:
        value = math.ceil(value / step) * step
    return value


def _distinct(values: list[Any]) -> list[Any]:
    """Items made different from one another where they came out equal (numbers counted up,
    strings numbered)."""
    seen: list[Any] = []
    for value in values:
        while value in seen:
            if isinstance(value, bool):
                value = not value
            elif isinstance(value, int | float):
                value = value + 1
            elif isinstance(value, str):
                value = f"{value}2"
            else:
                break
        seen.append(value)
    return seen
