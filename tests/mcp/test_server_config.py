"""MCP servers described as data: clear, located problems; no server needed to check."""

from __future__ import annotations

import sys

import pytest

from autobyteus_like import AgentConfig, ConfigError, ScriptedLLM, TeamConfig
from autobyteus_like.mcp import MCPServerConfig, MCPToolset


def test_a_server_is_reached_one_way_only():
    assert MCPServerConfig(command="node").kind == "stdio"
    assert MCPServerConfig(url="http://127.0.0.1:1/mcp").kind == "http"
    with pytest.raises(ValueError, match="give either a command"):
        MCPServerConfig()
    with pytest.raises(ValueError, match="give either a command"):
        MCPServerConfig(command="node", url="http://x")
    with pytest.raises(ValueError, match="headers cannot be given for a stdio server"):
        MCPServerConfig(command="node", headers={"a": "b"})
    with pytest.raises(ValueError, match="env cannot be given for an HTTP server"):
        MCPServerConfig(url="http://x", env={"A": "1"})
    with pytest.raises(ValueError, match="url must start with http:// or https://"):
        MCPServerConfig(url="file:///etc/passwd")


def test_a_server_name_is_a_namespace_without_dots():
    with pytest.raises(ConfigError, match=r"mcp server 'f\.s'.*no dots"):
        MCPToolset.stdio("node", name="f.s")


def _team(tmp_path, servers: str, tools: str = "[fs.read_file]"):
    path = tmp_path / "team.yaml"
    path.write_text(f"""
name: t
coordinator: lead
mcp_servers:
{servers}
members:
  - name: lead
    llm: {{provider: scripted, responses: [done]}}
    tools: {tools}
""")
    return path


def test_yaml_problems_name_the_server_and_the_field(tmp_path):
    path = _team(tmp_path, "  fs: {url: 'ftp://x'}\n  web: {command: node, headers: {a: b}}\n"
                           "  bad.name: {command: node}")
    with pytest.raises(ConfigError) as error:
        TeamConfig.from_yaml(path)
    message = str(error.value)
    assert "mcp_servers.bad.name.[key]: a server's name is the namespace" in message
    assert "mcp_servers.fs: url: url must start with http:// or https://" in message
    assert "mcp_servers.web: headers cannot be given for a stdio server (command)" in message


def test_names_under_a_server_wait_for_it_but_others_are_checked_now(tmp_path):
    ok = _team(tmp_path, f"  fs: {{command: {sys.executable}, args: [-c, pass]}}",
               "[fs.read_file, 'fs.*', send_message_to]")
    assert TeamConfig.from_yaml(ok).mcp_servers["fs"].command == sys.executable
    wrong = _team(tmp_path, "  fs: {command: node}", "[web.search, 'nothing*']")
    with pytest.raises(ConfigError) as error:
        TeamConfig.from_yaml(wrong)
    assert error.value.problems == [
        "members[0].tools[0]: unknown tool 'web.search'; available tools: send_message_to",
        "members[0].tools[1]: the pattern 'nothing*' matches no tool; available tools: "
        "send_message_to",
    ]


def test_an_agent_config_takes_patterns():
    from autobyteus_like import ToolRegistry, tool

    @tool(name="fs.read")
    def read(path: str) -> str:
        """Read."""
        return path

    @tool(name="fs.write")
    def write(path: str) -> str:
        """Write."""
        return path

    config = AgentConfig(name="a", llm=ScriptedLLM([]), tools=["fs.*", "fs.read"])
    assert config.tool_registry(ToolRegistry([read, write])).names() == ["fs.read", "fs.write"]
    with pytest.raises(ValueError, match=r"the pattern 'web\.\*' matches no tool"):
        AgentConfig(name="a", llm=ScriptedLLM([]), tools=["web.*"]).tool_registry(
            ToolRegistry([read]))
    assert AgentConfig(name="a", llm=ScriptedLLM([]), tools=["web.*", "web.x"]).tool_registry(
        ToolRegistry([read]), pending={"web"}).names() == []
