"""The ``xml`` format (Anthropic-style): ``<tool name>`` with ``<arg>``s, arrays as ``<item>``s.

Schemas, examples and results are built with lxml, so escaping is right by construction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from autobyteus_like.formatters._base import ToolFormatter
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult
from autobyteus_like.tools._json_schema import schema_type, unwrap_optional

if TYPE_CHECKING:
    from lxml import etree

__all__ = ["XmlFormatter", "xml_value_text"]


@cache
def _etree() -> Any:
    """lxml, loaded the first time an XML manifest or result is built (not at import)."""
    from lxml import etree

    return etree

_GUIDELINES = """\
To call a tool, write a <tool> block like the examples below:
<tool name="TOOL_NAME">
  <arguments>
    <arg name="ARGUMENT_NAME">value</arg>
  </arguments>
</tool>
Rules:
- One <tool> block per call. To call several tools, write several blocks one after another;
  you receive their results in the same order.
- Arrays: one <item> per element inside the <arg>, e.g.
  <arg name="paths"><item>a.txt</item><item>b.txt</item></arg>
- Nested objects: nested <arg name="..."> elements inside the <arg>; a list of objects is a list
  of <item>s each holding <arg>s; a list of lists nests <item>s.
- Numbers and booleans are written as plain text (42, 2.5, true, false).
- Text is taken as written. Write <, > and & as &lt;, &gt; and &amp;, or wrap code and markup in
  <![CDATA[ ... ]]>, which is taken verbatim.
- Only <tool>, <arguments>, <arg> and <item> are structure; every call you write is executed, so
  do not write example calls you do not mean.
- Answer without a <tool> block when you are done."""


# Characters XML 1.0 cannot hold, plus the private marker used to smuggle them through lxml.
_UNREPRESENTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff\ue000]")
_MARKER = re.compile("\ue000([0-9]+)\ue001")


def _safe(text: str) -> str:
    """Mark characters lxml refuses; ``_to_text`` turns the marks into ``&#N;`` references."""
    return _UNREPRESENTABLE.sub(lambda m: f"\ue000{ord(m.group(0))}\ue001", text)


def xml_value_text(value: Any) -> str:
    """A scalar as XML text: booleans lowercase, others as JSON would print them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _fill(element: etree._Element, value: Any) -> None:
    """Write a value into an element: objects as <arg>s, arrays as <item>s, scalars as text."""
    if isinstance(value, dict):
        for key, sub in value.items():
            _fill(_etree().SubElement(element, "arg", name=str(key)), sub)
    elif isinstance(value, list | tuple):
        for sub in value:
            _fill(_etree().SubElement(element, "item"), sub)
    else:
        element.text = _safe(xml_value_text(value))


_CONSTRAINTS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
                "uniqueItems", "minProperties", "maxProperties")
"""JSON Schema keywords a value must satisfy, shown as attributes of the same name."""


def _describe_arg(parent: etree._Element, tag: str, schema: dict[str, Any], **attrs: str) -> None:
    node = unwrap_optional(schema)
    kind = schema_type(node)
    element = _etree().SubElement(parent, tag)
    if "name" in attrs:
        element.set("name", attrs.pop("name"))
    element.set("type", kind)
    for key, value in attrs.items():
        element.set(key, value)
    if isinstance(node.get("enum"), list):
        element.set("enum", _safe(", ".join(xml_value_text(v) for v in node["enum"])))
    if "default" in node and node["default"] not in (None, [], {}):
        element.set("default", _safe(xml_value_text(node["default"])))
    if node.get("description"):
        element.set("description", _safe(str(node["description"])))
    for key in _CONSTRAINTS:
        if key in node and not isinstance(node[key], dict | list):
            element.set(key, _safe(xml_value_text(node[key])))
    if kind == "array" and isinstance(node.get("items"), dict):
        _describe_arg(element, "items", node["items"])
    elif kind == "object":
        required = set(node.get("required", []))
        for name, sub in node.get("properties", {}).items():
            _describe_arg(element, "arg", sub, name=name, required=str(name in required).lower())
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            _describe_arg(element, "values", extra)


def _to_text(element: etree._Element) -> str:
    text = _etree().tostring(element, pretty_print=True, encoding="unicode").rstrip("\n")
    return _MARKER.sub(lambda m: f"&#{m.group(1)};", text)


class XmlFormatter(ToolFormatter):
    """XML for Anthropic-style models, or any model when ``use_xml_tool_format`` is set."""

    format = "xml"

    def guidelines(self) -> str:
        return _GUIDELINES

    def describe_tool(self, tool: ToolDefinition) -> str:
        root = _etree().Element("tool", name=tool.name)
        if tool.description:
            _etree().SubElement(root, "description").text = _safe(tool.description)
        arguments = _etree().SubElement(root, "arguments")
        schema = tool.inline_schema()
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            _describe_arg(arguments, "arg", prop, name=name, required=str(name in required).lower())
        return _to_text(root)

    def format_call(
        self, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> str:
        root = _etree().Element("tool", name=_safe(name))
        if call_id:
            root.set("id", _safe(call_id))
        _fill(_etree().SubElement(root, "arguments"), arguments)
        return _to_text(root)

    def example_fence(self) -> str:
        return "xml"

    def render_results(self, pairs: Sequence[tuple[ToolInvocation, ToolResult]]) -> str:
        blocks = []
        for invocation, result in pairs:
            element = _etree().Element(
                "tool_result",
                name=_safe(invocation.name), id=_safe(invocation.id), status=result.status,
            )
            if result.status == "failure" and result.error is not None:
                element.set("code", result.error.code.value)
                _etree().SubElement(element, "message").text = _safe(result.error.message)
                if result.error.suggestion:
                    _etree().SubElement(element, "suggestion").text = _safe(result.error.suggestion)
            elif isinstance(result.content, str):
                element.text = _safe(result.content)
            elif result.content is not None:
                element.text = _safe(json.dumps(result.content, ensure_ascii=False))
            blocks.append(_to_text(element))
        return "Tool results, in the order of your calls:\n" + "\n".join(blocks)
