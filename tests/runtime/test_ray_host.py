"""Members packed into Ray hosts, on a real local cluster: fewer processes than members,
messages within a host that never leave it, a member with resources of its own alone, and a
host killed with kill -9 restarted by Ray with every member it hosts, each going on from its
session."""

from __future__ import annotations

import os
import signal
import time

import pytest
import ray

from autobyteus_like import AgentTeam, TeamConfig
from autobyteus_like.events import ToolStarted
from autobyteus_like.runtime import MemberResources, RayRuntime
from tests.runtime.scripted_teams import call, member, team_config
from tests.runtime.test_ray_faults import block
from tests.stress_rounds import in_the_deep_run


def ring(size: int) -> list:
    """Members m0..m{size-1}: each passes the message on once; the last one answers."""
    members = []
    for index in range(size):
        if index == size - 1:
            script = ["end of the ring"]
        else:
            script = [call("send_message_to", recipient_name=f"m{index + 1}", content="hop"),
                      "passed"]
        members.append(member(f"m{index}", script))
    return members


def hosts_of(team: AgentTeam) -> dict[str, list[str]]:
    """Host actor name -> the members in it, as the driver placed them."""
    placed: dict[str, list[str]] = {}
    for name, agent in team.agents.items():
        placed.setdefault(agent.actor_name, []).append(name)
    return placed


def test_members_share_hosts_and_messages_within_a_host_stay_in_its_process(ray_cluster):
    from ray.util.state import list_actors

    config = TeamConfig(name="t", coordinator="m0",
                        members=[*ring(4), member("solo", [])],
                        member_resources={"solo": MemberResources(num_cpus=1)})
    runtime = RayRuntime(backend="ray", members_per_worker=2)
    with AgentTeam(config, runtime=runtime) as team:
        assert team.run("go", timeout=60) == "passed"
        placed = hosts_of(team)
        assert sorted(placed.values()) == [["m0", "m1"], ["m2", "m3"], ["solo"]]
        pids = {name: ray.get(team.agents[name].handle.pid.remote()) for name in team.agents}
        assert pids["m0"] == pids["m1"] != pids["m2"] == pids["m3"] != pids["solo"]
        counts = {tuple(members): ray.get(team.agents[members[0]].handle.counts.remote())
                  for members in placed.values()}
        # the driver's message to m0 and m1's to m2 crossed processes; m0 -> m1 and m2 -> m3
        # stayed inside their host
        assert counts[("m0", "m1")] == {"members": 2, "across": 1, "within": 1}
        assert counts[("m2", "m3")] == {"members": 2, "across": 1, "within": 1}
        (solo,) = list_actors(filters=[("name", "=", team.agents["solo"].actor_name)],
                              detail=True)
        assert solo.required_resources == {"CPU": 1.0}  # placed by Ray with what it asked
        names = list(placed)
    for name in names:
        assert {a.state for a in list_actors(filters=[("name", "=", name)])} == {"DEAD"}


@pytest.mark.parametrize("store_url", ["postgres"], indirect=True)  # SQLite: test_ray_sessions
def test_a_killed_host_comes_back_with_all_its_members_each_from_its_session(ray_cluster,
                                                                              store_url):
    """Two members in one host; the worker is blocked in a tool, the other has a finished
    turn in the session. kill -9 of the host's process: Ray restarts it with both members,
    the worker's interrupted turn is resumed from the session (its sender gets the answer),
    and each member's next message finds its conversation before the kill."""
    from ray.util.state import list_actors

    from autobyteus_like.store import Session, open_store

    worker = member("worker", [call("block"), "resumed: the first task was interrupted",
                               "noted: again"], tools=["block"])
    keeper = member("keeper", ["noted 42", "you said 42"], tools=[])
    runtime = RayRuntime(backend="ray", members_per_worker=2, max_restarts=1)
    store = store_url
    with Session("packed", store) as session, AgentTeam(
            team_config(worker, keeper), tools=[block], runtime=runtime,
            session=session) as team:
        assert len(hosts_of(team)) == 1
        host = team.agents["worker"].actor_name
        assert team.agents["keeper"].send("remember 42").result(timeout=60) == "noted 42"
        events = team.events()
        first = team.send("work")
        while not (isinstance(event := events.get(timeout=60), ToolStarted)
                   and event.agent == "worker"):
            pass
        (before,) = list_actors(filters=[("name", "=", host)])
        os.kill(before.pid, signal.SIGKILL)
        # the killed turn is resumed from the session and answers its sender
        assert first.result(timeout=60) == "resumed: the first task was interrupted"
        after = wait_restarted(host)
        assert after.pid != before.pid
        assert team.agents["worker"].send("work again").result(timeout=60) == "noted: again"
        assert team.agents["keeper"].send("what did I say?").result(timeout=60) == "you said 42"
        worker_seen = team.agents["worker"].fetch_llm().requests[-1].messages
        keeper_seen = team.agents["keeper"].fetch_llm().requests[0].messages
        events.close()
    assert [(m.role, m.content) for m in keeper_seen] == [
        ("user", "remember 42"), ("assistant", "noted 42"), ("user", "what did I say?")]
    assert worker_seen[0].content == "work" and worker_seen[-1].content == "work again"
    assert "INTERRUPTED" in worker_seen[2].content  # the killed call's result
    stored = open_store(store)
    try:
        assert [t.state for t in stored.turns("packed", "worker")] == ["done", "done"]
        assert [t.state for t in stored.turns("packed", "keeper")] == ["done", "done"]
    finally:
        stored.close()
    assert {a.state for a in list_actors(filters=[("name", "=", host)])} == {"DEAD"}


