"""The reference servers nobody here wrote (``@modelcontextprotocol/server-everything`` and
``server-filesystem``, from npm) through MCPToolset, over stdio and streamable HTTP."""

from __future__ import annotations

import json
import socket
import subprocess

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, ToolArgumentError, ToolFailure
from autobyteus_like.mcp import MCPToolset
from autobyteus_like.tools._image_content import ImageContent as Image
from tests.mcp.server_processes import wait_until


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


@pytest.fixture(scope="module")
def everything(npm_servers):
    toolset = MCPToolset.stdio("node", [npm_servers.everything, "stdio"], name="ev")
    with toolset:
        yield toolset


def test_everything_server_results_of_every_kind(everything):
    tools = {tool.name: tool for tool in everything.tools()}
    assert tools["ev.echo"].run({"message": "hi"}) == "Echo: hi"
    assert tools["ev.get-sum"].run({"a": "2", "b": 40}) == "The sum of 2 and 40 is 42."
    image = tools["ev.get-tiny-image"].run({})
    assert isinstance(image[1], Image) and image[1].media_type == "image/png"
    weather = tools["ev.get-structured-content"].run({"location": "Chicago"})
    assert set(weather) >= {"temperature", "conditions", "humidity"}
    reference = tools["ev.get-resource-reference"].run({"resourceType": "Text", "resourceId": 1})
    [resource] = [block for block in reference if isinstance(block, dict)]
    assert resource["type"] == "resource" and resource["uri"].endswith("/1")
    with pytest.raises(ToolArgumentError, match="'Atlantis' is not one of"):  # checked here
        tools["ev.get-structured-content"].run({"location": "Atlantis"})


def test_everything_server_long_operation_is_cancelled_at_the_timeout(everything):
    llm = ScriptedLLM([call("ev.trigger-long-running-operation", duration=30, steps=3),
                       call("ev.echo", message="still there?"), "done"])
    config = AgentConfig(name="a", llm=llm, tools=["ev.*"], tool_format="json",
                         tool_timeout_s=1)
    with Agent(config, tools=[everything]) as agent:
        assert agent.run("go", timeout=30) == "done"
    assert "did not finish within 1 s" in llm.requests[1].messages[-1].content
    assert "Echo: still there?" in llm.requests[2].messages[-1].content


def test_everything_server_over_streamable_http(npm_servers):
    with socket.socket() as probe:  # a free port for the server to take
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(["node", npm_servers.everything, "streamableHttp"],
                              env={"PORT": str(port), "PATH": "/usr/bin:/bin:/usr/local/bin"},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def listening() -> bool:
            with socket.socket() as client:
                return client.connect_ex(("127.0.0.1", port)) == 0

        assert wait_until(listening)  # another process opening a port: nothing to wait on
        with MCPToolset.http(f"http://127.0.0.1:{port}/mcp", name="ev") as toolset:
            echo = {tool.name: tool for tool in toolset.tools()}["ev.echo"]
            assert echo.run({"message": "over http"}) == "Echo: over http"
    finally:
        server.kill()
        server.wait()


def test_filesystem_server_reads_and_writes_only_inside_its_directory(npm_servers, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    toolset = MCPToolset.stdio("node", [npm_servers.filesystem, str(tmp_path)], name="fs")
    with toolset:
        tools = {tool.name: tool for tool in toolset.tools()}
        assert tools["fs.read_text_file"].run({"path": str(tmp_path / "notes.txt")}) == {
            "content": "alpha\nbeta\n"}
        tools["fs.write_file"].run({"path": str(tmp_path / "out.txt"), "content": "written"})
        assert (tmp_path / "out.txt").read_text() == "written"
        with pytest.raises(ToolFailure, match="Access denied"):
            tools["fs.read_text_file"].run({"path": "/etc/passwd"})
