"""Arguments described by a JSON Schema someone else wrote (an MCP server's ``inputSchema``),
validated with ``jsonschema`` and reported in the same words as pydantic-model tools.

Models write values as text (XML writes every scalar as text), and a foreign schema has no
pydantic model to convert them, so values are made to fit the schema once, here: the same
normalisation as pydantic tools (trim scalars, JSON text for containers, empty text as null),
then text that spells a number or a boolean becomes one where the schema asks for it. Anything
that still does not fit is a problem in the list the LLM reads, never an exception.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from autobyteus_like.errors import ToolArgumentError, ToolDeclarationError
from autobyteus_like.tools._json_schema import schema_type
from autobyteus_like.tools._lenient_arguments import normalise

__all__ = ["SchemaArguments"]

_INT = re.compile(r"[+-]?\d+")
# Unambiguous (one way to split a run of digits), so a long non-number fails in linear time.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _scalar(text: str, kind: str) -> Any:
    if kind == "integer" and _INT.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python converts: left for validation to refuse
            return text
    if kind == "number" and _NUMBER.fullmatch(text):
        return float(text)
    if kind == "boolean" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _where(path: Any) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class SchemaArguments:
    """Validates one tool's arguments against its JSON Schema (draft 2020-12 unless the schema
    names another). ``jsonschema`` is imported on the first validation (the ``mcp`` extra)."""

    def __init__(self, tool_name: str, schema: dict[str, Any]) -> None:
        if not isinstance(schema, dict) or schema.get("type", "object") != "object":
            raise ToolDeclarationError(
                f"tool {tool_name!r}: its input schema must describe a JSON object")
        self.tool_name = tool_name
        self.schema = schema

    @cached_property
    def _validator(self) -> Any:
        try:
            from jsonschema import validators
        except ImportError:
            raise ToolDeclarationError(
                f"tool {self.tool_name!r} has a JSON Schema of its own; validating it needs "
                "the jsonschema package: pip install 'autobyteus-like[mcp]'") from None
        cls = validators.validator_for(self.schema)
        try:
            cls.check_schema(self.schema)
        except Exception as exc:  # SchemaError: the server's schema itself is broken
            raise ToolDeclarationError(
                f"tool {self.tool_name!r}: its input schema is not valid JSON Schema: "
                f"{getattr(exc, 'message', exc)}") from None
        return cls(self.schema)

    @property
    def properties(self) -> dict[str, Any]:
        """Each argument's schema, by name."""
        properties = self.schema.get("properties", {})
        return properties if isinstance(properties, dict) else {}

    def bind(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments made to fit the schema, or ``ToolArgumentError`` listing every
        problem."""
        properties = self.properties
        closed = self.schema.get("additionalProperties") is False
        problems = [
            f"unknown argument {key!r} (this tool takes: {', '.join(properties) or 'no arguments'})"
            for key in raw if closed and key not in properties
        ]
        values = {key: normalise(value, properties[key], text=_scalar)
                  if key in properties else value
                  for key, value in raw.items() if not (closed and key not in properties)}
        for error in sorted(self._validator.iter_errors(values),
                            key=lambda e: [str(part) for part in e.absolute_path]):
            problems.append(self._describe(error))
        if problems:
            raise ToolArgumentError(self.tool_name, problems)
        return values

    def _describe(self, error: Any) -> str:
        path = _where(error.absolute_path)
        if error.validator == "required":
            missing = next((name for name in error.validator_value
                            if isinstance(error.instance, dict) and name not in error.instance),
                           None)
            if missing is not None:
                full = f"{path}.{missing}" if path else missing
                node = self.properties.get(missing) if not path else None
                kind = f" ({schema_type(node)})" if isinstance(node, dict) else ""
                return f"missing required argument {full!r}{kind}"
        shown = repr(error.instance)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        where = f"argument {path!r}" if path else "arguments"
        message = str(error.message)
        if len(message) > 200:
            message = message[:197] + "..."
        return f"{where}: {message} (got {shown})"
