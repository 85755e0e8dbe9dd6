"""Post-processing of the JSON Schemas pydantic generates: inlining ``$ref`` and reading types.

Schemas are never written by hand (seed 002 NO_MANUAL_SCHEMA_DUPLICATION); these helpers only
reshape what pydantic produced, for providers that reject ``$ref`` and for the text formatters.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["inline_refs", "schema_type", "strip_titles", "unwrap_optional"]

Schema = dict[str, Any]

_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "if", "then", "else")


def _walk(node: Any, visit: Any) -> Any:
    """Rebuild a schema bottom-up, calling ``visit`` on every schema node (not on property maps)."""
    if not isinstance(node, dict):
        return node
    out: Schema = {}
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _walk(sub, visit) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_walk(sub, visit) for sub in value]
        elif key in _SCHEMA_VALUES and isinstance(value, dict):
            out[key] = _walk(value, visit)
        else:
            out[key] = value
    return visit(out)


def strip_titles(schema: Schema) -> Schema:
    """Drop pydantic's auto-generated ``title`` keywords (noise for an LLM), keeping properties."""

    def visit(node: Schema) -> Schema:
        node.pop("title", None)
        return node

    result: Schema = _walk(schema, visit)
    return result


def inline_refs(schema: Schema) -> Schema:
    """Replace every ``$ref`` into ``$defs`` by the definition itself and drop ``$defs``.

    A recursive model cannot be inlined; at the point of recursion the reference becomes a plain
    ``{"type": "object"}`` so the result stays finite and valid.
    """
    defs: Schema = dict(schema.get("$defs", {}))

    def resolve(node: Any, active: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, active) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in active or name not in defs:
                return {"type": "object"}
            target = resolve(copy.deepcopy(defs[name]), (*active, name))
            siblings = {k: resolve(v, active) for k, v in node.items() if k != "$ref"}
            return {**target, **siblings}
        return {k: resolve(v, active) for k, v in node.items() if k != "$defs"}

    result: Schema = resolve(schema, ())
    return result


def unwrap_optional(schema: Schema) -> Schema:
    """``anyOf: [X, null]`` (pydantic's Optional) -> X, keeping description and default."""
    options = schema.get("anyOf")
    if isinstance(options, list):
        non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(non_null) == 1 and len(non_null) < len(options):
            merged = {k: v for k, v in schema.items() if k != "anyOf"}
            return {**non_null[0], **merged}
    return schema


def schema_type(schema: Schema) -> str:
    """The JSON type a schema node asks for, as one word ('string', 'array', ..., or 'any')."""
    node = unwrap_optional(schema)
    declared = node.get("type")
    if isinstance(declared, str):
        return declared
    if isinstance(declared, list):
        non_null = [t for t in declared if t != "null"]
        return str(non_null[0]) if len(non_null) == 1 else "any"
    if "enum" in node:
        values = node["enum"]
        if all(isinstance(v, str) for v in values):
            return "string"
        if all(isinstance(v, bool) for v in values):
            return "boolean"
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return "integer"
    if "const" in node:
        return schema_type({"enum": [node["const"]]})
    if "properties" in node:
        return "object"
    if "items" in node:
        return "array"
    return "any"
