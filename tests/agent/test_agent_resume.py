"""One way to resume: what a session's last process left unfinished is settled by the caller,
``resume()`` or ``abandon_unfinished(reason)``; a message or a reset before that is an
``UnfinishedSessionError`` saying both ways, and nothing of it is stored or sent."""

from __future__ import annotations

import json
import re

import pytest

from autobyteus_like import (
    Agent,
    AgentConfig,
    AgentTeam,
    ScriptedLLM,
    UnfinishedSessionError,
    tool,
)
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.store import Session
from tests.runtime.scripted_teams import member, team_config

GUARDED = json.dumps({"name": "guarded", "arguments": {"x": 1}})


@tool(requires_approval=True)
def guarded(x: int) -> str:
    """Needs a person's approval."""
    return f"guarded {x}"


def _agent(path, llm: ScriptedLLM) -> Agent:
    config = AgentConfig(name="a", llm=llm, tools=["guarded"], tool_format="json",
                         auto_execute_tools=False, approval_policy="marked")
    return Agent(config, tools=[guarded], session=Session("s1", path))


def _left_waiting(path) -> None:
    """A first process whose turn stops while its call waits for a person."""
    first = _agent(path, ScriptedLLM([GUARDED]))
    with first:
        events = first.events()
        first.send("go")
        next(e for e in iter(lambda: events.get(timeout=10), None)
             if isinstance(e, ApprovalRequested))
    first.session.close()


def test_a_message_before_the_unfinished_turn_is_settled_is_refused_saying_both_ways(
        tmp_path):
    path = tmp_path / "s.db"
    _left_waiting(path)
    llm = ScriptedLLM([GUARDED, "a fresh answer"])
    second = _agent(path, llm)
    with second:
        with pytest.raises(UnfinishedSessionError) as refused:
            second.send("something new")
        assert str(refused.value) == (
            "session 's1': its last process left agent 'a''s turn 1 ('go') unfinished; call "
            "agent.resume() to go on with it, or agent.abandon_unfinished(reason) to end it, "
            "before sending a new message")
        with pytest.raises(UnfinishedSessionError):
            second.reset()
        assert llm.requests == []  # nothing was sent
        assert [t.text for t in second.session.store.turns("s1", "a")] == ["go"]

        second.abandon_unfinished("dropped by the user")
        assert second.run("something new", timeout=10) == "a fresh answer"
    store = second.session.store
    first_turn, new_turn = store.turns("s1", "a")
    assert (first_turn.state, first_turn.error) == ("failed", "dropped by the user")
    assert [c.state.value for c in store.calls("s1", "a", first_turn.turn_id)] == [
        "interrupted"]
    assert (new_turn.text, new_turn.answer) == ("something new", "a fresh answer")
    second.session.close()


def test_after_resume_a_message_follows_the_resumed_turn(tmp_path):
    path = tmp_path / "s.db"
    _left_waiting(path)
    second = _agent(path, ScriptedLLM([GUARDED, "done", "next"]))
    with second:
        events = second.events()
        [turn] = second.resume()
        assert second.resume() == []  # settled once
        second.approve(next(e for e in iter(lambda: events.get(timeout=10), None)
                            if isinstance(e, ApprovalRequested)).invocation.id)
        assert turn.reply.result(10) == "done"
        assert second.run("and then?", timeout=10) == "next"
    second.session.close()


def test_a_team_is_refused_a_message_until_its_unfinished_work_is_settled(tmp_path):
    path = tmp_path / "team.db"

    def lead(responses):
        return member("lead", responses, tools=["guarded"], auto_execute_tools=False,
                      approval_policy="marked")

    with Session("t1", path) as session:
        first = AgentTeam(team_config(lead([GUARDED])), tools=[guarded], session=session)
        with first:
            events = first.events()
            first.send("go")
            next(e for e in iter(lambda: events.get(timeout=10), None)
                 if isinstance(e, ApprovalRequested))
    with Session("t1", path) as session:
        second = AgentTeam(team_config(lead([GUARDED, "fresh"])), tools=[guarded],
                           session=session)
        with second:
            with pytest.raises(UnfinishedSessionError, match=re.escape("team.resume()")):
                second.run("new work", timeout=10)
            second.abandon_unfinished("not wanted any more")
            assert second.run("new work", timeout=10) == "fresh"
        turns = session.store.turns("t1", "lead")
        assert [(t.text, t.state) for t in turns] == [("go", "failed"), ("new work", "done")]
