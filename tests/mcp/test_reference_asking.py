"""The npm reference server (``@modelcontextprotocol/server-everything``) asking us things:
its prompts, resources, elicitation and sampling requests, through MCPToolset."""

from __future__ import annotations

from typing import Any

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM
from autobyteus_like.mcp import ElicitationRequest, MCPToolset
from tests.mcp.test_reference_servers import call


@pytest.mark.slow  # node starting the reference server
def test_everything_server_prompts_resources_elicitation_and_sampling(npm_servers):
    asked: list[ElicitationRequest] = []
    sampled: list[Any] = []

    def person(request: ElicitationRequest) -> dict[str, Any]:
        asked.append(request)
        return {"name": "Ada", "check": True}

    def sampler(request: Any) -> str:
        sampled.append(request)
        return "a sampled reply"

    toolset = MCPToolset.stdio("node", [npm_servers.everything, "stdio"], name="ev",
                               resources_tool=True, on_elicitation=person, sampling=True,
                               sampler=sampler)
    llm = ScriptedLLM([call("ev.read_resource",
                            uri="demo://resource/static/document/architecture.md"), "read"])
    config = AgentConfig(name="a", llm=llm, tools=["ev.*"], tool_format="json")
    with Agent(config, tools=[toolset]) as agent:
        prompts = {p.name: p for p in toolset.prompts()}
        assert prompts["args-prompt"].arguments == {"city": True, "state": False}
        filled = toolset.prompt("args-prompt", {"city": "Oslo"})
        assert "Oslo" in filled.text
        assert "demo://resource/static/document/architecture.md" in {
            r.uri for r in toolset.resources()}
        assert agent.run("read the architecture", timeout=30) == "read"
        assert "Architecture" in llm.requests[1].messages[-1].content
        tools = {t.name: t for t in toolset.tools()}
        accepted = tools["ev.trigger-elicitation-request"].run({})
        assert '"name": "Ada"' in "".join(accepted) and asked[0].schema["required"] == ["name"]
        reply = tools["ev.trigger-sampling-request"].run({"prompt": "hi"})
        assert "a sampled reply" in reply and sampled[0].messages[0][1].endswith("hi")


@pytest.mark.slow  # node starting the reference server
def test_everything_server_sampling_mid_call_is_the_members_side_request(npm_servers):
    toolset = MCPToolset.stdio("node", [npm_servers.everything, "stdio"], name="ev",
                               sampling=True)  # no sampler: the member's own model answers
    llm = ScriptedLLM([call("ev.trigger-sampling-request", prompt="hi"), "a member's reply",
                       "done"])
    config = AgentConfig(name="a", llm=llm, tools=["ev.trigger-sampling-request"],
                         tool_format="json")
    with Agent(config, tools=[toolset]) as agent:
        assert agent.run("sample", timeout=30) == "done"
        assert agent.usage.run.llm_calls == 3  # the sampling request counted in the run
    assert llm.requests[1].messages[-1].content.endswith("hi")  # what the server asked
    assert "a member's reply" in llm.requests[2].messages[-1].content
