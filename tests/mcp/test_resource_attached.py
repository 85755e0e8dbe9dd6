"""An MCP server's resource attached to a message: in Python ``toolset.attach(message, uri)``,
in a team file ``message: {prompt: {...}, resources: [{server, uri}]}`` (``run``'s message); the
text read from the server, cut like a result; a bad reference one line naming it."""

from __future__ import annotations

import json
import sys

import pytest

from autobyteus_like import AgentTeam, ToolFailure
from autobyteus_like.mcp import MCPToolset
from tests.mcp.test_asking import ASKING


@pytest.mark.slow  # a server start, and a team run with another
def test_a_resource_attached_to_a_message_in_python_and_in_a_team_file(tmp_path, capsys):
    from autobyteus_like.cli._main import main

    with MCPToolset.stdio(sys.executable, [ASKING], name="ask",
                          max_result_chars=2_000) as toolset:
        text = toolset.attach("summarise this", "notes://short")
        assert text == ("summarise this\n\n<resource server='ask' uri='notes://short'>\n"
                        "the short note\n</resource>")
        big = toolset.attach("and this", "notes://big")
        assert len(big) < 2_400 and "notes://big" in big  # cut like a result
        with pytest.raises(ToolFailure, match="notes://nowhere"):
            toolset.attach("this?", "notes://nowhere")
        path = tmp_path / "team.yaml"

        def team_file(uri: str) -> str:
            path.write_text(json.dumps({
                "name": "readers", "coordinator": "lead",
                "mcp_servers": {"ask": {"command": sys.executable, "args": [ASKING]}},
                "message": {"prompt": {"server": "ask", "name": "reviewer",
                                       "arguments": {"language": "Go"}},
                            "resources": [{"server": "ask", "uri": uri}]},
                "members": [{"name": "lead", "llm": {"provider": "scripted",
                                                     "responses": ["Read it."]}}]}))
            return str(path)

        assert main(["run", team_file("notes://short"), "--json"]) == 0
        out = capsys.readouterr().out
        [received] = [json.loads(line) for line in out.splitlines()
                      if "UserMessageReceived" in line]
        said = json.dumps(received)
        assert "You review Go code strictly." in said and "the short note" in said
        assert main(["run", team_file("notes://nowhere"), "--json"]) != 0
        err = capsys.readouterr().err
        assert "resource 'notes://nowhere' of MCP server 'ask'" in err
        assert "Traceback" not in err


def test_a_resource_reference_that_is_not_one_is_refused(tmp_path):
    from autobyteus_like import ConfigError

    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "readers", "coordinator": "lead",
        "message": {"prompt": {"server": "ask", "name": "p"}, "resources": [{"uri": ""}]},
        "members": [{"name": "lead", "llm": {"provider": "scripted", "responses": []}}]}))
    with pytest.raises(ConfigError, match=r"message\.resources\[0\]\.server: missing"):
        AgentTeam.from_yaml(path)
