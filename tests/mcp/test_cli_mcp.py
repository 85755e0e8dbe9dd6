"""The command line with MCP servers: ``validate`` starts each one and lists its tools, a
server that fails is one line naming it, and ``run`` works with their tools."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from autobyteus_like.cli._main import main
from tests.mcp.server_processes import RAW_SERVER


def team_file(tmp_path: Path, servers: dict[str, dict], tools: list[str],
              responses: list[str] | None = None) -> str:
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "t", "coordinator": "lead", "mcp_servers": servers,
        "members": [{"name": "lead", "tool_format": "json", "tools": tools, "llm": {
            "provider": "scripted", "responses": responses or ["done"]}}]}))
    return str(path)


RAW = {"command": sys.executable, "args": [RAW_SERVER], "deny": ["bomb", "deep", "essay"]}


def test_validate_lists_each_servers_tools(tmp_path, capsys):
    team = team_file(tmp_path, {"raw": RAW}, ["raw.ok", "raw.read_*"])
    assert main(["validate", team]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("mcp server 'raw': 11 tools: raw.ok, raw.read_file_")
    assert "mcp server 'raw': 'bad_schema' was left out: its inputSchema is not " \
           "valid JSON Schema" in out[2]
    assert out[-2:] == [f"{team}: valid team 't'; coordinator lead; members: lead (json)",
                        "member 'lead': json (tool_format in the config)"]


def test_validate_names_the_server_that_failed_and_the_tool_nothing_provides(tmp_path, capsys):
    servers = {"raw": RAW, "gone": {"command": "no-such-mcp-server"},
               "dead": {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}}
    team = team_file(tmp_path, servers, ["raw.ok", "gone.*"])
    assert main(["validate", team]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("mcp server 'raw': 11 tools")
    assert captured.err.splitlines() == [
        f"error: {team}: mcp server 'gone': could not start (command: no-such-mcp-server): "
        "cannot run 'no-such-mcp-server': no such file or directory",
        f"error: {team}: mcp server 'dead': could not start (command: {sys.executable} -c "
        "raise SystemExit(3)): the connection closed (the server exited or hung up)",
    ]
    team = team_file(tmp_path, {"raw": RAW}, ["raw.nope"])
    assert main(["validate", team]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: {team}: agent 'lead': unknown tool 'raw.nope'")
    assert "; available tools: send_message_to, raw.ok, raw.read_file_" in line


def test_run_uses_the_servers_tools_and_stops_them(tmp_path, capsys):
    team = team_file(tmp_path, {"raw": RAW}, ["raw.*"],
                     [json.dumps({"name": "raw.ok", "arguments": {"n": 7}}), "seven"])
    assert main(["run", team, "-m", "go", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [result] = [e["result"] for e in lines if e["type"] == "ToolResultReceived"]
    assert result["content"] == 'ok {"n": 7}'
    assert lines[-1]["answer"] == "seven"


def test_run_with_a_server_that_cannot_start_is_one_line_and_exit_2(tmp_path, capsys):
    team = team_file(tmp_path, {"gone": {"command": "no-such-mcp-server"}}, ["gone.*"])
    assert main(["run", team, "-m", "go"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: team 't': mcp server 'gone': could not start (command: no-such-mcp-server): "
        "cannot run 'no-such-mcp-server': no such file or directory"]
