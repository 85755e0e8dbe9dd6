"""A store error on a live connection mid-turn (a statement timeout while another connection
holds a lock, on the real PostgreSQL) leaves the session resumable: the turn stays unfinished,
nothing of it is shown as done that the store does not hold, and a resume goes on from there to
the answer with every call given a result."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.errors import AgentTurnError
from autobyteus_like.events import ToolResultReceived
from autobyteus_like.store import CallState, Session, open_store


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def test_a_statement_timeout_mid_turn_leaves_the_session_resumable(postgres_server):
    import psycopg

    url = postgres_server.new_database()
    timed_url = url + "?options=-c%20statement_timeout%3D300"
    held: list[psycopg.Connection[tuple[object, ...]]] = []

    @tool
    def record(text: str) -> str:
        """Record it (while an operator's transaction locks this call's row)."""
        locker = psycopg.connect(url)
        locker.execute("SELECT 1 FROM calls FOR UPDATE")
        held.append(locker)  # kept open: the result's write waits on it and times out
        return "recorded"

    script = [call("record", text="a"), "done"]
    config = AgentConfig(name="solo", llm=ScriptedLLM(script), tools=[record],
                         tool_format="json")
    try:
        with Session("s", timed_url) as session, Agent(config, session=session) as agent:
            events = agent.events()
            with pytest.raises(AgentTurnError, match=r"statement timeout|canceling statement"):
                agent.run("go", timeout=20)
        shown = list(iter(lambda: events.get(timeout=5), None))
    finally:
        for locker in held:
            locker.close()
    # nothing shown as a result that the store does not hold
    assert not [e for e in shown if isinstance(e, ToolResultReceived)]
    store = open_store(url)
    try:
        assert store.standing("s") != "done"
        [stored] = store.calls("s", "solo")
        assert stored.state is CallState.RUNNING  # its result never reached the store
        assert [t.state for t in store.turns("s", "solo")] == ["open"]
    finally:
        store.close()
    # a resume in a new process goes on: the call comes back INTERRUPTED, the LLM answers
    resumed_llm = ScriptedLLM(script)
    config = AgentConfig(name="solo", llm=resumed_llm, tools=[record], tool_format="json")
    with Session("s", url) as session, Agent(config, session=session) as agent:
        [turn] = agent.resume()
        assert turn.reply.result(timeout=20) == "done"
    history = resumed_llm.requests[-1].messages
    assert "INTERRUPTED" in history[-1].content  # no call without a result


def test_a_result_arriving_after_a_failed_write_ended_its_turn_is_not_shown(postgres_server):
    """Two calls run at once; the first's result cannot be stored (statement timeout), which
    ends the turn. The second finishes afterwards: nothing stores its result, so it must not be
    shown either (the CLI printed it, while the store held that call as running)."""
    import threading

    import psycopg
    from loguru import logger

    url = postgres_server.new_database()
    held: list[psycopg.Connection[tuple[object, ...]]] = []
    go, stray_handled = threading.Event(), threading.Event()

    @tool
    def lock(text: str) -> str:
        """Returns while an operator's transaction locks the calls' rows."""
        locker = psycopg.connect(url)
        locker.execute("SELECT 1 FROM calls FOR UPDATE")
        held.append(locker)
        return "locked"

    @tool
    def late(text: str) -> str:
        """Returns only after the turn has failed."""
        assert go.wait(20)
        return "late result"

    def watch(message: object) -> None:
        if "stray or duplicate result" in str(message):
            stray_handled.set()

    sink = logger.add(watch, level="WARNING", format="{message}")
    logger.enable("autobyteus_like")
    reply = json.dumps({"tool_calls": [{"name": "lock", "arguments": {"text": "a"}},
                                       {"name": "late", "arguments": {"text": "b"}}]})
    config = AgentConfig(name="solo", llm=ScriptedLLM([reply, "done"]), tools=[lock, late],
                         tool_format="json")
    try:
        with Session("s", url + "?options=-c%20statement_timeout%3D300") as session, \
                Agent(config, session=session) as agent:
            events = agent.events()
            with pytest.raises(AgentTurnError, match=r"statement timeout|canceling statement"):
                agent.run("go", timeout=20)
            go.set()  # the late call returns now: its result reaches an agent with no turn
            assert stray_handled.wait(20)
        shown = list(iter(lambda: events.get(timeout=5), None))
    finally:
        logger.disable("autobyteus_like")
        logger.remove(sink)
        go.set()
        for locker in held:
            locker.close()
    assert [e.result.invocation_id for e in shown if isinstance(e, ToolResultReceived)] == []
    store = open_store(url)
    try:
        states = {c.name: c.state for c in store.calls("s", "solo")}
        assert states == {"lock": CallState.RUNNING, "late": CallState.RUNNING}
    finally:
        store.close()
