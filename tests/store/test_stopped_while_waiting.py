"""A call stopped while it waited for a decision never started: the store records, and the
model is shown, that it "never started" (``ToolResult.started`` False), not that it "may have
run" (docs/architecture.md, "Interrupted calls"); the command line's ``approve`` of it is
refused saying the run was stopped."""

from __future__ import annotations

import json

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.cli import main
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.store import Session
from autobyteus_like.store._records import CallState
from autobyteus_like.tools._invocation import MAY_HAVE_RUN, NEVER_STARTED, ToolResult
from tests.agent.event_waits import wait_for

ran: list[str] = []


@tool(requires_approval=True)
def wipe(target: str) -> str:
    """Wipe a target."""
    ran.append(target)
    return f"wiped {target}"


def test_a_call_stopped_while_it_waited_is_stored_and_shown_as_never_started(store_url, capsys):
    llm = ScriptedLLM([json.dumps({"name": "wipe", "arguments": {"target": "disk"}}),
                       "it never ran"])
    config = AgentConfig(name="a", llm=llm, tools=[wipe], tool_format="json",
                         auto_execute_tools=False, approval_policy="marked")
    session = Session("s1", store_url)
    with Agent(config, session=session) as agent:
        events = agent.events()
        first = agent.send("wipe the disk")
        [asked] = wait_for(events, ApprovalRequested)
        agent.new_run(abandon="stopped by the user")  # the stop: the call still waited
        assert first.exception(timeout=10) is not None
        assert agent.run("did it run?", timeout=10) == "it never ran"
        [call] = session.store.calls("s1", "a")
    assert ran == []
    assert call.invocation_id == asked.invocation.id
    assert call.state is CallState.INTERRUPTED
    stored = ToolResult.model_validate(call.result)
    assert stored.started is False
    assert stored.error is not None and stored.error.message.startswith(NEVER_STARTED)
    shown = llm.requests[-1].messages  # the next turn's request carries the old result
    text = "\n".join(m.content for m in shown)
    assert NEVER_STARTED in text and MAY_HAVE_RUN not in text
    capsys.readouterr()
    assert main(["approve", "s1", call.invocation_id, "--store", store_url]) == 2
    err = capsys.readouterr().err
    assert "the run was stopped while call" in err and "Traceback" not in err
    assert ran == []
