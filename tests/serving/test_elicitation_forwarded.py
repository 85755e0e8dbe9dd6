"""A served team's MCP server asks a person something (``elicitation/create``) during an ask:
``serve-mcp`` forwards it to the MCP client whose ask it is (the SDK's client, in process,
with the asking server of tests/mcp/servers/asking_server.py as the team's tool); a client
that cannot elicit gets it declined."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import ElicitResult

from autobyteus_like.serving._mcp_server import build_server
from autobyteus_like.serving._team_host import TeamHost
from autobyteus_like.team import TeamConfig
from tests.mcp.test_elicitation_routes import asking_team


@pytest.mark.slow  # a server start
def test_serve_mcp_forwards_an_elicitation_to_the_client_that_asked(tmp_path: Path) -> None:
    host = TeamHost(TeamConfig.from_yaml(asking_team(tmp_path, asks=2)))
    host.start()
    asked: list[tuple[str, dict[str, Any]]] = []

    async def person(context: Any, params: Any) -> ElicitResult:
        asked.append((params.message, params.requested_schema))
        return ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def client() -> tuple[str, str]:
        async with Client(build_server(host), mode="legacy",
                          elicitation_callback=person) as mcp:
            answered = await mcp.call_tool("ask_askers", {"message": "who am I?"})
        async with Client(build_server(host), mode="legacy") as mute:  # cannot elicit
            declined = await mute.call_tool("ask_askers", {"message": "and now?"})
        return answered.content[0].text, declined.content[0].text  # type: ignore[union-attr]

    try:
        assert anyio.run(client) == ("done", "done")
        [(message, schema)] = asked
        assert message == "(MCP server 'ask' of team 'askers') Who are you?"
        assert set(schema["properties"]) == {"name", "age"}
        requests = host.team.agents["lead"].config.llm.requests
        assert "accept {'name': 'Ada', 'age': 36}" in requests[1].messages[-1].content
        assert "decline None" in requests[-1].messages[-1].content
    finally:
        host.stop()
