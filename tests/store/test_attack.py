"""Attacks on durable sessions: a hostile LLM, a careless user and a crash at the worst moment.

Each defect found here was fixed; its test stays as the regression test, and the others pin
behaviour that held under attack. A "crash" here is an agent stopped mid-turn and its
session closed (nothing more is written), as in test_resume.py; kill -9 is in
test_crash_resume.py.
"""

from __future__ import annotations

import time

import pytest

from autobyteus_like import (
    Agent,
    AgentConfig,
    AgentTurnError,
    ScriptedLLM,
    SessionInUseError,
)
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.store import Session, open_store
from tests.store.test_resume import Tools, call


def make_agent(replies: list, store_url: str, tools: Tools, *, session: str = "s1",
               max_iterations: int | None = None) -> Agent:
    extra = {} if max_iterations is None else {"max_iterations": max_iterations}
    config = AgentConfig(name="a", llm=ScriptedLLM(replies, provider="anthropic"),
                         tools=[t.name for t in tools.all], auto_execute_tools=False,
                         approval_policy="marked", **extra)
    return Agent(config, tools=tools.all, session=Session(session, store_url))


def wait_for(condition, timeout: float = 10.0) -> None:
    """Poll ``condition`` with a deadline (used only where no event exists: a row another
    thread commits, or a lease running out)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return str(tmp_path / "sessions.db")


def approval_asked(agent: Agent, text: str) -> ApprovalRequested:
    events = agent.events()
    agent.send(text)
    return next(e for e in iter(lambda: events.get(timeout=10), None)
                if isinstance(e, ApprovalRequested))


# -- the lease -------------------------------------------------------------------------------


def test_a_live_agent_waiting_for_approval_keeps_its_session(sqlite_url):
    tools = Tools()
    first = make_agent([call("guarded", x=1), "done"], sqlite_url, tools)
    first.session.store.lease_s = 0.3  # 30 s by default: a person deciding takes longer
    with first:
        approval_asked(first, "go")
        watcher = open_store(sqlite_url)
        try:
            # No event says "the lease ran out": poll the store for it, with a deadline.
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline and watcher.is_held("s1") is not None:
                time.sleep(0.02)
            other = Session("s1", sqlite_url)
            try:
                with pytest.raises(SessionInUseError):
                    other.hold("a", {"a": [t.name for t in tools.all]})
            finally:
                other.close()
        finally:
            watcher.close()
    first.session.close()


def test_a_second_agent_of_the_same_name_on_one_session_object_is_refused(sqlite_url):
    tools = Tools()
    session = Session("s1", sqlite_url)

    def config(reply: str) -> AgentConfig:
        return AgentConfig(name="a", llm=ScriptedLLM([reply], provider="anthropic"),
                           tools=[t.name for t in tools.all])

    first = Agent(config("one"), tools=tools.all, session=session)
    second = Agent(config("two"), tools=tools.all, session=session)
    try:
        with first:
            first.run("x", timeout=10)
            try:
                with pytest.raises(SessionInUseError):
                    second.start()
            finally:
                second.stop()
    finally:
        session.close()


# -- what a crash must not lose --------------------------------------------------------------


def test_a_reset_asked_for_before_a_crash_still_happens_on_resume(sqlite_url):
    tools = Tools()
    replies = [call("slow", x=1), "done A", "done B"]
    first = make_agent(replies, sqlite_url, tools)
    with first:
        first.send("A")
        assert tools.started.wait(10)
        first.reset()  # forget A's conversation before B
        first.send("B")
        store = open_store(sqlite_url)
        try:  # B is committed by the actor's thread; no event says so
            wait_for(lambda: any(t.text == "B" for t in store.turns("s1", "a")))
        finally:
            store.close()
    first.session.close()
    tools.release.set()
    second = make_agent(replies, sqlite_url, tools)
    with second:
        assert [t.reply.result(10) for t in second.resume()] == ["done A", "done B"]
        request = second.config.llm.requests[-1]
    second.session.close()
    assert [(m.role, m.content) for m in request.messages] == [("user", "B")]


def test_an_uninterrupted_agent_keeps_the_results_of_a_turn_that_hit_max_iterations(
        sqlite_url):
    """The reference for the next test: without a restart, the next turn's request carries
    the results the failed turn's last calls got."""
    tools = Tools()
    agent = make_agent([call("echo", text="r1"), "next answer"], sqlite_url, tools,
                       max_iterations=1)
    with agent:
        with pytest.raises(AgentTurnError, match="max_iterations"):
            agent.run("go", timeout=10)
        assert agent.run("next", timeout=10) == "next answer"
        request = agent.config.llm.requests[-1]
    agent.session.close()
    assert [m.role for m in request.messages] == ["user", "assistant", "user", "user"]
    assert "r1" in request.messages[2].content


