"""Where an MCP server's elicitation goes: an API callback (``TeamHost(on_elicitation=...)``),
or nowhere: declined at once when nobody is there, ``--yes`` never answering one. With the SDK
server of tests/mcp/servers/asking_server.py. (The person at the terminal answering field by
field: tests/mcp/test_asking.py, on its shared server.)"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import anyio
import pytest

from autobyteus_like.cli._main import main
from autobyteus_like.events import AgentEvent
from autobyteus_like.mcp import ElicitationRequest
from autobyteus_like.serving._team_host import TeamHost
from autobyteus_like.team import TeamConfig
from tests.mcp.test_asking import ASKING


def asking_team(tmp_path: Path, timeout_s: float = 300, asks: int = 1) -> Path:
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "askers", "coordinator": "lead",
        "mcp_servers": {"ask": {"command": sys.executable, "args": [ASKING],
                                "elicitation_timeout_s": timeout_s}},
        "members": [{"name": "lead", "tools": ["ask.ask"], "tool_format": "json",
                     "llm": {"provider": "scripted", "responses": [
                         json.dumps({"name": "ask.ask", "arguments": {}}), "done"] * asks}}]}))
    return path


@pytest.mark.slow  # a server start
def test_run_without_a_terminal_declines_at_once_and_yes_never_answers(tmp_path, monkeypatch,
                                                                        capsys):
    # the server would wait 300 s for an answer: the run declines at once instead (the CLI in
    # this process, its stdin no terminal)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["run", str(asking_team(tmp_path)), "--message", "who am I?", "--yes",
                 "--json"]) == 0
    out = capsys.readouterr().out
    results = [json.loads(line) for line in out.splitlines() if '"ToolResultReceived"' in line]
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
