"""An SDK-written MCP server's tools, through MCPToolset: names, schemas in every format,
validation before the call, every kind of result, errors, environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, ToolArgumentError, ToolFailure
from autobyteus_like.formats import formatter_for, parse_tool_calls
from autobyteus_like.formatters import build_manifest
from autobyteus_like.formatters._example_values import example_arguments
from autobyteus_like.mcp import MCPToolset
from autobyteus_like.tools import ToolRegistry
from autobyteus_like.tools._image_content import ImageContent as Image
from autobyteus_like.tools._invocation import ErrorCode
from tests.mcp.server_processes import RAW_SERVER, sdk_stdio

TEXT_FORMATS = ("openai", "gemini", "json", "xml", "execute", "tool_call")


@pytest.fixture(scope="module")
def fixture_tools(tmp_path_factory):
    """The SDK fixture server, started once for this module (it takes a second to start)."""
    command, args = sdk_stdio()
    workdir = tmp_path_factory.mktemp("mcp-cwd")
    toolset = MCPToolset.stdio(command, args, name="fx", env={"GREETING": "hello"},
                               cwd=str(workdir))
    os.environ["MCP_TEST_SECRET"] = "ours"  # the server must not see it
    try:
        with toolset:
            yield {tool.name: tool for tool in toolset.tools()}, workdir
    finally:
        del os.environ["MCP_TEST_SECRET"]


def test_tools_are_namespaced_and_described_by_the_server_schema(fixture_tools):
    tools, _ = fixture_tools
    assert {"fx.echo", "fx.add", "fx.tally", "fx.weather", "fx.picture"} <= set(tools)
    add = tools["fx.add"]
    assert add.input_schema is not None and add.category == "mcp"
    assert add.inline_schema()["properties"]["a"]["type"] == "integer"
    assert add.inline_schema()["required"] == ["a", "b"]


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_every_text_format_teaches_the_tools_and_reads_its_examples_back(fixture_tools, fmt):
    tools, _ = fixture_tools
    registry = ToolRegistry([tools["fx.add"], tools["fx.tally"], tools["fx.echo"]])
    manifest = build_manifest(registry, formatter_for(fmt))
    formatter = formatter_for(fmt)
    for tool in registry:
        assert f"### {tool.name}" in manifest
        example = formatter.format_call(tool.name, example_arguments(tool))
        [call] = parse_tool_calls(example, fmt, registry).invocations
        assert call.name == tool.name
        tool.validate_arguments(call.arguments)  # fits the server's schema
    if fmt == "xml":  # arrays are taught as items
        assert '<arg name="numbers" type="array"' in manifest and "<item>" in manifest


def test_values_written_as_text_are_made_to_fit_and_the_server_answers(fixture_tools):
    tools, _ = fixture_tools
    assert tools["fx.add"].run({"a": " 2 ", "b": "40"}) == {"result": 42}
    assert tools["fx.tally"].run({"numbers": ["1", "2", "3"]}) == {"result": 6}


def test_wrong_arguments_are_refused_before_the_call(tmp_path):
    log = tmp_path / "calls.log"
    import sys

    toolset = MCPToolset.stdio(sys.executable, [RAW_SERVER], name="raw",
                               env={"RAW_SERVER_LOG": str(log)})
    with toolset:
        ok = {tool.name: tool for tool in toolset.tools()}["raw.ok"]
        with pytest.raises(ToolArgumentError) as error:
            ok.run({"n": "five", "colour": "red"})
        assert ok.run({"n": "5"}) == 'ok {"n": 5}'
    assert error.value.problems == [
        "unknown argument 'colour' (this tool takes: n, items)",
        "argument 'n': 'five' is not of type 'integer' (got 'five')",
    ]
    assert log.read_text().count("tools/call") == 1  # only the valid call reached the server


def test_each_kind_of_result_is_shown_to_the_llm(fixture_tools):
    tools, _ = fixture_tools
    assert tools["fx.echo"].run({"text": "hi"}) == {"result": "hi"}
    assert tools["fx.weather"].run({"city": "Oslo"}) == {"city": "Oslo", "celsius": 21.5}
    picture = tools["fx.picture"].run({})
    assert isinstance(picture, Image) and len(picture.data) == 70
    document = tools["fx.document"].run({})
    assert document["content"] == [{"type": "resource", "uri": "file:///notes.txt",
                                    "mime_type": "text/plain", "text": "the notes"}]
    cut = tools["fx.huge"].run({"size": 300_000})
    assert len(cut) < 100_200 and "the result is" in cut


def test_an_error_result_is_a_failure_the_llm_reads(fixture_tools):
    tools, _ = fixture_tools
    with pytest.raises(ToolFailure) as failure:
        tools["fx.fail"].run({"message": "disk full"})
    assert failure.value.code is ErrorCode.TOOL_ERROR
    assert failure.value.message == "fx.fail failed: Error executing tool fail: disk full"


def test_env_and_cwd_reach_the_server_and_nothing_else_of_ours(fixture_tools):
    tools, workdir = fixture_tools
    assert tools["fx.environment"].run({"name": "GREETING"}) == {
        "result": f"'hello' in {workdir}"}
    assert tools["fx.environment"].run({"name": "MCP_TEST_SECRET"}) == {
        "result": f"None in {workdir}"}


def test_an_agent_runs_mcp_tools_like_any_other(fixture_tools):
    tools, _ = fixture_tools
    llm = ScriptedLLM(['{"name": "fx.add", "arguments": {"a": 1, "b": "x"}}',
                       '{"name": "fx.add", "arguments": {"a": 1, "b": 2}}', "3"])
    config = AgentConfig(name="a", llm=llm, tools=["fx.add"], tool_format="json")
    with Agent(config, tools=list(tools.values())) as agent:
        assert agent.run("1+2?", timeout=20) == "3"
    first, second = (llm.requests[i].messages[-1].content for i in (1, 2))
    assert "INVALID_ARGS" in first and "argument 'b': 'x' is not of type 'integer'" in first
    assert '"status": "success", "content": {"result": 3}' in second
    assert "### fx.add" in llm.requests[0].system_prompt


def test_a_toolset_not_started_says_so():
    command, args = sdk_stdio()
    toolset = MCPToolset.stdio(command, args, name="idle")
    assert toolset.tools() == [] and not toolset.running
    toolset.release()  # releasing what was never taken is harmless
    assert "idle" in repr(toolset) and Path(args[0]).name in repr(toolset)