def test_the_results_of_a_turn_that_hit_max_iterations_survive_a_restart(sqlite_url):
    tools = Tools()
    replies = [call("echo", text="r1"), "next answer"]
    first = make_agent(replies, sqlite_url, tools, max_iterations=1)
    with first, pytest.raises(AgentTurnError, match="max_iterations"):
        first.run("go", timeout=10)
    first.session.close()
    second = make_agent(replies, sqlite_url, tools, max_iterations=1)
    with second:
        assert second.run("next", timeout=10) == "next answer"
        request = second.config.llm.requests[-1]
    second.session.close()
    assert [m.role for m in request.messages] == ["user", "assistant", "user", "user"]
    assert "r1" in request.messages[2].content


def test_a_store_that_fails_at_the_end_of_a_turn_fails_the_turn(sqlite_url):
    import sqlite3

    tools = Tools()

    def break_the_store(request: object) -> str:
        # Another writer (a full disk, a broken file) makes the turn's end unwritable.
        connection = sqlite3.connect(sqlite_url)
        connection.execute(
            "CREATE TRIGGER no_end BEFORE UPDATE ON turns WHEN NEW.state IN ('done', 'failed') "
            "BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
        connection.commit()
        connection.close()
        return "the answer"

    agent = make_agent([break_the_store], sqlite_url, tools)
    with agent:
        reply = agent.send("go")
        with pytest.raises(AgentTurnError, match="disk I/O error"):
            reply.result(3)
    agent.session.close()


def test_native_calls_with_provider_ids_and_a_broken_call_resume_as_the_provider_needs(
        store_url):
    """What held: a crash while a native call runs, in a response whose other call had broken
    JSON arguments; on resume the provider's ids pair each call with its result (INTERRUPTED,
    PARSE_ERROR) in one tool message, and nothing runs twice."""
    from autobyteus_like.llm._messages import NativeToolCall
    from autobyteus_like.llm._scripted import ScriptedReply

    tools = Tools()
    replies = [ScriptedReply("", (NativeToolCall("prov_1", "slow", '{"x": 1}'),
                                  NativeToolCall("prov_bad", "echo", '{"text": '))), "after"]

    def native_agent() -> Agent:
        config = AgentConfig(name="a", llm=ScriptedLLM(replies, provider="openai"),
                             tools=[t.name for t in tools.all], tool_format="native",
                             auto_execute_tools=False, approval_policy="marked")
        return Agent(config, tools=tools.all, session=Session("s1", store_url))

    first = native_agent()
    with first:
        first.send("go")
        assert tools.started.wait(10)
    first.session.close()
    tools.release.set()
    second = native_agent()
    with second:
        [turn] = second.resume()
        assert turn.reply.result(10) == "after"
        request = second.config.llm.requests[-1]
    second.session.close()
    assert tools.runs == ["slow"]
    assert [m.role for m in request.messages] == ["user", "assistant", "tool"]
    assert [c.id for c in request.messages[1].tool_calls] == ["prov_1", "prov_bad"]
    assert [(r.invocation_id, r.error and r.error.code.value)
            for r in request.messages[2].tool_results] == [("prov_1", "INTERRUPTED"),
                                                           ("prov_bad", "PARSE_ERROR")]
