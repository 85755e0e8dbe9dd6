"""A tool's JSON schema in OpenAI's strict subset (``strict: true``), or a ConfigError saying
which tool and which keyword cannot be made strict.

Strict mode wants every object closed (``additionalProperties: false``) with every property
required; an optional property is therefore required but nullable, and ``optional_nulls`` tells
the decoder which nulls to drop again so the tool's own default applies. Keywords strict mode
refuses are errors, never silently dropped (the model would be told less than the tool checks);
``title`` and ``default`` are only annotations and are left out.
"""

from __future__ import annotations

from typing import Any

from autobyteus_like.errors import ConfigError

__all__ = ["optional_properties", "strict_schema"]

_REFUSED = ("allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
            "patternProperties", "unevaluatedProperties", "propertyNames", "minProperties",
            "maxProperties", "contains", "uniqueItems")
_ANNOTATIONS = ("title", "default", "examples")


def strict_schema(tool: str, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (inline, no ``$ref``) made strict; ``ConfigError`` naming ``tool`` and the
    keyword (with where it sits) when it cannot be."""
    if schema.get("type") != "object":
        raise _refused(tool, "its parameters are not a JSON object schema")
    made: dict[str, Any] = _strict(tool, schema, "parameters")
    return made


def _strict(tool: str, node: Any, where: str) -> Any:
    if isinstance(node, list):
        return [_strict(tool, item, f"{where}[{index}]") for index, item in enumerate(node)]
    if not isinstance(node, dict):
        return node
    for keyword in _REFUSED:
        if keyword in node:
            raise _refused(tool, f"OpenAI's strict schemas do not take {keyword!r} (at {where})")
    extra = node.get("additionalProperties")
    if extra not in (None, False):
        raise _refused(tool, f"strict objects are closed, and {where} takes "
                       "additionalProperties")
    if "$ref" in node:
        raise _refused(tool, f"{where} holds a $ref")
    out = {key: value for key, value in node.items() if key not in _ANNOTATIONS}
    if "properties" in out:
        properties: dict[str, Any] = out["properties"]
        required = set(out.get("required", []))
        out["properties"] = {}
        for name, value in properties.items():
            made = _strict(tool, value, f"{where}.{name}")
            out["properties"][name] = made if name in required else _nullable(made)
        out["required"] = list(properties)
        out["additionalProperties"] = False
    elif out.get("type") == "object":
        out["properties"], out["required"], out["additionalProperties"] = {}, [], False
    for key in ("items", "anyOf", "prefixItems"):
        if key in out:
            out[key] = _strict(tool, out[key], f"{where}.{key}")
    return out


def _refused(tool: str, why: str) -> ConfigError:
    return ConfigError(f"tool {tool!r}", [f"cannot use strict mode: {why}"])


def _nullable(schema: Any) -> Any:
    """An optional property as strict mode takes it: required, and null allowed."""
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]} if kind != "null" else schema
    if isinstance(kind, list):
        return schema if "null" in kind else {**schema, "type": [*kind, "null"]}
    if "anyOf" in schema:
        options = schema["anyOf"]
        if any(isinstance(o, dict) and o.get("type") == "null" for o in options):
            return schema
        return {**schema, "anyOf": [*options, {"type": "null"}]}
    return {"anyOf": [schema, {"type": "null"}]}


def optional_properties(schema: dict[str, Any]) -> frozenset[str]:
    """The top-level properties the tool does not require (a null there means: left out)."""
    required = set(schema.get("required", []))
    return frozenset(name for name in schema.get("properties", {}) if name not in required)
