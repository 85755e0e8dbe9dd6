"""Approvals mixed in one response, across a stop: approve one call, deny another, stop while a
third still waits; a new process on the session resumes, the waiting call is asked about again,
and the LLM gets every result once, in invocation order: the approved one as it ran (once),
the denied one DENIED in the one wording, the last as decided after the restart."""

from __future__ import annotations

import json
from collections import Counter

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.events import ApprovalRequested, ToolResultReceived
from autobyteus_like.history._messages import ToolResultsMessage
from autobyteus_like.store import Session
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

ran: Counter[str] = Counter()


@tool(requires_approval=True)
def launch(target: str) -> str:
    """Launch at a target."""
    ran[target] += 1
    return "launched at " + target


RESPONSE = "".join(json.dumps({"name": "launch", "arguments": {"target": t}})
                   for t in ("moon", "mars", "venus"))


def _agent(path: object) -> tuple[Agent, ScriptedLLM]:
    llm = ScriptedLLM([RESPONSE, "done"])
    config = AgentConfig(name="a", llm=llm, tools=[launch], tool_format="json",
                         auto_execute_tools=False, approval_policy="marked")
    return Agent(config, session=Session("s1", path)), llm


def test_approve_deny_and_stop_while_one_waits_then_resume_each_call_once_in_order(tmp_path):
    ran.clear()
    path = tmp_path / "s.db"
    first, _ = _agent(path)
    with first:
        events = first.events()
        reply = first.send("go")
        asked: list[str] = []
        while len(asked) < 3:
            event = events.get(timeout=10)
            assert event is not None
            if isinstance(event, ApprovalRequested):
                asked.append(event.invocation.id)
        first.approve(asked[0])
        first.deny(asked[1], "not mars")
        while True:  # the approved call ran and its result is in
            event = events.get(timeout=10)
            assert event is not None
            if isinstance(event, ToolResultReceived) and event.result.invocation_id == asked[0]:
                break
    assert reply.exception(timeout=10) is not None  # stopped while venus waited
    first.session.close()
    assert ran == Counter({"moon": 1})

    second, llm = _agent(path)
    with second:
        events = second.events()
        [resumed] = second.resume()
        again = None
        while again is None:
            event = events.get(timeout=10)
            assert event is not None
            if isinstance(event, ApprovalRequested):
                again = event.invocation.id
        assert again == asked[2]  # the call that waited is asked about again, nothing else
        second.approve(again)
        assert resumed.reply.result(timeout=10) == "done"
        history = second.history
    second.session.close()
    assert ran == Counter({"moon": 1, "venus": 1})  # nothing ran twice; mars never
    [results] = [m for m in history if isinstance(m, ToolResultsMessage)]
    assert [r.invocation_id for r in results.results] == asked
    denied = ToolResult.denied(ToolInvocation(id=asked[1], name="launch"), "not mars")
    assert [r.status for r in results.results] == ["success", "failure", "success"]
    assert results.results[1].error == denied.error
    assert len(llm.requests) == 1  # the resumed process sent every result at once
