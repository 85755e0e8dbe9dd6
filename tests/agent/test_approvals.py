"""Approving or denying a call: an id no call waits with is an error naming the waiting ones,
and the real call keeps waiting for its own decision."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.errors import AutobyteusLikeError
from autobyteus_like.events import ApprovalRequested
from tests.agent.event_waits import wait_for


@tool(requires_approval=True)
def launch(target: str) -> str:
    """Launch at a target."""
    return f"launched at {target}"


def test_an_unknown_call_id_is_an_error_naming_the_waiting_calls():
    llm = ScriptedLLM([json.dumps({"name": "launch", "arguments": {"target": "moon"}}), "done"])
    config = AgentConfig(name="a", llm=llm, tools=[launch], tool_format="json",
                         auto_execute_tools=False, approval_policy="marked")
    with Agent(config) as agent:
        events = agent.events()
        reply = agent.send("go")
        [asked] = wait_for(events, ApprovalRequested)
        waiting = asked.invocation.id
        for decide in (agent.approve, agent.deny):
            with pytest.raises(AutobyteusLikeError) as raised:
                decide("bogus")
            assert type(raised.value).__name__ == "UnknownApprovalError"
            assert str(raised.value) == (f"agent 'a': no call 'bogus' waits for approval; "
                                         f"waiting: {waiting}")
        assert not reply.done()  # the real call still waits
        agent.approve(waiting)
        assert reply.result(timeout=10) == "done"
        with pytest.raises(AutobyteusLikeError, match="waiting: none"):
            agent.approve(waiting)  # decided already
