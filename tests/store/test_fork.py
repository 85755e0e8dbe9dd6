"""Fork a session at a turn (SQLite and PostgreSQL): the fork holds the first turns and goes on
from there with another model; the original's rows are exactly as they were."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, ToolContext, tool
from autobyteus_like.errors import UsageError
from autobyteus_like.store import CallState, Session
from autobyteus_like.testing import export_session, replay_export
from autobyteus_like.tools._context import call_key

TABLES = ["sessions", "agents", "messages", "turns", "calls", "mail", "usage",
          "recorded_requests", "recorded_responses", "recorded_tools", "session_origins"]
RAN_WITH: list[str] = []


@tool
def note(text: str) -> str:
    """Take a note."""
    return f"noted {text}"


@tool(requires_approval=True)
def pay(amount: int, ctx: ToolContext) -> str:
    """Pay (a person decides)."""
    RAN_WITH.append(ctx.idempotency_key)
    return f"paid {amount}"


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def team(llm: ScriptedLLM, session: Session) -> AgentTeam:
    config = TeamConfig(name="solo", coordinator="lead", members=[
        AgentConfig(name="lead", llm=llm, tools=["note", "pay"], tool_format="json")])
    return AgentTeam(config, tools=[note, pay], session=session)


def dump(store, name: str) -> list[tuple[str, list[tuple]]]:
    """Every row of session ``name``, table by table, in a canonical order."""
    out = []
    for table in TABLES:
        column = "name" if table == "sessions" else "session"
        rows = store.transactions.rows(f"SELECT * FROM {table} WHERE {column} = ?", name)
        out.append((table, sorted(tuple(str(value) for value in row) for row in rows)))
    return out


def four_turns(store_url: str) -> Session:
    replies = []
    for number in range(1, 5):
        replies += [call("note", text=f"n{number}"), f"answer {number}"]
    session = Session("four", store_url)
    with team(ScriptedLLM(replies), session) as running:
        for number in range(1, 5):
            assert running.run(f"message {number}", timeout=30) == f"answer {number}"
    return session


def test_a_fork_at_turn_two_goes_on_from_there_and_the_original_is_untouched(store_url,
                                                                             tmp_path):
    session = four_turns(store_url)
    store = session.store
    before = dump(store, "four")
    fork = session.fork(2, "four-b")
    assert dump(store, "four") == before
    assert [t.text for t in fork.turns("lead")] == ["message 1", "message 2"]
    assert [c.arguments["text"] for c in store.calls("four-b", "lead")] == ["n1", "n2"]
    assert [m.content for m in store.mail("four-b")] == ["message 1", "message 2"]
    assert len(store.recordings.responses("four-b", "lead")) == 4
    assert {info.name for info in store.sessions()} >= {"four", "four-b"}
    export_session(store, "four-b", tmp_path / "fork-test")  # a fork exports like any session
    replay_export(tmp_path / "fork-test", tmp_path / "replayed")
    # the fork goes on with another model: a scripted one starts at its first reply (the
    # replies the fork copied are not the script's)
    other = ScriptedLLM([call("note", text="other"), "other answer"])
    with team(other, fork) as running:
        assert running.run("message 3b", timeout=30) == "other answer"
    shown = [message.content for message in other.requests[0].messages]
    assert "message 2" in shown and "message 3" not in shown and shown[-1] == "message 3b"
    assert dump(store, "four") == before
    # a resume of the fork skips only the replies the fork itself wrote
    again = ScriptedLLM([call("note", text="other"), "other answer", "after the fork's own"])
    with team(again, fork) as running:
        assert running.run("message 4b", timeout=30) == "after the fork's own"
    with pytest.raises(UsageError, match="has 4 user messages; fork --at 5 names none"):
        session.fork(5)
    with pytest.raises(UsageError, match="exists already"):
        session.fork(1, "four-b")
    assert store.delete("four-b")
    assert all(not rows for _, rows in dump(store, "four-b"))  # its recordings too
    assert dump(store, "four") == before
    fork.close()
    session.close()


def test_a_copied_call_keeps_its_key_and_takes_another_decision(tmp_path):
    RAN_WITH.clear()
    session = Session("pay", str(tmp_path / "s.db"))
    with team(ScriptedLLM(["first", call("pay", amount=5), "paid"]), session) as running:
        running.run("hello", timeout=30)
        running.send("pay five")
        waiting = session.store.waiting_calls("pay")
        while not waiting:  # the call is stored waiting before the team says so
            running.events().get(timeout=10)
            waiting = session.store.waiting_calls("pay")
    original = waiting[0]
    fork = session.fork(2, "pay-b")
    assert [c.state.value for c in session.store.calls("pay-b", "lead")] == ["waiting_approval"]
    fork.store.decide_call("pay-b", original.invocation_id, CallState.APPROVED)
    with team(ScriptedLLM(["done in the fork"]), fork) as running:
        assert running.resume(timeout=30) == "done in the fork"
    key = call_key("lead", original.invocation_id, "pay")  # the original's, not the fork's
    assert [key] == RAN_WITH
    fork.close()
    session.close()


def test_a_running_session_is_forked_without_its_lease_and_by_a_members_turns(tmp_path):
    session = Session("live", str(tmp_path / "s.db"))
    replies = [call("note", text="a"), "one", call("note", text="b"), "two"]
    with team(ScriptedLLM(replies), session) as running:
        running.run("first", timeout=30)
        running.run("second", timeout=30)
        held_by = session.store.is_held("live")
        fork = session.fork(1, member="lead")  # the team still holds "live"
        assert session.store.is_held("live") == held_by and held_by
        assert fork.name == "live.fork1"
        assert [t.text for t in fork.turns("lead")] == ["first"]
        assert session.fork(1).name == "live.fork1-2"
    with pytest.raises(UsageError, match="turns count from 1"):
        session.fork(0)
    with pytest.raises(UsageError, match="member 'ghost' has no turn"):
        session.fork(1, member="ghost")
    session.close()
