"""Durable sessions on a real Ray cluster: a member's process killed mid-turn (kill -9 of its
worker's pid) is restarted by Ray and resumes its turn from the session, as a local agent
does; no tool call runs twice; the messages between members are stored before delivery and
delivered exactly once; a host's writes are fenced by the driver's lease; what a session's last
driver left unfinished is resumed or abandoned as its new driver asks, as locally. Each on
SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from autobyteus_like import AgentTeam, ToolContext, UnfinishedSessionError, tool
from autobyteus_like.events import ToolStarted, TurnCompleted
from autobyteus_like.runtime import LocalRuntime, RayRuntime
from tests.runtime.conftest import run_sql
from tests.runtime.scripted_teams import (
    call,
    member,
    ray_runtime,
    team_config,
    until_quiet,
)
from tests.stress_rounds import in_the_deep_run

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
    # ToolStarted means the call was started, not that its body has run its first line: kill
    # only once the body has said it runs, or the kill may land before it ever did
    deadline = time.monotonic() + 60
    while not (RUNS / "block").exists() or not (RUNS / "block").read_text().strip():
        assert time.monotonic() < deadline, "the block tool's body never started"
        time.sleep(0.01)
    (actor,) = list_actors(filters=[("name", "=", team.agents["worker"].actor_name)])
    os.kill(actor.pid, signal.SIGKILL)
    return actor.pid


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)  # PostgreSQL: test_ray_host.py
@in_the_deep_run("a killed host's members resuming from the session: test_ray_host.py's "
                 "test_a_killed_host_comes_back_with_all_its_members_each_from_its_session; "
                 "the hosts' writes to a SQLite store: the taken-over [sqlite] case")
def test_a_killed_member_resumes_its_turn_and_every_message_arrives_once(ray_cluster, runs,
                                                                        store_url):
    lead = member("lead", [call("send_message_to", recipient_name="worker", content="work"),
                           "asked the worker", "thanks"])
    worker = member("worker", [
        call("step", n=1), call("block"),
        call("send_message_to", recipient_name="lead", content="result"), "done"],
        tools=["step", "block", "send_message_to"])
    from autobyteus_like.store import Session, open_store

    store = store_url
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


@pytest.mark.parametrize("store_url", ["sqlite", pytest.param("postgres", marks=in_the_deep_run(
    "the [sqlite] case; a PostgreSQL store's fencing: tests/store/test_fencing.py"))],
    indirect=True)
def test_a_host_writes_nothing_once_the_session_is_taken_over(ray_cluster, store_url):
    """The members' writes carry the driver's lease generation: another process that took
    the session over (its generation raised) refuses them, as it refuses the driver's."""
    from autobyteus_like.store import Session

    store = store_url
    worker = member("worker", ["first", "second"], tools=[])
    runtime = RayRuntime(backend="ray")
    with Session("taken", store) as session, AgentTeam(
            team_config(worker), runtime=runtime, session=session) as team:
        assert team.run("one", timeout=60) == "first"
        run_sql(store, "UPDATE sessions SET owner = 'elsewhere:1:x', "  # another process
                "generation = generation + 1 WHERE name = 'taken'")  # takes the session over
        with pytest.raises(Exception, match=r"SessionLostError: .*another process took it over"):
            team.agents["worker"].send("two").result(timeout=60)
        assert len(team.agents["worker"].fetch_llm().requests) == 1  # never asked
    rows = run_sql(store, "SELECT count(*) FROM turns WHERE session = 'taken'")
    assert rows[0][0] == 1  # the refused turn left nothing


def _left_unfinished(store: str) -> None:
    """A session a Ray team's driver left unfinished: the worker is killed (kill -9 of its
    host's process, no restart) inside a tool, after a first tool call ran."""
    from autobyteus_like.store import Session

    worker = member("worker", [call("step", n=1), call("block"), "never"],
                    tools=["step", "block"])
    with Session("left", store) as session, AgentTeam(
            team_config(worker), tools=[step, block],
            runtime=RayRuntime(backend="ray", max_restarts=0), session=session) as team:
        events = team.events()
        reply = team.send("go")
        _kill_when_blocked(events, team)
        with pytest.raises(Exception, match="worker process died"):
            reply.result(timeout=60)
        events.close()


