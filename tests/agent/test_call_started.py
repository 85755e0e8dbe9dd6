"""``ToolResult.started`` says whether a call's body started: True for what the tool returned
or raised, False for a call refused before it ran (arguments that do not fit, an unknown
tool, a denial)."""

from __future__ import annotations

import json

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.events import ApprovalRequested
from tests.agent.event_waits import wait_for


@tool
def works(n: int) -> int:
    """Returns n."""
    return n


@tool
def breaks(n: int) -> int:
    """Raises."""
    raise RuntimeError("broken")


@tool(requires_approval=True)
def asks(n: int) -> int:
    """Needs a yes."""
    return n


def _call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def test_each_result_says_whether_the_body_started():
    reply = "".join([_call("works", n=1), _call("breaks", n=2), _call("works", n="x"),
                     _call("nope", n=3), _call("asks", n=4)])
    llm = ScriptedLLM([reply, "done"])
    config = AgentConfig(name="a", llm=llm, tools=[works, breaks, asks], tool_format="json",
                         auto_execute_tools=False, approval_policy="marked")
    with Agent(config) as agent:
        events = agent.events()
        answer = agent.send("go")
        [asked] = wait_for(events, ApprovalRequested)
        agent.deny(asked.invocation.id, "no")
        assert answer.result(timeout=10) == "done"
    [message] = [m for m in agent.history if getattr(m, "results", None)]
    results = message.results  # type: ignore[attr-defined]
    assert [(r.tool_name, r.status, r.started) for r in results] == [
        ("works", "success", True), ("breaks", "failure", True), ("works", "failure", False),
        ("nope", "failure", False), ("asks", "failure", False)]
    assert [r.error.code for r in results[2:]] == ["INVALID_ARGS", "UNKNOWN_TOOL", "DENIED"]
