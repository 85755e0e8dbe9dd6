"""An MCP toolset's ``requires_approval=[...]`` is enforced under an agent's default settings:
the marked tool's call waits for approve()/deny() (its server is never asked unless approved),
the others run."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp")

from autobyteus_like import Agent, AgentConfig, ScriptedLLM
from autobyteus_like.events import ApprovalRequested, ToolResultReceived
from autobyteus_like.mcp import MCPToolset
from tests.agent.event_waits import wait_for
from tests.mcp.server_processes import sdk_stdio


def _call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def test_a_marked_mcp_tool_waits_and_an_unmarked_one_runs():
    command, args = sdk_stdio()
    toolset = MCPToolset.stdio(command, args, name="sdk", requires_approval=["add"])
    llm = ScriptedLLM([_call("sdk.echo", text="hi") + "\n" + _call("sdk.add", a=1, b=2),
                       "done"])
    config = AgentConfig(name="a", llm=llm, tools=["sdk.echo", "sdk.add"], tool_format="json")
    with Agent(config, tools=[toolset]) as agent:
        events = agent.events()
        reply = agent.send("go")
        [asked] = wait_for(events, ApprovalRequested, timeout=30)
        assert asked.invocation.name == "sdk.add"
        [echoed] = wait_for(events, ToolResultReceived, timeout=30)
        assert echoed.result.tool_name == "sdk.echo" and echoed.result.status == "success"
        assert not reply.done()
        agent.deny(asked.invocation.id, "not now")
        assert reply.result(timeout=30) == "done"
    assert "denied: not now" in llm.requests[1].messages[-1].content
