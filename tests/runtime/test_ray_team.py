"""Teams on Ray: members placed with their resources, a member Ray cannot place is a clear
error, and send_message_to answers mistakes exactly as on the local backend."""

from __future__ import annotations

import json
import time

import pytest

from autobyteus_like import AgentTeam, ConfigError
from autobyteus_like.runtime import MemberResources, RayRuntime
from tests.runtime.scripted_teams import RAY_KINDS, call, calls, member, ray_runtime, team_config
from tests.stress_rounds import in_the_deep_run


def required(name: str) -> dict:
    from ray.util.state import list_actors

    (actor,) = list_actors(filters=[("name", "=", name)], detail=True)
    return actor.required_resources or {}


def test_each_member_is_placed_with_its_own_resources(ray_cluster):
    config = team_config(member("a", ["hi"]), member("b", ["hi"]),
                         member_resources={"b": MemberResources(num_cpus=1)})
    with AgentTeam(config, runtime=RayRuntime(backend="ray")) as team:
        assert team.run("go", timeout=60) == "hi"
        assert required(team.agents["a"].actor_name).get("CPU", 0) == 0
        assert required(team.agents["b"].actor_name) == {"CPU": 1.0}


def states(name: str) -> set[str]:
    from ray.util.state import list_actors

    return {actor.state for actor in list_actors(filters=[("name", "=", name)])}


def test_a_member_ray_cannot_place_is_a_config_error_and_nothing_is_left(ray_cluster):
    # The member Ray cannot place starts first: the 2 s is spent waiting for it alone. (Second,
    # it raced the placeable member's start, whose worker process took over 2 s to come up on
    # a loaded machine.)
    config = team_config(member("b", ["hi"]), member("a", ["hi"]), member_resources={
        "b": MemberResources(custom={"quantum_chip": 1})})
    team = AgentTeam(config, runtime=RayRuntime(backend="ray", start_timeout_s=2))
    began = time.monotonic()
    with pytest.raises(ConfigError) as caught:
        team.start()
    # the unplaced host is ended at once: no stop waits for a start that never comes (the
    # stop of a member used to wait its 10 s for it)
    assert time.monotonic() - began < 2 + 8
    assert str(caught.value) == (
        "member 'b': Ray could not place it within 2 s: it needs {'num_cpus': 0.0, "
        "'num_gpus': 0.0, 'resources': {'quantum_chip': 1.0}}, and the cluster has no node "
        "with {'quantum_chip': 1.0} (it has "
        + str(dict(sorted(ray_cluster.cluster_resources().items()))) + " in all)")
    # Ray marks a killed actor DEAD when its end reaches the cluster's state, a moment later.
    deadline = time.monotonic() + 60
    names = [m.actor_name for m in team.agents.values()]
    while any(states(name) != {"DEAD"} for name in names) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [states(name) for name in names] == [{"DEAD"}, {"DEAD"}]


@pytest.mark.parametrize("runtime", ["local", *(pytest.param(kind, marks=in_the_deep_run(
    "its local case; messages across hosts: test_ray_host.py")) for kind in RAY_KINDS)])
def test_a_message_to_nobody_or_to_yourself_is_the_same_error_on_each_backend(runtime, request):
    if runtime != "local":
        request.getfixturevalue("ray_cluster")
    lead = member("lead", [calls(call("send_message_to", recipient_name="nobody", content="hi"),
                                 call("send_message_to", recipient_name="lead", content="me")),
                           "could not deliver"])
    other = member("other", [])
    chosen = ray_runtime(runtime) if runtime != "local" else None
    with AgentTeam(team_config(lead, other), runtime=chosen) as team:
        assert team.run("go", timeout=60) == "could not deliver"
        llm = team.agents["lead"].fetch_llm() if runtime != "local" else lead.llm
    shown = llm.requests[1].messages[-1].content.splitlines()[1:]
    first, second = (json.loads(line)["tool_result"]["content"] for line in shown)
    assert first == {"code": "NOT_FOUND", "message": "there is no teammate named 'nobody'",
                     "suggestion": "send to one of: other"}
    assert second == {"code": "INVALID_ARGS", "message": "you cannot send a message to yourself",
                      "suggestion": "send to one of: other"}


def test_a_team_naming_another_cluster_than_the_one_joined_is_an_error(ray_cluster):
    joined = ray_cluster.get_runtime_context().gcs_address
    team = AgentTeam(team_config(member("a", ["hi"])),
                     runtime=RayRuntime(backend="ray", address="127.0.0.1:1"))
    with pytest.raises(ConfigError) as caught:
        team.start()
    assert caught.value.problems == [
        f"runtime.address: this process already joined the Ray cluster at {joined}; it cannot "
        "also join 127.0.0.1:1"]
    assert not team.agents["a"].running


def test_stopping_mid_turn_fails_the_turn_and_ends_every_actor(ray_cluster):
    from ray.util.state import list_actors

    from autobyteus_like import AgentStoppedError
    from autobyteus_like.events import ToolStarted
    from tests.runtime.test_ray_faults import block

    worker = member("worker", [call("block"), "never"], tools=["block"])
    team = AgentTeam(team_config(worker), tools=[block], runtime=RayRuntime(backend="ray"))
    with team:
        events = team.events()
        reply = team.send("go")
        while not isinstance(events.get(timeout=60), ToolStarted):
            pass
    with pytest.raises(AgentStoppedError):
        reply.result(timeout=10)
    (actor,) = list_actors(filters=[("name", "=", team.agents["worker"].actor_name)])
    assert actor.state == "DEAD"