@pytest.mark.parametrize(("store_url", "kind"), [  # each Ray kind on one store, in turn
    ("sqlite", "local"), ("postgres", "ray"),
    pytest.param("sqlite", "ray-packed", marks=in_the_deep_run("the [postgres-ray] case"))],
    indirect=["store_url"])
def test_what_a_driver_left_is_abandoned_as_locally(ray_cluster, runs, store_url, kind):
    """A new driver on a session a Ray team left unfinished: a message first is refused
    (settle it first); ``abandon_unfinished`` ends the stored turn without going on with it
    (the tool it was in is not run again), and the member goes on with its conversation:
    the same on either backend (one member surface)."""
    from autobyteus_like.store import Session, open_store

    _left_unfinished(store_url)
    worker = member("worker", [call("step", n=1), call("block"), "fresh start"],
                    tools=["step", "block"])
    config = team_config(worker)
    if kind != "local":  # packed: with a bystander in the worker's host
        config = team_config(worker, member("bystander", []))
    runtime = LocalRuntime() if kind == "local" else ray_runtime(kind)
    with Session("left", store_url) as session, AgentTeam(
            config, tools=[step, block], runtime=runtime, session=session) as team:
        with pytest.raises(UnfinishedSessionError, match="abandon_unfinished"):
            team.run("again", timeout=60)
        team.abandon_unfinished("the user gave up on it")
        assert team.run("again", timeout=60) == "fresh start"
        agent = team.agents["worker"]
        request = (agent.fetch_llm() if kind != "local" else agent.config.llm).requests[-1]
    assert (runs / "step").read_text() == "1\n"  # nothing of the first turn ran again
    assert len((runs / "block").read_text().split()) == 1
    shown = [(m.role, m.content) for m in request.messages]
    assert [role for role, _ in shown] == ["user", "assistant", "user", "assistant", "user",
                                           "user"]  # the conversation is kept
    assert shown[0] == ("user", "go") and shown[-1] == ("user", "again")
    assert '"name": "block", "status": "failure", "content": {"code": "INTERRUPTED"' in shown[4][1]
    stored = open_store(store_url)
    try:
        turns = [(t.text, t.state) for t in stored.turns("left", "worker")]
        assert turns == [("go", "failed"), ("again", "done")]
        assert stored.standing("left") == "done"
    finally:
        stored.close()


@pytest.mark.parametrize(("store_url", "kind"), [
    ("sqlite", "local"), pytest.param("postgres", "ray-packed", marks=in_the_deep_run(
        "its local case; a driver's leftovers on Ray: the abandoned case above; a resumed "
        "turn on Ray: test_a_killed_member_resumes_its_turn_and_every_message_arrives_once"))],
    indirect=["store_url"])
def test_what_a_driver_left_is_resumed_when_asked_as_locally(ray_cluster, runs, store_url,
                                                              kind):
    """The other way to settle it: ``resume`` goes on with the stored turn (the call that was
    running INTERRUPTED, never run again) and returns its answer; nothing went on before."""
    from autobyteus_like.store import Session, open_store

    _left_unfinished(store_url)
    worker = member("worker", [call("step", n=1), call("block"), "went on"],
                    tools=["step", "block"])
    runtime = LocalRuntime() if kind == "local" else ray_runtime(kind)
    with Session("left", store_url) as session, AgentTeam(
            team_config(worker, member("bystander", [])), tools=[step, block],
            runtime=runtime, session=session) as team:
        agent = team.agents["worker"]
        llm = agent.fetch_llm() if kind != "local" else agent.config.llm
        assert llm.requests == []  # the host waits to be asked, as a local agent does
        assert team.resume(timeout=60) == "went on"
    assert (runs / "step").read_text() == "1\n"
    assert len((runs / "block").read_text().split()) == 1
    stored = open_store(store_url)
    try:
        assert [(t.text, t.state) for t in stored.turns("left", "worker")] == [("go", "done")]
    finally:
        stored.close()
