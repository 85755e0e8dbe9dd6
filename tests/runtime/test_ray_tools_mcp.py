"""MCP tool sources on a real Ray cluster, with a real MCP server (the SDK fixture server over
stdio): each host starts the servers its members use, a member calls them as locally, and the
servers end with the team, or with the host when its process is killed (no orphan)."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from autobyteus_like import AgentTeam, ConfigError
from autobyteus_like.events import ToolResultReceived
from autobyteus_like.runtime import RayRuntime
from tests.leftover_processes import started_by_this_run
from tests.mcp.server_processes import SDK_SERVER, alive, sdk_stdio, wait_until
from tests.runtime.scripted_teams import call, member, team_config, until_quiet
from tests.runtime.test_ray_faults import wait_restarted
from tests.stress_rounds import in_the_deep_run

pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install "
                                  "'autobyteus-like[mcp]'")


def servers() -> list[int]:
    """The pids of the fixture servers this test run started that run now, guards excluded
    (another run's servers, or those an interrupted run left, are not this run's)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                argv = cmdline.read().split(b"\0")
        except OSError:
            continue
        if (len(argv) > 1 and argv[1] == SDK_SERVER.encode() and alive(int(name))
                and started_by_this_run(int(name))):
            found.append(int(name))
    return found


def _toolset():
    from autobyteus_like.mcp import MCPToolset

    command, args = sdk_stdio()
    return MCPToolset.stdio(command, args, name="sdk", timeout_s=20)


@in_the_deep_run("a member calling its host's server, before and after a kill -9 of the "
                 "host: the killed host's case below")
def test_a_member_on_ray_calls_its_hosts_mcp_server_which_ends_with_the_team(ray_cluster):
    assert servers() == []
    adder = member("adder", [call("sdk.add", a=2, b=3), "the sum is 5"], tools=["sdk.add"])
    other = member("other", ["nothing to add"], tools=[])
    runtime = RayRuntime(backend="ray", members_per_worker=1)
    with AgentTeam(team_config(adder, other), tools=[_toolset()], runtime=runtime) as team:
        running = servers()
        assert len(running) == 1  # only the host whose member uses it started one
        events = team.events()
        team.send("add 2 and 3")
        seen = until_quiet(events)
        assert seen[-1].answer == "the sum is 5"
        [result] = [e.result for e in seen if isinstance(e, ToolResultReceived)]
        assert (result.status, result.content) == ("success", {"result": 5})
        assert "5" in team.agents["adder"].fetch_llm().requests[-1].messages[-1].content
    assert wait_until(lambda: not any(alive(pid) for pid in running))


def test_a_killed_host_takes_its_mcp_server_with_it_and_the_restart_starts_one(ray_cluster):
    """kill -9 of a host runs none of its clean-up: the server, its child and a detached
    (setsid) grandchild it started would live on; the guard the host starts servers through
    ends them all."""
    from ray.util.state import list_actors

    spawner = member("spawner", [call("sdk.spawn"), "spawned"], tools=["sdk.spawn"])
    runtime = RayRuntime(backend="ray", max_restarts=1)
    with AgentTeam(team_config(spawner), tools=[_toolset()], runtime=runtime) as team:
        events = team.events()
        team.send("spawn")
        seen = until_quiet(events)
        [result] = [e.result for e in seen if isinstance(e, ToolResultReceived)]
        started = [*servers(), *result.content["result"]]  # the server, child, grandchild
        assert len(started) == 3 and all(alive(pid) for pid in started)
        (host,) = list_actors(filters=[("name", "=", team.agents["spawner"].actor_name)])
        os.kill(host.pid, signal.SIGKILL)
        assert wait_until(lambda: not any(alive(pid) for pid in started))  # no orphan
        wait_restarted(team.agents["spawner"].actor_name)  # with a server of its own
        # a fresh conversation (no session) whose call goes to the new host's server
        assert team.agents["spawner"].send("spawn").result(timeout=60) == "spawned"
        events.close()
        [after] = servers()
        assert after not in started
    assert wait_until(lambda: not alive(after))


def test_a_server_that_cannot_start_in_its_host_is_a_config_error_naming_it(ray_cluster):
    from autobyteus_like.mcp import MCPToolset

    server = MCPToolset.stdio(sys.executable, ["-c", "pass"], name="fs",
                              startup_timeout_s=20)  # exits at once
    config = team_config(member("a", ["hi"], tools=["send_message_to", "fs.*"]))
    team = AgentTeam(config, tools=[server], runtime=RayRuntime(backend="ray"))
    with pytest.raises(ConfigError) as caught:
        team.start()
    [problem] = caught.value.problems
    assert problem.startswith("agent 'a': mcp server 'fs': could not start")
    assert servers() == []


def test_a_tool_source_a_host_cannot_rebuild_is_refused_by_name(ray_cluster):
    class Elsewhere:  # a ToolSource that is no MCP server
        namespace = "far"

        def acquire(self):
            raise AssertionError("never started")

        def release(self): ...

        def tools(self):
            return []

        def watch(self, callback):
            return lambda: None

    config = team_config(member("a", ["hi"], tools=["send_message_to", "far.*"]))
    with pytest.raises(ConfigError) as caught:
        AgentTeam(config, tools=[Elsewhere()], runtime=RayRuntime(backend="ray"))
    assert caught.value.problems == [
        "runtime: members on Ray run MCP servers in their hosts; a tool source of type "
        "Elsewhere cannot be moved there (use backend: local)"]
