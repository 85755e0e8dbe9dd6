"""A remote A2A agent's skills as tools, one per skill of its agent card, each asking that
skill: against a team served by ``serve-a2a`` (in this process), whose skills are its members."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("a2a", reason="the A2A tests need autobyteus-like[a2a]")

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, ToolFailure
from autobyteus_like.a2a import remote_skill_tools
from tests.a2a.test_serve_a2a import served_here


def two_members(tmp_path: Path) -> Path:
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "experts", "coordinator": "lead",
        "members": [{"name": "lead", "role": "plans", "llm": {
                        "provider": "scripted", "responses": ["the lead answers"]}},
                    {"name": "helper", "role": "knows arithmetic", "llm": {
                        "provider": "scripted", "responses": ["the helper says 4"]}}]}))
    return path


@pytest.mark.slow  # a served team (in this process)
def test_each_skill_is_a_tool_asking_that_skill(tmp_path):
    with served_here(two_members(tmp_path)) as url:
        tools = {tool.name: tool for tool in remote_skill_tools(url, name="experts",
                                                                 timeout_s=60)}
        assert set(tools) == {"experts.lead", "experts.helper"}
        assert "knows arithmetic" in tools["experts.helper"].description
        caller = AgentConfig(name="caller", tools=["experts.helper"], tool_format="json",
                             sandbox={"allow_network": True},
                             llm=ScriptedLLM([json.dumps({"name": "experts.helper",
                                                          "arguments": {"message": "2+2?"}}),
                                              "It is 4."]))
        with Agent(caller, tools=list(tools.values())) as agent:
            assert agent.run("ask the helper", timeout=60) == "It is 4."
            result = agent.config.llm.requests[1].messages[-1].content
        assert "the helper says 4" in result  # the helper answered, not the lead
    with pytest.raises(ToolFailure, match="cannot be read"):  # the server is gone
        remote_skill_tools(url, name="experts", timeout_s=5)
