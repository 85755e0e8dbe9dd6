"""Lenient arguments: what LLMs commonly do to values, undone inside pydantic validation.

Models write values as text: " 7 " for an integer, "True" padded with newlines in XML, a JSON
array as a string, "" for a missing optional value. A before-validator on the tool's arguments
model normalises that text, guided by the JSON Schema (trim scalars, decode JSON text for
containers, empty text as null or an empty container), and pydantic's lax mode then does every
conversion, once, with its own error messages. Nothing here converts a type itself, and nothing
raises: what cannot be normalised is left for pydantic to refuse in words the LLM can act on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, model_validator

from autobyteus_like.tools._json_schema import schema_type, unwrap_optional

__all__ = ["lenient_model", "normalise"]

_MAX_DEPTH = 100
"""Deeper values are left as they are (the parsers refuse calls nested deeper than this)."""
_SCALARS = frozenset({"integer", "number", "boolean"})
_CONTAINERS = {"array": list, "object": dict}


def _nullable(schema: dict[str, Any]) -> bool:
    options = schema.get("anyOf")
    return isinstance(options, list) and any(
        isinstance(option, dict) and option.get("type") == "null" for option in options
    )


def _from_text(text: str, kind: str, nullable: bool) -> Any:
    stripped = text.strip()
    if not stripped and nullable:
        return None
    if kind in _SCALARS:
        return stripped
    container = _CONTAINERS.get(kind)
    if container is None:
        return text
    if not stripped:
        return container()
    if stripped[:1] in "[{":
        try:
            decoded = json.loads(stripped)
        except (ValueError, RecursionError):
            return text
        if isinstance(decoded, container):
            return decoded
    return text


def normalise(value: Any, schema: dict[str, Any], depth: int = 0,
              text: Callable[[str, str], Any] | None = None) -> Any:
    """One value made ready for lax validation against one schema node, recursively.
    ``text(value, kind)``, when given, then converts what is still text (for schemas with no
    pydantic model to convert it), in the same walk."""
    if depth > _MAX_DEPTH:
        return value
    node = unwrap_optional(schema)
    kind = schema_type(node)
    if isinstance(value, str):
        if kind not in ("string", "any"):
            value = _from_text(value, kind, _nullable(schema))
        if text is not None and isinstance(value, str):
            return text(value, kind)
    if kind == "array" and isinstance(value, list):
        items = node.get("items")
        if isinstance(items, dict):
            return [normalise(item, items, depth + 1, text) for item in value]
    elif kind == "object" and isinstance(value, dict):
        properties = node.get("properties", {})
        extra = node.get("additionalProperties")
        return {
            key: normalise(sub, properties[key], depth + 1, text) if key in properties
            else normalise(sub, extra, depth + 1, text) if isinstance(extra, dict) else sub
            for key, sub in value.items()
        }
    return value


def lenient_model(model: type[BaseModel], properties: dict[str, Any]) -> type[BaseModel]:
    """``model`` with a before-validator that normalises its input against ``properties``
    (the model's inlined JSON Schema properties). Instances are instances of ``model``."""

    class Lenient(model):  # type: ignore[valid-type, misc]
        @model_validator(mode="before")
        @classmethod
        def _normalise(cls, data: Any) -> Any:
            if not isinstance(data, dict):
                return data
            return {key: normalise(value, properties[key]) if key in properties else value
                    for key, value in data.items()}

    Lenient.__name__ = Lenient.__qualname__ = model.__name__
    Lenient.__doc__ = model.__doc__
    return Lenient
