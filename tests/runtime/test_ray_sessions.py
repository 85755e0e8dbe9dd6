"""Durable sessions on a real Ray cluster: a member's process killed mid-turn (kill -9 of its
worker's pid) is restarted by Ray and resumes its turn from the session, as a local agent
does; no tool call runs twice; the messages between members are stored before delivery and
delivered exactly once; a host's writes are fenced by the driver's lease."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from autobyteus_like import AgentTeam, ToolContext, tool
from autobyteus_like.events import ToolStarted, TurnCompleted
from autobyteus_like.runtime import RayRuntime
from tests.runtime.helpers import call, member, team_config, until_quiet

RUNS = Path("/nonexistent")
"""Where the tools below note each run (set per test; travels with the tools by value)."""


@tool
def step(n: int) -> str:
    """Do one step of the work."""
    with open(RUNS / "step", "a") as runs:
        runs.write(f"{n}\n")
    return f"step {n} done"


@tool
def block(context: ToolContext) -> str:
    """Work for a long time."""
    with open(RUNS / "block", "a") as runs:
        runs.write(f"{os.getpid()}\n")
    deadline = time.monotonic() + 60
    while not context.cancelled.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)  # a long job that checks now and then whether to give up
    return "finished"


@pytest.fixture
def runs(tmp_path):
    global RUNS
    RUNS = tmp_path
    return tmp_path


def _kill_when_blocked(events, team) -> int:
    from ray.util.state import list_actors

    while not (isinstance(event := events.get(timeout=60), ToolStarted)
               and event.agent == "worker" and event.invocation.name == "block"):
        pass
    (actor,) = list_actors(filters=[("name", "=", team.agents["worker"].actor_name)])
    os.kill(actor.pid, signal.SIGKILL)
    return actor.pid


def test_a_killed_member_resumes_its_turn_and_every_message_arrives_once(ray_cluster, runs):
    lead = member("lead", [call("send_message_to", recipient_name="worker", content="work"),
                           "asked the worker", "thanks"])
    worker = member("worker", [
        call("step", n=1), call("block"),
        call("send_message_to", recipient_name="lead", content="result"), "done"],
        tools=["step", "block", "send_message_to"])
    from autobyteus_like.store import Session, open_store

    store = runs / "team.sessions.db"
    runtime = RayRuntime(backend="ray", max_restarts=1)
    with Session("ray-run", store) as session, AgentTeam(
            team_config(lead, worker), tools=[step, block], runtime=runtime,
            session=session) as team:
        events = team.events()
        team.send("go")
        killed = _kill_when_blocked(events, team)
        seen = until_quiet(events)
        assert seen[-1].answer == "thanks"
        ended = [e for e in seen if isinstance(e, TurnCompleted) and e.agent == "worker"]
        assert [(e.answer, e.error) for e in ended] == [("done", None)]  # resumed, not failed
        lead_seen = [m.content for r in team.agents["lead"].fetch_llm().requests
                     for m in r.messages[-1:]]
        worker_llm = team.agents["worker"].fetch_llm()
        events.close()
    assert lead_seen.count("Message from worker:\nresult") == 1
    assert (runs / "step").read_text() == "1\n"  # done before the kill: not run again
    pids = (runs / "block").read_text().split()
    assert pids == [str(killed)]  # running at the kill: INTERRUPTED, never run twice
    resumed = worker_llm.requests[0].messages  # the restarted process's first request
    assert "INTERRUPTED" in resumed[-1].content
    stored = open_store(store)
    try:
        assert [t.state for t in stored.turns("ray-run", "worker")] == ["done"]
        mail = stored.mail("ray-run")
        assert [(m.sender, m.recipient, m.content, m.state.value) for m in mail] == [
            (None, "lead", "go", "answered"),
            ("lead", "worker", "work", "answered"),
            ("worker", "lead", "result", "answered")]
        assert stored.standing("ray-run") == "done"
    finally:
        stored.close()


def test_a_host_writes_nothing_once_the_session_is_taken_over(ray_cluster, tmp_path):
    """The members' writes carry the driver's lease generation: another process that took
    the session over (its generation raised) refuses them, as it refuses the driver's."""
    from autobyteus_like.store import Session

    store = tmp_path / "team.sessions.db"
    worker = member("worker", ["first", "second"], tools=[])
    runtime = RayRuntime(backend="ray")
    with Session("taken", store) as session, AgentTeam(
            team_config(worker), runtime=runtime, session=session) as team:
        assert team.run("one", timeout=60) == "first"
        with sqlite3.connect(store) as database:  # another process takes the session over
            database.execute("UPDATE sessions SET owner = 'elsewhere:1:x', "
                             "generation = generation + 1 WHERE name = 'taken'")
        with pytest.raises(Exception, match=r"SessionLostError: .*another process took it over"):
            team.agents["worker"].send("two").result(timeout=60)
        assert len(team.agents["worker"].fetch_llm().requests) == 1  # never asked
    with sqlite3.connect(store) as database:
        rows = database.execute("SELECT count(*) FROM turns WHERE session = 'taken'")
        assert rows.fetchone()[0] == 1  # the refused turn left nothing
