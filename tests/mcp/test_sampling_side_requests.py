"""A server's sampling request during an agent's call is the agent's side request: answered by
the member's own model, counted in the run's usage, refused (never sent) past a limit."""

from __future__ import annotations

import json
import sys

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, UsageLimitExceededError
from autobyteus_like.mcp import MCPToolset
from autobyteus_like.usage import UsageLimits
from tests.mcp.test_asking import ASKING


def agent_with(llm: ScriptedLLM, **config: object) -> Agent:
    toolset = MCPToolset.stdio(sys.executable, [ASKING], name="ask", sampling=True)
    return Agent(AgentConfig(name="sampler", llm=llm, tool_format="json",
                             tools=["ask.sample"], **config), tools=[toolset])


def sample_call(prompt: str) -> str:
    return json.dumps({"name": "ask.sample", "arguments": {"prompt": prompt}})


@pytest.mark.slow  # two server starts (about 1 s each idle, more under load)
def test_sampling_is_the_members_side_request_counted_and_limited():
    llm = ScriptedLLM([sample_call("the answer?"), "forty-two", "It said forty-two."])
    with agent_with(llm) as agent:
        assert agent.run("ask the server", timeout=60) == "It said forty-two."
        assert agent.usage.run.llm_calls == 3  # two of the turn, one sampling request
    side = llm.requests[1]  # what the server asked, as the member's model saw it
    assert side.system_prompt == "Be brief." and side.messages[-1].content == "the answer?"
    assert not side.tools  # its own conversation: none of the member's tools
    assert "sampled: forty-two" in llm.requests[2].messages[-1].content

    limited = ScriptedLLM([sample_call("again?"), "never sent", "never"])
    with agent_with(limited, limits=UsageLimits(max_llm_calls=1)) as agent, \
            pytest.raises(UsageLimitExceededError, match="max_llm_calls"):
        agent.run("ask the server", timeout=60)
    assert len(limited.requests) == 1  # the sampling request was refused, never sent
