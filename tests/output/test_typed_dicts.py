"""``output_type`` with a ``typing.TypedDict`` (nested ones and ``NotRequired`` keys too) works
on every supported Python, though pydantic before 3.12 takes only typing_extensions'."""

from __future__ import annotations

import json
import typing

from autobyteus_like import Agent, AgentConfig, ScriptedLLM


class Point(typing.TypedDict):
    x: int
    y: int


class Shape(typing.TypedDict):
    name: str
    corners: list[Point]
    origin: Point | None
    note: typing.NotRequired[str]


def test_a_typing_typeddict_is_an_output_type():
    answer = {"name": "tri", "corners": [{"x": "1", "y": 2}], "origin": None}
    llm = ScriptedLLM([json.dumps({"name": "final_result", "arguments": answer})])
    config = AgentConfig(name="a", llm=llm, tool_format="json", output_type=Shape)
    with Agent(config) as agent:
        shape = agent.run("draw", timeout=10)
    assert shape == {"name": "tri", "corners": [{"x": 1, "y": 2}], "origin": None}
    schema = agent.output.tool.inline_schema()
    assert schema["required"] == ["name", "corners", "origin"]
