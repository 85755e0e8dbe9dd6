"""``ModelRetry`` raised inside a tool goes back to the model as a retry with its message
(INVALID_ARGS, not INTERNAL) and counts towards ``@tool(retries=n)``."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import Agent, AgentConfig, ModelRetry, ScriptedLLM, tool
from autobyteus_like.errors import AgentTurnError


@tool(retries=1)
def lookup(city: str) -> str:
    """Look a city up."""
    if city != "Paris":
        raise ModelRetry(f"no city named {city!r}; try its full name")
    return "found"


def _call(city: str) -> str:
    return json.dumps({"name": "lookup", "arguments": {"city": city}})


def test_model_retry_is_a_retry_the_model_reads():
    llm = ScriptedLLM([_call("Pa"), _call("Paris"), "done"])
    with Agent(AgentConfig(name="a", llm=llm, tools=[lookup], tool_format="json")) as agent:
        assert agent.run("go", timeout=10) == "done"
    shown = llm.requests[1].messages[-1].content
    assert "INVALID_ARGS" in shown and "no city named 'Pa'; try its full name" in shown
    assert "INTERNAL" not in shown and "raised ModelRetry" not in shown


def test_model_retry_counts_towards_the_retries():
    llm = ScriptedLLM([_call("Pa"), _call("Par"), "never"])
    with Agent(AgentConfig(name="a", llm=llm, tools=[lookup], tool_format="json")) as agent, \
            pytest.raises(AgentTurnError, match="called wrongly 2 times"):
        agent.run("go", timeout=10)
