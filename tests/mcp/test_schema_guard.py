"""Bounds on a server's inputSchema: hostile schemas are refused quickly, with a reason."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from autobyteus_like.mcp._schema_guard import schema_problem
from autobyteus_like.tools._definition import ToolDefinition


def _bomb(levels: int) -> dict:
    defs = {f"d{i}": {"type": "object", "properties": {"a": {"$ref": f"#/$defs/d{i + 1}"},
                                                        "b": {"$ref": f"#/$defs/d{i + 1}"}}}
            for i in range(levels)}
    defs[f"d{levels}"] = {"type": "string"}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}


def test_ordinary_schemas_pass_references_and_recursion_included():
    recursive = {"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}},
                 "$defs": {"Node": {"type": "object", "properties": {
                     "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}
    for schema in ({"type": "object", "properties": {"path": {"type": "string"}}},
                   {"properties": {}}, recursive, _bomb(5),
                   {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}):
        assert schema_problem(schema) is None, schema


def test_a_reference_bomb_is_refused_in_linear_time():
    started = time.thread_time()  # CPU time: a loaded machine's waits for a core do not count
    problem = schema_problem(_bomb(60))  # 2**60 nodes if it were inlined
    assert problem is not None and "once its $refs are inlined" in problem
    assert time.thread_time() - started < 1


def test_deep_huge_wrong_and_invalid_schemas_are_refused_with_a_reason():
    deep: dict = {"type": "string"}
    for _ in range(200):
        deep = {"type": "object", "properties": {"n": deep}}
    chain = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(5000)}
    cases = {
        "nests more than": deep,
        "characters long": {"type": "object", "description": "x" * 300_000},
        "not an object": {"type": "array"},
        "not valid JSON Schema": {"type": "object", "properties": {"a": {"type": 12}}},
        "once its $refs are inlined": {"type": "object", "properties": {
            "x": {"$ref": "#/$defs/d0"}}, "$defs": chain},
    }
    for expected, schema in cases.items():
        problem = schema_problem(schema)
        assert problem is not None and expected in problem, (expected, problem)
    assert "is a str" in str(schema_problem("hello"))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "properties", "$ref", "$defs", "items", "a"]), inner,
        max_size=3), max_leaves=30)


@given(json_values)
def test_any_json_is_judged_without_raising_and_what_passes_makes_a_tool(schema):
    if schema_problem(schema) is None:
        tool = ToolDefinition(name="t", description="", arguments_model=None,
                              function=lambda arguments: None, input_schema=schema)
        tool.inline_schema()
