"""A session records each request as the model saw it: after the history processors and the
text format's rendering (what the provider adapter was handed), content-addressed."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import (
    Agent,
    AgentConfig,
    AgentTeam,
    ScriptedLLM,
    TeamConfig,
    keep_last_turns,
    tool,
)
from autobyteus_like.hooks._session_writer import message_data
from autobyteus_like.store import Session


@tool
def note(text: str) -> str:
    """Take a note."""
    return f"noted {text}"


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def test_the_recorded_request_is_the_one_the_model_received(tmp_path):
    llm = ScriptedLLM([call("note", text="a"), "one", call("note", text="b"), "two"])
    config = AgentConfig(name="a", llm=llm, tools=["note"], tool_format="json",
                         history_processors=[keep_last_turns(1)])
    session = Session("s", str(tmp_path / "s.db"))
    with Agent(config, tools=[note], session=session) as agent:
        assert agent.run("first", timeout=30) == "one"
        assert agent.run("second", timeout=30) == "two"
    recorded = session.store.recordings.requests("s", "a")
    session.close()
    assert len(recorded) == len(llm.requests) == 4
    for request, seen in zip(recorded, llm.requests, strict=True):
        assert request["system_prompt"] == seen.system_prompt
        assert request["messages"] == [json.loads(json.dumps(message_data(m)))
                                       for m in seen.messages]
    # the processor cut the first turn from the second turn's requests ...
    assert "first" not in [m["content"] for m in recorded[2]["messages"]]
    # ... and the text format sent the call's result as text, not as a native tool result
    assert not any("tool_results" in m for m in recorded[1]["messages"])


def test_check_requests_shows_a_history_processors_change(tmp_path):
    from autobyteus_like.testing import export_session, replay_export

    config = TeamConfig(name="solo", coordinator="a", members=[AgentConfig(
        name="a", llm=ScriptedLLM([call("note", text="a"), "one", "two"]),
        tools=["note", "send_message_to"], tool_format="json",
        history_processors=[keep_last_turns(1)]), AgentConfig(name="b", llm=ScriptedLLM([]))])
    session = Session("s", str(tmp_path / "s.db"))
    with AgentTeam(config, tools=[note], session=session) as team:
        team.run("first", timeout=30)
        team.run("second", timeout=30)
    export_session(session.store, "s", tmp_path / "t", check_requests=True)
    session.close()
    # the export's team has no processor: its second request shows the first turn again
    with pytest.raises(AssertionError, match=r"a: request 3 differs in messages"):
        replay_export(tmp_path / "t", tmp_path / "run", check_requests=True)
