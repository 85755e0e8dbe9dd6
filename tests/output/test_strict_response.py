"""``output_mode: provider`` on OpenAI is Structured Outputs: the schema is sent strict
(``strict: true``) when it can be, an optional field's null comes back as left out; a schema
strict mode cannot take is sent as a hint, without ``strict``."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

pytest.importorskip("openai")

from autobyteus_like import Agent, AgentConfig
from tests.llm.provider_helpers import PROVIDERS
from tests.llm.replay_server import ReplayServer
from tests.output.test_structured import openai_text


class City(BaseModel):
    name: str
    population: int = 0


class Tags(BaseModel):
    tags: list[str] = Field(json_schema_extra={"uniqueItems": True})


def test_the_schema_is_sent_strict_and_a_null_optional_is_left_out():
    with ReplayServer([openai_text('{"name": "Paris", "population": null}')]) as server:
        config = AgentConfig(name="geo", llm=PROVIDERS["openai"](server), tool_format="native",
                             output_type=City, output_mode="provider")
        with Agent(config) as agent:
            assert agent.run("Capital?", timeout=20) == City(name="Paris")
    sent = server.requests[0]["response_format"]["json_schema"]
    assert sent["strict"] is True
    assert sent["schema"]["additionalProperties"] is False
    assert sent["schema"]["required"] == ["name", "population"]


def test_a_schema_strict_mode_cannot_take_is_a_hint():
    with ReplayServer([openai_text('{"tags": ["a"]}')]) as server:
        config = AgentConfig(name="t", llm=PROVIDERS["openai"](server), tool_format="native",
                             output_type=Tags, output_mode="provider")
        with Agent(config) as agent:
            assert agent.run("Tags?", timeout=20) == Tags(tags=["a"])
    assert "strict" not in server.requests[0]["response_format"]["json_schema"]
