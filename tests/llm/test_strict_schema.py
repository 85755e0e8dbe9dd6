"""OpenAI strict mode: schemas made strict, optional arguments' nulls dropped again, and a
schema strict mode cannot take refused when the agent starts, naming the tool and keyword."""

from __future__ import annotations

import json
import threading
from typing import Annotated

import pytest
from pydantic import Field

from autobyteus_like import Agent, AgentConfig, tool
from autobyteus_like.errors import ConfigError
from autobyteus_like.llm import LLMRequest, Message
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.llm._strict_schema import strict_schema
from tests.llm.replay_server import ReplayServer, Stream


@tool
def search(query: str, limit: int = 10, tags: list[str] | None = None) -> str:
    """Search notes."""
    return query


@tool
def lookup(key: str, extra: dict[str, int]) -> str:
    """Look a key up (``extra`` is an open mapping)."""
    return key


def test_every_property_is_required_and_optional_ones_take_null():
    schema = strict_schema("search", search.shared_inline_schema)
    assert schema["required"] == ["query", "limit", "tags"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["limit"]["type"] == ["integer", "null"]
    assert {"type": "null"} in schema["properties"]["tags"]["anyOf"]
    assert "default" not in json.dumps(schema)


def test_an_open_mapping_cannot_be_strict_and_the_error_names_tool_and_place():
    with pytest.raises(ConfigError) as caught:
        strict_schema("lookup", lookup.shared_inline_schema)
    assert str(caught.value) == ("tool 'lookup': cannot use strict mode: strict objects are "
                                 "closed, and parameters.extra takes additionalProperties")


def test_a_refused_keyword_is_named():
    schema = {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}
    with pytest.raises(ConfigError, match=r"do not take 'not' \(at parameters.a\)"):
        strict_schema("t", schema)


def test_an_agent_with_a_tool_strict_mode_cannot_take_fails_at_start():
    llm = OpenAILLM("m", base_url="http://127.0.0.1:9/v1", api_key="k", strict=True)
    with pytest.raises(ConfigError, match="tool 'lookup'"):
        Agent(AgentConfig(name="a", llm=llm, tools=[lookup], tool_format="native")).start()


def test_strict_tools_on_the_wire_and_their_nulls_dropped_on_the_way_back():
    call = {"index": 0, "id": "c1", "type": "function", "function": {
        "name": "search", "arguments": '{"query": "q", "limit": null, "tags": null}'}}
    chunks = [{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": {"tool_calls": [call]},
                            "finish_reason": "tool_calls"}]}]
    request = LLMRequest("", (Message("user", "find q"),), tools=(search,))
    with ReplayServer([Stream(chunks)]) as server:
        llm = OpenAILLM("m", base_url=server.base_url, api_key="k", strict=True)
        out = [c for chunk in llm.stream(request, threading.Event()) for c in chunk.tool_calls]
    [declared] = server.requests[0]["tools"]
    assert declared["function"]["strict"] is True
    assert json.loads(out[0].arguments) == {"query": "q"}  # the tool's defaults apply


def test_field_constraints_strict_mode_takes_are_kept():
    @tool
    def pick(n: Annotated[int, Field(ge=1, le=5)]) -> int:
        """Pick."""
        return n

    assert strict_schema("pick", pick.shared_inline_schema)["properties"]["n"] == {
        "type": "integer", "minimum": 1, "maximum": 5}
