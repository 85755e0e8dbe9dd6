"""A team served over MCP offers its members' roles as prompts and what it was asked and
answered as the resource ``transcript://<team>`` (the SDK's own client, in memory)."""

from __future__ import annotations

import anyio
from mcp import Client

from autobyteus_like import AgentConfig, ScriptedLLM, TeamConfig
from autobyteus_like.serving._mcp_server import build_server
from autobyteus_like.serving._team_host import TeamHost


def test_roles_are_prompts_and_the_transcript_is_a_resource():
    lead = AgentConfig(name="lead", role="plans the work", llm=ScriptedLLM(["4"]),
                       system_prompt="Answer tersely.\n\n{{tools}}")
    helper = AgentConfig(name="helper.two", llm=ScriptedLLM(["hi"]))
    host = TeamHost(TeamConfig(name="maths", coordinator="lead", members=[lead, helper]))
    server = build_server(host)

    async def talk() -> None:
        async with Client(server) as client:
            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            assert set(prompts) == {"role_lead", "role_helper.two"}
            assert "plans the work" in (prompts["role_lead"].description or "")
            role = await client.get_prompt("role_lead")
            text = role.messages[0].content.text
            assert text.startswith("You are lead, plans the work, a member of the team 'maths'")
            assert "Answer tersely." in text and "{{tools}}" not in text
            [resource] = (await client.list_resources()).resources
            assert str(resource.uri) == "transcript://maths"
            empty = await client.read_resource("transcript://maths")
            assert empty.contents[0].text == "(nothing asked yet)"
            answer = await client.call_tool("ask_maths", {"message": "2+2?"})
            assert answer.content[0].text == "4"
            read = await client.read_resource("transcript://maths")
            assert read.contents[0].text == "## asked (lead)\n\n2+2?\n\n## answered (lead)\n\n4"

    host.start()
    try:
        anyio.run(talk)
    finally:
        host.stop()
