"""A tool marked ``requires_approval`` waits for a person under the default settings, wherever
it runs: its body never starts unasked. Only ``approval_policy="auto_approve_marked"`` waives
the mark, and nothing waives ``dangerous``."""

from __future__ import annotations

import json
import threading

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.events import ApprovalRequested, ToolResultReceived
from autobyteus_like.tools import APPROVAL_POLICIES, waits_for_approval
from tests.agent.event_waits import wait_for

ran = threading.Event()


@tool(requires_approval=True)
def launch(target: str) -> str:
    """Launch at a target."""
    ran.set()
    return f"launched at {target}"


@tool(dangerous=True)
def wipe(target: str) -> str:
    """Wipe a target."""
    ran.set()
    return f"wiped {target}"


@tool
def look(target: str) -> str:
    """Look at a target."""
    return target


def _call(name: str) -> str:
    return json.dumps({"name": name, "arguments": {"target": "moon"}})


@pytest.fixture(autouse=True)
def _fresh() -> None:
    ran.clear()


def test_a_marked_tool_waits_under_the_default_config_and_never_runs_unasked():
    llm = ScriptedLLM([_call("launch"), "it was refused"])
    with Agent(AgentConfig(name="a", llm=llm, tools=[launch], tool_format="json")) as agent:
        events = agent.events()
        reply = agent.send("go")
        [asked] = wait_for(events, ApprovalRequested)
        assert asked.invocation.name == "launch"
        assert not ran.is_set() and not reply.done()
        agent.deny(asked.invocation.id, "not today")
        assert reply.result(timeout=10) == "it was refused"
    assert not ran.is_set()
    assert "denied: not today" in llm.requests[1].messages[-1].content


def test_auto_approve_marked_runs_a_marked_tool_unasked():
    llm = ScriptedLLM([_call("launch"), "launched"])
    config = AgentConfig(name="a", llm=llm, tools=[launch], tool_format="json",
                         approval_policy="auto_approve_marked")
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "launched"
    assert ran.is_set()


def test_auto_approve_marked_never_waives_dangerous():
    llm = ScriptedLLM([_call("wipe"), "refused"])
    config = AgentConfig(name="a", llm=llm, tools=[wipe], tool_format="json",
                         approval_policy="auto_approve_marked")
    with Agent(config) as agent:
        events = agent.events()
        reply = agent.send("go")
        [asked] = wait_for(events, ApprovalRequested)
        assert not ran.is_set()
        agent.deny(asked.invocation.id)
        [result] = wait_for(events, ToolResultReceived)
        assert result.result.error is not None and result.result.error.code.value == "DENIED"
        assert reply.result(timeout=10) == "refused"
    assert not ran.is_set()


@pytest.mark.parametrize("policy", APPROVAL_POLICIES)
@pytest.mark.parametrize("auto", [True, False])
def test_the_rule_in_every_combination(policy, auto):
    def waits(definition: object) -> bool:
        return waits_for_approval(definition, auto_execute_tools=auto,  # type: ignore[arg-type]
                                  approval_policy=policy)

    assert waits(wipe)
    assert waits(launch) is (policy != "auto_approve_marked")
    assert waits(look) is (not auto and policy == "all")
