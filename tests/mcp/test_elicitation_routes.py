"""Where an MCP server's elicitation goes: the person at the terminal (``run``), an API
callback (``TeamHost(on_elicitation=...)``), or nowhere: declined at once when nobody is there,
``--yes`` never answering one. With the SDK server of tests/mcp/servers/asking_server.py."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from rich.console import Console

from autobyteus_like.cli._elicitation import TerminalElicitation
from autobyteus_like.events import AgentEvent
from autobyteus_like.mcp import ElicitationRequest, MCPToolset
from autobyteus_like.serving._team_host import TeamHost
from autobyteus_like.team import TeamConfig
from tests.mcp.test_asking import ASKING, said


def terminal(answers: str) -> tuple[TerminalElicitation, io.StringIO]:
    shown = io.StringIO()
    return TerminalElicitation(Console(file=shown, width=200),
                               stream=io.StringIO(answers)), shown


@pytest.mark.slow  # a server start (about 1 s idle, more under load)
def test_the_person_at_the_terminal_answers_field_by_field():
    asker = terminal("")[0]
    with MCPToolset.stdio(sys.executable, [ASKING], name="ask",
                          on_elicitation=lambda request: asker(request)) as toolset:
        asker, shown = terminal("y\nAda\n36\n")
        assert said(toolset, "ask") == "accept {'name': 'Ada', 'age': 36}"
        assert "MCP server ask asks: Who are you?" in shown.getvalue()
        asker, _ = terminal("n\n")  # no: declined
        assert said(toolset, "ask").startswith("decline")
        asker, shown = terminal("y\nAda\n")  # the input ends half way: declined
        assert said(toolset, "ask").startswith("decline")
        assert "the input ended" in shown.getvalue()
        asker, shown = terminal("y\nAda\nold\n")  # not an integer: declined, never sent
        assert said(toolset, "ask").startswith("decline")
        asker, _ = terminal("y\nA\n\n")  # too short for the server's schema: declined
        assert said(toolset, "ask").startswith("decline")


def asking_team(tmp_path: Path, timeout_s: float = 300) -> Path:
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "askers", "coordinator": "lead",
        "mcp_servers": {"ask": {"command": sys.executable, "args": [ASKING],
                                "elicitation_timeout_s": timeout_s}},
        "members": [{"name": "lead", "tools": ["ask.ask"], "tool_format": "json",
                     "llm": {"provider": "scripted", "responses": [
                         json.dumps({"name": "ask.ask", "arguments": {}}), "done"]}}]}))
    return path


@pytest.mark.slow  # the CLI in a process of its own
def test_run_without_a_terminal_declines_at_once_and_yes_never_answers(tmp_path):
    # the server would wait 300 s for an answer: the run ends well within the 120 s allowed
    done = subprocess.run(
        [sys.executable, "-m", "autobyteus_like.cli", "run", str(asking_team(tmp_path)),
         "--message", "who am I?", "--yes", "--json"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()
               if '"ToolResultReceived"' in line]
    assert results and "decline None" in json.dumps(results[0])


@pytest.mark.slow  # a server start
def test_a_served_team_asks_its_api_callback(tmp_path):
    asked: list[ElicitationRequest] = []

    def callback(request: ElicitationRequest) -> dict[str, object]:
        asked.append(request)
        return {"name": "Grace"}

    config = TeamConfig.from_yaml(asking_team(tmp_path))
    host = TeamHost(config, on_elicitation=callback)
    host.start()
    try:
        seen: list[AgentEvent] = []

        async def report(event: AgentEvent) -> None:
            seen.append(event)

        assert anyio.run(host.ask, "who am I?", None, report) == "done"
        llm = host.team.agents["lead"].config.llm
        assert "accept {'name': 'Grace', 'age': 0}" in llm.requests[1].messages[-1].content
        assert [r.message for r in asked] == ["Who are you?"]
    finally:
        host.stop()
