"""A server lives as long as its users: started once, stopped with the last, every process it
started gone; a crash or a timeout costs one clean result, and the next call works again."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from autobyteus_like import Agent, AgentConfig, ConfigError, ScriptedLLM, ToolFailure
from autobyteus_like.mcp import MCPToolset
from autobyteus_like.tools._invocation import ErrorCode
from tests.mcp.server_processes import RAW_SERVER, alive, children_of, sdk_stdio, wait_until


def raw_toolset(tmp_path, **options) -> tuple[MCPToolset, object]:
    log = tmp_path / "raw.log"
    return MCPToolset.stdio(sys.executable, [RAW_SERVER], name="raw",
                            env={"RAW_SERVER_LOG": str(log)}, **options), log


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def test_the_server_and_everything_it_started_are_gone_after_stop(tmp_path):
    command, args = sdk_stdio()
    toolset = MCPToolset.stdio(command, args, name="fx")
    before = set(children_of(os.getpid()))
    with toolset:
        [server] = set(children_of(os.getpid())) - before
        spawn = {tool.name: tool for tool in toolset.tools()}["fx.spawn"]
        child, daemon = spawn.run({})["result"]
        assert alive(server) and alive(child) and alive(daemon)
    # Stopping waits for the kills: nothing to poll for.
    assert not alive(server) and not alive(child) and not alive(daemon)
    assert set(children_of(os.getpid())) == before


# The call's timeout: long enough that the server's handler has begun when it fires, even on a
# loaded machine (a cancellation that arrives before the handler began has no handler to
# reach, so no marker is written); the call itself would sleep a minute.
TIMEOUT_S = 3


def cancelled(marker: Path) -> bool:
    return marker.exists() and marker.read_text() == "cancelled"


def test_a_timeout_sends_the_server_an_mcp_cancellation(tmp_path):
    marker = tmp_path / "marker"
    command, args = sdk_stdio()
    llm = ScriptedLLM([call("fx.slow", seconds=60, marker=str(marker)), "gave up"])
    config = AgentConfig(name="a", llm=llm, tools=["fx.slow"], tool_format="json",
                         tool_timeout_s=TIMEOUT_S)
    toolset = MCPToolset.stdio(command, args, name="fx")
    with Agent(config, tools=[toolset]) as agent:
        assert agent.run("wait", timeout=40) == "gave up"  # well before the minute's sleep
        # The server writes the marker when the cancellation reaches its handler.
        assert wait_until(lambda: cancelled(marker), timeout=30)
    result = llm.requests[1].messages[-1].content
    assert "TIMEOUT" in result and f"fx.slow did not finish within {TIMEOUT_S} s" in result


def test_a_synchronous_run_keeps_the_toolsets_timeout_and_cancels_the_call(tmp_path):
    marker = tmp_path / "marker"
    command, args = sdk_stdio()
    with MCPToolset.stdio(command, args, name="fx", timeout_s=TIMEOUT_S) as toolset:
        slow = {tool.name: tool for tool in toolset.tools()}["fx.slow"]
        started = time.monotonic()
        with pytest.raises(ToolFailure) as caught:
            slow.run({"seconds": 60, "marker": str(marker)})
        assert time.monotonic() - started < 40  # well before the minute's sleep
        assert caught.value.code == ErrorCode.TIMEOUT
        assert caught.value.message == f"fx.slow did not finish within {TIMEOUT_S} s"
        assert wait_until(lambda: cancelled(marker), timeout=30)
        echo = {tool.name: tool for tool in toolset.tools()}["fx.echo"]
        assert echo.run({"text": "hi"}) == {"result": "hi"}  # the toolset works on


def test_a_crash_mid_call_is_one_clean_result_and_the_next_call_restarts_it(tmp_path):
    toolset, log = raw_toolset(tmp_path)
    llm = ScriptedLLM([call("raw.die"), call("raw.ok", n=1), "recovered"])
    config = AgentConfig(name="a", llm=llm, tools=["raw.*"], tool_format="json")
    with Agent(config, tools=[toolset]) as agent:
        assert agent.run("go", timeout=30) == "recovered"
    died, then = (llm.requests[i].messages[-1].content for i in (1, 2))
    assert ErrorCode.NOT_AVAILABLE in died and (
        "MCP server 'raw' is not available: the connection closed (the server exited or hung "
        "up) during the call to raw.die; it will be restarted on the next call") in died
    assert 'ok {\\"n\\": 1}' in then
    assert log.read_text().splitlines().count("initialize ") == 2


def test_a_server_that_died_while_idle_is_restarted_by_the_next_call(tmp_path):
    toolset, log = raw_toolset(tmp_path)
    before = set(children_of(os.getpid()))
    with toolset:
        [server] = set(children_of(os.getpid())) - before
        os.kill(server, signal.SIGKILL)
        # Nothing public signals that the toolset saw the end of its stream; watch for it.
        assert wait_until(lambda: not toolset._session._connection.alive)
        ok = {tool.name: tool for tool in toolset.tools()}["raw.ok"]
        assert ok.run({"n": 2}) == 'ok {"n": 2}'
    assert log.read_text().splitlines().count("initialize ") == 2


def test_a_server_is_started_once_for_all_its_users_and_stopped_with_the_last(tmp_path):
    toolset, log = raw_toolset(tmp_path)
    configs = [AgentConfig(name=name, llm=ScriptedLLM([call("raw.ok", n=i), "done"]),
                           tools=["raw.ok"], tool_format="json") for i, name in enumerate("ab")]
    first, second = (Agent(config, tools=[toolset]) for config in configs)
    with first:
        with second:
            assert first.run("go", timeout=20) == second.run("go", timeout=20) == "done"
        assert toolset.running
    assert not toolset.running
    assert log.read_text().splitlines().count("initialize ") == 1


def test_parallel_calls_share_the_server_and_come_back_in_order(tmp_path):
    toolset, _ = raw_toolset(tmp_path)
    calls = json.dumps([{"name": "raw.ok", "arguments": {"n": i}} for i in range(8)])
    llm = ScriptedLLM([calls, "done"])
    config = AgentConfig(name="a", llm=llm, tools=["raw.ok"], tool_format="json")
    with Agent(config, tools=[toolset]) as agent:
        assert agent.run("go", timeout=20) == "done"
    results = llm.requests[1].messages[-1].content
    positions = [results.index(f'ok {{\\"n\\": {i}}}') for i in range(8)]
    assert positions == sorted(positions)


@pytest.mark.parametrize(("command", "args", "options", "expected"), [
    ("no-such-mcp-server", [], {}, "cannot run 'no-such-mcp-server': no such file or directory"),
    (sys.executable, ["-c", "import sys; print('bad config: missing key', file=sys.stderr); "
                            "sys.exit(1)"], {},
     "the connection closed (the server exited or hung up); its last words on stderr: "
     "bad config: missing key"),
    (sys.executable, ["-c", "import sys; sys.stdin.read()"], {"startup_timeout_s": 0.5},
     "no answer within 0.5 s"),
])
def test_a_server_that_cannot_start_is_one_line_naming_it(command, args, options, expected):
    toolset = MCPToolset.stdio(command, args, name="broken", **options)
    with pytest.raises(ConfigError) as error:
        toolset.start()
    [line] = str(error.value).splitlines()
    assert line.startswith("mcp server 'broken': could not start (command: ")
    assert line.endswith(expected)
    assert not toolset.running


def test_an_unreachable_http_server_is_one_line_too():
    with pytest.raises(ConfigError) as error:
        MCPToolset.http("http://127.0.0.1:1/mcp", name="web").start()
    [line] = str(error.value).splitlines()
    assert line.startswith("mcp server 'web': could not start (url: http://127.0.0.1:1/mcp): "
                           "cannot connect")


def test_an_agent_whose_server_cannot_start_does_not_start_and_says_why():
    toolset = MCPToolset.stdio("no-such-mcp-server", name="gone")
    config = AgentConfig(name="a", llm=ScriptedLLM([]), tools=["gone.*"])
    agent = Agent(config, tools=[toolset])
    with pytest.raises(ConfigError, match="agent 'a': mcp server 'gone': could not start"):
        agent.start()
    assert not agent.running and not toolset.running


def test_a_python_tool_and_a_server_tool_of_the_same_name_is_an_error(tmp_path):
    from autobyteus_like import DuplicateToolError, tool

    @tool(name="raw.ok")
    def shadow(n: int) -> int:
        """Pretends to be the server's tool."""
        return n

    toolset, _ = raw_toolset(tmp_path)
    config = AgentConfig(name="a", llm=ScriptedLLM([]), tools=["raw.ok"])
    agent = Agent(config, tools=[shadow, toolset])
    with pytest.raises(DuplicateToolError, match=r"'raw\.ok' is already registered"):
        agent.start()
    assert not agent.running and not toolset.running


@pytest.mark.parametrize("size, cap", [(3_000_000, 1_000_000), (50_000_000, None)])
def test_a_message_over_the_byte_cap_is_not_read_and_the_call_fails_at_once(size, cap):
    command, args = sdk_stdio()
    policy = {"timeout_s": 60} | ({"max_message_bytes": cap} if cap else {})
    with MCPToolset.stdio(command, args, name="fx", **policy) as toolset:
        tools = {tool.name: tool for tool in toolset.tools()}
        with pytest.raises(ToolFailure) as caught:
            tools["fx.huge"].run({"size": size})
        assert caught.value.code == ErrorCode.TOOL_ERROR
        message = caught.value.message
        assert message.startswith("fx.huge: the server's message was ")
        shown = int(message.split("was ")[1].split(" bytes")[0].replace(",", ""))
        assert size < shown < 2 * size + 1_000  # all of it (text and structured), counted
        assert f"over the cap of {cap or 8_000_000:,} bytes (max_message_bytes)" in message
        assert tools["fx.echo"].run({"text": "still here"}) == {"result": "still here"}
