"""Teams on Ray: members placed with their resources, a member Ray cannot place is a clear
error, and send_message_to answers mistakes exactly as on the local backend."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import AgentTeam, ConfigError
from autobyteus_like.runtime import MemberResources, RayRuntime
from tests.runtime.helpers import RAY_KINDS, call, calls, member, ray_runtime, team_config


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


def test_a_member_ray_cannot_place_is_a_config_error_and_nothing_is_left(ray_cluster):
    from ray.util.state import list_actors

    config = team_config(member("a", ["hi"]), member("b", ["hi"]), member_resources={
        "b": MemberResources(custom={"quantum_chip": 1})})
    team = AgentTeam(config, runtime=RayRuntime(backend="ray", start_timeout_s=2))
    with pytest.raises(ConfigError) as caught:
        team.start()
    assert str(caught.value).startswith("member 'b': Ray did not place it within 2 s; it needs "
                                        "{'num_cpus': 0.0, 'num_gpus': 0.0, 'resources': "
                                        "{'quantum_chip': 1.0}}")
    for name in (m.actor_name for m in team.agents.values()):
        assert {a.state for a in list_actors(filters=[("name", "=", name)])} == {"DEAD"}


@pytest.mark.parametrize("runtime", ["local", *RAY_KINDS])
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


def test_tool_sources_are_refused_on_ray_with_a_clear_error(ray_cluster):
    from autobyteus_like.mcp import MCPToolset

    server = MCPToolset.stdio("python", ["-c", "pass"], name="fs")  # never started
    config = team_config(member("a", ["hi"], tools=["send_message_to", "fs.*"]))
    with pytest.raises(ConfigError) as caught:
        AgentTeam(config, tools=[server], runtime=RayRuntime(backend="ray"))
    assert caught.value.problems == [
        "runtime: the ray backend does not run MCP servers or other tool sources yet; use "
        "backend: local for this team"]


def test_stopping_mid_turn_fails_the_turn_and_ends_every_actor(ray_cluster):
    from ray.util.state import list_actors

    from autobyteus_like import AgentStoppedError
    from autobyteus_like.events import ToolStarted
    from tests.runtime.test_faults import block

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
