"""Faults on a real Ray cluster: a member's worker process killed mid-turn (found by its pid
through Ray's state API) is restarted by Ray; the sender of the message it was handling gets
an error; the team finishes; no actor is left after stop."""

from __future__ import annotations

import os
import signal
import time

from autobyteus_like import AgentTeam, ToolContext, tool
from autobyteus_like.events import ToolResultReceived, ToolStarted, TurnCompleted
from autobyteus_like.runtime import RayRuntime
from tests.runtime.scripted_teams import call, member, team_config, until_quiet
from tests.stress_rounds import in_the_deep_run


@tool
def block(context: ToolContext) -> str:
    """Work for a long time."""
    deadline = time.monotonic() + 60
    while not context.cancelled.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)  # a long job that checks now and then whether to give up
    return "finished"


def worker_reply(request) -> str:
    """Block on a first message; answer at once once asked 'again' (a fresh process)."""
    return "back" if "again" in request.messages[-1].content else call("block")


def actor_states(name: str) -> list[str]:
    from ray.util.state import list_actors

    return [actor.state for actor in list_actors(filters=[("name", "=", name)])]


def kill_when_blocked(events, team, seen):
    """Wait until the worker runs ``block``; kill its process (pid from the state API)."""
    from ray.util.state import list_actors

    while True:
        event = events.get(timeout=60)
        seen.append(event)
        if isinstance(event, ToolStarted) and event.agent == "worker":
            break
    name = team.agents["worker"].actor_name
    (actor,) = list_actors(filters=[("name", "=", name)])
    os.kill(actor.pid, signal.SIGKILL)
    return actor.pid


@in_the_deep_run("a killed host's turns failing for their senders: test_ray_host.py's "
                 "test_every_turn_in_a_killed_host_fails_for_its_sender_and_other_hosts_go_on; "
                 "its restart: test_a_killed_host_comes_back_with_all_its_members_each_from_"
                 "its_session")
def test_a_member_killed_mid_turn_is_restarted_and_its_sender_sees_the_error(ray_cluster):
    lead = member("lead", [call("send_message_to", recipient_name="worker", content="work"),
                           "asked the worker", "the worker failed; noted"])
    worker = member("worker", [worker_reply, worker_reply], tools=["block"])
    runtime = RayRuntime(backend="ray", max_restarts=1)
    with AgentTeam(team_config(lead, worker), tools=[block], runtime=runtime) as team:
        events = team.events()
        team.send("go")
        seen: list = []
        killed = kill_when_blocked(events, team, seen)
        seen += until_quiet(events)
        assert seen[-1].answer == "the worker failed; noted"  # the team finished
        shown = team.agents["lead"].fetch_llm().requests[-1].messages[-1].content
        assert shown == ("Message from worker:\nYour message could not be handled by worker: "
                         "agent 'worker': its worker process died mid-turn; Ray restarts it "
                         "(max_restarts) with a fresh conversation")
        # Ray restarted it: a new process answers, with a fresh conversation
        wait_restarted(team.agents["worker"].actor_name)
        assert team.agents["worker"].send("again").result(timeout=60) == "back"
        while not (isinstance(event := events.get(timeout=60), TurnCompleted)
                   and event.agent == "worker"):
            pass  # the new process streams its events to the driver too
        assert event.answer == "back"
        (actor,) = _alive(team.agents["worker"].actor_name)
        assert actor.pid != killed and actor.num_restarts == 1
        names = [m.actor_name for m in team.agents.values()]
    assert not [r for r in seen if isinstance(r, ToolResultReceived) and r.agent == "worker"]
    for name in names:
        assert set(actor_states(name)) == {"DEAD"}  # nothing left behind


def test_a_member_past_its_restarts_is_an_error_for_those_who_write_to_it(ray_cluster):
    lead = member("lead", [
        call("send_message_to", recipient_name="worker", content="work"), "asked",
        call("send_message_to", recipient_name="worker", content="are you there?"),
        "it is gone"])
    worker = member("worker", [worker_reply], tools=["block"])
    runtime = RayRuntime(backend="ray", max_restarts=0)
    with AgentTeam(team_config(lead, worker), tools=[block], runtime=runtime) as team:
        events = team.events()
        team.send("go")
        seen: list = []
        kill_when_blocked(events, team, seen)
        seen += until_quiet(events)
        assert seen[-1].answer == "it is gone"
        results = [e.result for e in seen
                   if isinstance(e, ToolResultReceived) and e.agent == "lead"]
        assert [r.status for r in results] == ["success", "failure"]
        assert results[1].error.code == "NOT_AVAILABLE"
        assert results[1].error.message.startswith("worker is not reachable: its process died")
        names = [m.actor_name for m in team.agents.values()]
    for name in names:
        assert set(actor_states(name)) == {"DEAD"}


def wait_restarted(name: str) -> None:
    """Wait (60 s at most) until Ray has the restarted actor up again. The sender hears of the
    death as soon as the process is gone; a message sent while Ray is still starting the new
    process gets ActorUnavailableError (seen under CPU load: this test's race)."""
    deadline = time.monotonic() + 60
    while not [a for a in _alive(name) if a.num_restarts >= 1]:
        assert time.monotonic() < deadline, f"{name} was not restarted within 60 s"
        time.sleep(0.1)


def _alive(name: str) -> list:
    from ray.util.state import list_actors

    return list_actors(filters=[("name", "=", name), ("state", "=", "ALIVE")], detail=True)


@in_the_deep_run("a killed member resuming its turn from the session: test_ray_sessions.py; "
                 "a killed host's members each from its session: test_ray_host.py")
def test_with_a_session_a_restarted_member_resumes_the_killed_turn(ray_cluster, tmp_path):
    """The worker's actor writes its turns to the session the driver holds; killed mid-turn,
    it is restarted and resumes the turn from the session, as a local agent does: the
    interrupted call gets its INTERRUPTED result, the turn goes on and answers its sender,
    and the next message finds everything before."""
    from autobyteus_like.store import Session, open_store

    replies = [call("block"), "noted: the first task was interrupted",
               "you asked me to work, twice"]
    worker = member("worker", list(replies), tools=["block"])
    runtime = RayRuntime(backend="ray", max_restarts=1)
    store = tmp_path / "team.sessions.db"
    with Session("ray-run", store) as session, AgentTeam(
            team_config(worker), tools=[block], runtime=runtime, session=session) as team:
        events = team.events()
        first = team.send("work")
        kill_when_blocked(events, team, [])
        assert first.result(timeout=60) == "noted: the first task was interrupted"
        wait_restarted(team.agents["worker"].actor_name)
        assert team.agents["worker"].send("work again").result(timeout=60) == (
            "you asked me to work, twice")
        request = team.agents["worker"].fetch_llm().requests[-1]
        events.close()
    shown = [(m.role, m.content[:40]) for m in request.messages]
    assert shown[0] == ("user", "work") and shown[-1] == ("user", "work again")
    assert "INTERRUPTED" in request.messages[2].content  # the killed call's result
    stored = open_store(store)
    try:
        assert [t.state for t in stored.turns("ray-run", "worker")] == ["done", "done"]
        [killed] = stored.calls("ray-run", "worker")
        assert killed.state.value == "interrupted"
        assert stored.standing("ray-run") == "done"
    finally:
        stored.close()
