"""A team with handoffs served over MCP (the SDK's own client, in memory) answers from
whichever member holds the conversation, ask after ask."""

from __future__ import annotations

import json

import anyio
from mcp import Client

from autobyteus_like import AgentConfig, ScriptedLLM, TeamConfig
from autobyteus_like.serving._mcp_server import build_server
from autobyteus_like.serving._team_host import TeamHost

HANDOFF = json.dumps({"name": "transfer_to_billing", "arguments": {"reason": "money"}})


def test_a_served_team_answers_from_the_member_holding_the_conversation():
    triage = AgentConfig(name="triage", llm=ScriptedLLM([HANDOFF]), handoffs=["billing"],
                         tool_format="json")
    billing = AgentConfig(name="billing", role="handles money",
                          llm=ScriptedLLM(["Refunded.", "You are welcome."]))
    host = TeamHost(TeamConfig(name="desk", coordinator="triage", members=[triage, billing]))
    server = build_server(host)

    async def talk() -> None:
        async with Client(server) as client:
            first = await client.call_tool("ask_desk", {"message": "refund please"})
            assert first.content[0].text == "Refunded."
            second = await client.call_tool("ask_desk", {"message": "thanks"})
            assert second.content[0].text == "You are welcome."
            read = await client.read_resource("transcript://desk")
            text = read.contents[0].text
            assert "## answered (billing)\n\nRefunded." in text
            assert "## asked (billing)\n\nthanks" in text  # the holder was asked
            assert "## answered (billing)\n\nYou are welcome." in text

    host.start()
    try:
        anyio.run(talk)
    finally:
        host.stop()
    assert len(triage.llm.requests) == 1  # type: ignore[attr-defined]
