from __future__ import annotations

from pydantic import BaseModel

from autobyteus_like import tool
from autobyteus_like.tools._json_schema import inline_refs, schema_type, strip_titles


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


@tool
def draw(tree: Tree) -> int:
    """Count the nodes of a tree."""

    def count(node: Tree) -> int:
        return 1 + sum(count(child) for child in node.children)

    return count(tree)


def test_recursive_models_inline_to_a_finite_schema_and_still_validate():
    schema = draw.inline_schema()
    children = schema["properties"]["tree"]["properties"]["children"]
    assert children["items"] == {"type": "object"}  # the point of recursion
    assert "$ref" not in str(schema)
    nested = {"tree": {"label": "a", "children": [{"label": "b", "children": [{"label": "c"}]}]}}
    assert draw.run(nested) == 3


def test_schema_type_reads_every_way_a_type_is_written():
    assert schema_type({"type": ["string", "null"]}) == "string"
    assert schema_type({"type": ["string", "integer"]}) == "any"
    assert schema_type({"enum": ["a", "b"]}) == "string"
    assert schema_type({"enum": [True, False]}) == "boolean"
    assert schema_type({"enum": [1, 2]}) == "integer"
    assert schema_type({"const": 3}) == "integer"
    assert schema_type({"properties": {"x": {}}}) == "object"
    assert schema_type({"items": {}}) == "array"
    assert schema_type({"anyOf": [{"type": "number"}, {"type": "null"}]}) == "number"
    assert schema_type({}) == "any"


def test_titles_go_but_a_property_named_title_stays():
    schema = {"title": "M", "properties": {"title": {"title": "Title", "type": "string"}}}
    assert strip_titles(schema) == {"properties": {"title": {"type": "string"}}}
    assert inline_refs({"$ref": "#/$defs/Missing"}) == {"type": "object"}
