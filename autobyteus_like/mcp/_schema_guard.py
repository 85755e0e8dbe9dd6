"""Bounds on a server's ``inputSchema`` before it becomes a tool's schema.

A server is not trusted: its schema is inlined (``$ref`` replaced by the definition), shown to
the LLM in every manifest and compiled by ``jsonschema``. A schema nested thousands of levels
deep would overflow the recursion of those steps; one whose definitions refer to each other
twice over doubles at every level when inlined (a "ref bomb": thirty lines, a billion nodes).
``schema_problem`` measures both without building anything, in time linear in the schema.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_INLINED_NODES", "MAX_SCHEMA_CHARS", "schema_problem"]

MAX_SCHEMA_CHARS = 256 * 1024
MAX_DEPTH = 48
MAX_INLINED_NODES = 20_000
_REF_PREFIX = "#/$defs/"


def _depth(schema: Any) -> int:
    """How deeply lists and objects nest (iteratively: no recursion to overflow)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        node, level = stack.pop()
        if level > deepest:
            deepest = level
            if deepest > MAX_DEPTH:
                return deepest
        if isinstance(node, dict):
            stack.extend((child, level + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, level + 1) for child in node)
    return deepest


def _inlined_size(schema: dict[str, Any]) -> int:
    """Nodes in the schema once every ``#/$defs/`` reference is inlined, as ``inline_refs``
    does (a reference inside its own definition stays one node), capped just past the limit.
    Each definition is sized once, so the count costs linear time however large it is."""
    defs = schema.get("$defs")
    defs = defs if isinstance(defs, dict) else {}
    sizes: dict[str, int] = {}
    limit = MAX_INLINED_NODES + 1

    def size(node: Any, active: frozenset[str]) -> int:
        if isinstance(node, list):
            return min(limit, 1 + sum(size(item, active) for item in node))
        if not isinstance(node, dict):
            return 1
        total = 1
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            name = ref.removeprefix(_REF_PREFIX)
            if name in defs and name not in active:
                if name not in sizes:
                    sizes[name] = size(defs[name], active | {name})
                total += sizes[name]
        for key, value in node.items():
            if key not in ("$ref", "$defs"):
                total += size(value, active)
            if total >= limit:
                return limit
        return total

    return size(schema, frozenset())


def schema_problem(schema: Any) -> str | None:
    """Why the schema cannot be used as a tool's arguments schema, or None if it can."""
    if not isinstance(schema, dict):
        return f"its inputSchema is a {type(schema).__name__}, not a JSON object"
    if schema.get("type", "object") != "object":
        return f"its inputSchema describes {schema.get('type')!r}, not an object"
    try:
        text = json.dumps(schema)
    except (TypeError, ValueError, RecursionError) as exc:
        return f"its inputSchema is not plain JSON ({type(exc).__name__})"
    if len(text) > MAX_SCHEMA_CHARS:
        return f"its inputSchema is {len(text)} characters long (at most {MAX_SCHEMA_CHARS})"
    if _depth(schema) > MAX_DEPTH:
        return f"its inputSchema nests more than {MAX_DEPTH} levels deep"
    try:
        inlined = _inlined_size(schema)
    except RecursionError:  # a chain of references thousands long
        inlined = MAX_INLINED_NODES + 1
    if inlined > MAX_INLINED_NODES:
        return (f"its inputSchema grows past {MAX_INLINED_NODES} nodes once its $refs are "
                "inlined")
    try:
        from jsonschema import validators
    except ImportError:  # pragma: no cover - jsonschema comes with the mcp extra
        return None
    try:
        validators.validator_for(schema).check_schema(schema)
    except Exception as exc:  # SchemaError, or a $schema the library cannot resolve
        message = str(getattr(exc, "message", exc)).splitlines()[0][:200]
        return f"its inputSchema is not valid JSON Schema: {message}"
    return None