def wait_restarted(name: str):
    """The host once Ray has it up again (60 s at most)."""
    from ray.util.state import list_actors

    deadline = time.monotonic() + 60
    while True:
        alive = list_actors(filters=[("name", "=", name), ("state", "=", "ALIVE")],
                            detail=True)
        if alive and alive[0].num_restarts >= 1:
            return alive[0]
        assert time.monotonic() < deadline, f"{name} was not restarted within 60 s"
        time.sleep(0.1)


@in_the_deep_run("members packed into hosts and messages within and across them: "
                 "test_members_share_hosts_and_messages_within_a_host_stay_in_its_process")
def test_a_hundred_members_start_in_two_hosts_and_a_message_goes_round_all_of_them(
        ray_cluster):
    """The scale case as a check of behaviour: on this two-CPU cluster ``auto`` packs 100
    members into two hosts, and a message passes through every member, crossing processes
    only where the ring crosses hosts. (A thousand members, with figures:
    ``python benchmarks/ray_scale_benchmark.py --packed 1000``.)"""
    config = TeamConfig(name="t", coordinator="m0", members=ring(100))
    with AgentTeam(config, runtime=RayRuntime(backend="ray")) as team:
        placed = hosts_of(team)
        assert sorted(len(members) for members in placed.values()) == [50, 50]
        assert team.run("go", timeout=300) == "passed"
        counts = [ray.get(team.agents[members[0]].handle.counts.remote())
                  for members in placed.values()]
    assert counts == [{"members": 50, "across": 1, "within": 49}] * 2


@in_the_deep_run("a host that cannot build what it holds, named and nothing left: "
                 "test_ray_tools_mcp.py's server that cannot start in its host")
def test_a_member_that_cannot_start_is_named_and_nothing_is_left(ray_cluster):
    """Packed with a sound member, one whose LLM needs a key nobody set: the host cannot
    start; the error names that member and why, and no actor is left."""
    from ray.util.state import list_actors

    from autobyteus_like import AgentConfig, ConfigError

    broken = AgentConfig(name="b", llm={"provider": "openai", "model": "gpt-4o-mini",
                                        "api_key_env": "AUTOBYTEUS_TEST_NO_SUCH_KEY"})
    team = AgentTeam(team_config(member("a", ["hi"]), broken),
                     runtime=RayRuntime(backend="ray", members_per_worker=2))
    with pytest.raises(ConfigError) as caught:
        team.start()
    assert str(caught.value) == (
        "member 'b': the openai provider needs an API key: set the AUTOBYTEUS_TEST_NO_SUCH_KEY "
        "environment variable (or api_key_env / api_key)")
    name = team.agents["a"].actor_name
    assert name == team.agents["b"].actor_name
    assert {a.state for a in list_actors(filters=[("name", "=", name)])} == {"DEAD"}


def test_every_turn_in_a_killed_host_fails_for_its_sender_and_other_hosts_go_on(ray_cluster):
    """The worker and the keeper share a host, the lead is in another. Both are blocked in a
    tool (the worker on the lead's message, the keeper on the driver's) when their host is
    killed: the lead is told its message could not be handled, the driver's reply fails, and
    the team finishes."""
    from tests.runtime.scripted_teams import until_quiet

    lead = member("lead", [call("send_message_to", recipient_name="worker", content="work"),
                           "asked the worker", "the worker failed; noted"])
    worker = member("worker", [call("block"), "never"], tools=["block"])
    keeper = member("keeper", [call("block"), "never"], tools=["block"])
    config = TeamConfig(name="t", coordinator="lead", members=[worker, keeper, lead])
    runtime = RayRuntime(backend="ray", members_per_worker=2, max_restarts=1)
    with AgentTeam(config, tools=[block], runtime=runtime) as team:
        placed = hosts_of(team)
        assert sorted(placed.values()) == [["lead"], ["worker", "keeper"]]
        events = team.events()
        kept = team.agents["keeper"].send("hold this")
        team.send("go")
        blocked: set[str] = set()
        while not {"worker", "keeper"} <= blocked:
            event = events.get(timeout=60)
            if isinstance(event, ToolStarted):
                blocked.add(event.agent)
        pid = ray.get(team.agents["worker"].handle.pid.remote())
        os.kill(pid, signal.SIGKILL)
        seen = until_quiet(events)
        assert seen[-1].answer == "the worker failed; noted"
        with pytest.raises(Exception, match="its worker process died mid-turn"):
            kept.result(timeout=60)
        shown = team.agents["lead"].fetch_llm().requests[-1].messages[-1].content
        assert shown.startswith("Message from worker:\nYour message could not be handled by "
                                "worker: agent 'worker': its worker process died mid-turn")
        events.close()
