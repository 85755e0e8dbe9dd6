"""A member's system prompt from an MCP server's prompt (``prompt: {server, name, arguments}``
in YAML), with the SDK server of tests/mcp/servers/asking_server.py."""

from __future__ import annotations

import json
import sys

import pytest

from autobyteus_like import AgentConfig, AgentTeam, ConfigError
from tests.mcp.test_asking import ASKING


def team(tmp_path, prompt: dict) -> AgentTeam:
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "reviewers", "coordinator": "lead",
        "mcp_servers": {"ask": {"command": sys.executable, "args": [ASKING]}},
        "members": [{"name": "lead", "prompt": prompt, "tools": ["ask.touch"],
                     "llm": {"provider": "scripted", "responses": ["Looks fine."]}}]}))
    return AgentTeam.from_yaml(path)


@pytest.mark.slow  # two server starts (about 1 s each idle, more under load)
def test_a_members_system_prompt_from_an_mcp_prompt(tmp_path):
    with team(tmp_path, {"server": "ask", "name": "reviewer",
                         "arguments": {"language": "Rust"}}) as reviewers:
        assert reviewers.run("review this", timeout=60) == "Looks fine."
        [request] = reviewers.agents["lead"].config.llm.requests
    assert request.system_prompt.startswith("You review Rust code strictly.")
    assert "ask.touch" in request.system_prompt  # the tools are still taught after it
    with pytest.raises(ConfigError, match=r"member 'lead': .*'reviewer'.*language"):
        team(tmp_path, {"server": "ask", "name": "reviewer"}).start()


def test_prompt_and_system_prompt_together_are_refused():
    with pytest.raises(ValueError, match="system_prompt or prompt"):
        AgentConfig.model_validate({"name": "x", "system_prompt": "hi", "llm": {
            "provider": "scripted", "responses": []}, "prompt": {"server": "s", "name": "n"}})


@pytest.mark.slow  # a server start
def test_a_team_run_message_from_an_mcp_prompt(tmp_path, capsys):
    from autobyteus_like.cli._main import main

    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "reviewers", "coordinator": "lead",
        "mcp_servers": {"ask": {"command": sys.executable, "args": [ASKING]}},
        "message": {"prompt": {"server": "ask", "name": "reviewer",
                               "arguments": {"language": "Go"}}},
        "members": [{"name": "lead", "llm": {"provider": "scripted",
                                             "responses": ["Understood, Go it is."]}}]}))
    assert main(["run", str(path), "--json"]) == 0  # no --message: the team's, from the prompt
    out = capsys.readouterr().out
    received = [json.loads(line) for line in out.splitlines() if "UserMessageReceived" in line]
    assert "You review Go code strictly." in json.dumps(received)
    assert "Understood, Go it is." in out
