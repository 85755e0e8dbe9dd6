"""An MCP server's elicitation during a ``serve-a2a`` task: asked of the A2A client as
``TASK_STATE_INPUT_REQUIRED`` (its message and schema), answered in the client's next message;
nothing that does not fit the schema reaches the server. The team's MCP server is
tests/mcp/servers/asking_server.py; the client is the SDK's own."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("a2a", reason="the A2A tests need autobyteus-like[a2a]")

from a2a.client import ClientConfig, create_client
from a2a.helpers.proto_helpers import get_data_parts, new_data_message
from a2a.types import Role, SendMessageRequest, TaskState

from tests.a2a.test_a2a_input_required import INPUT, last_text, states
from tests.a2a.test_serve_a2a import collect, message, served_here
from tests.mcp.test_elicitation_routes import asking_team


@pytest.mark.slow  # a served team (in this process) with an MCP server
def test_an_elicitation_is_asked_of_the_a2a_client_and_answered_in_its_next_message(tmp_path):
    async def talk(url: str) -> None:
        async with httpx.AsyncClient(timeout=60) as http:
            client = await create_client(url, ClientConfig(httpx_client=http))
            asked = await collect(client, message("who am I?", context_id="c"))
            assert states(asked)[-1] == INPUT
            assert last_text(asked).startswith("the MCP server 'ask' asks: Who are you?")
            last = [e for e in asked if e.HasField("status_update")][-1]
            [schema] = get_data_parts(last.status_update.status.message.parts)
            assert set(schema["properties"]) == {"name", "age"}
            task = last.status_update.task_id
            unclear = await collect(client, message("hmm", context_id="c", task_id=task))
            assert states(unclear)[-1] == INPUT and "not understood" in last_text(unclear)
            short = await collect(client, message('{"name": "A"}', context_id="c",
                                                  task_id=task))  # the schema wants 2+
            assert states(short)[-1] == INPUT and "does not fit" in last_text(short)
            answer = new_data_message({"name": "Ada", "age": 36}, role=Role.ROLE_USER,
                                      context_id="c", task_id=task)
            done = await collect(client, SendMessageRequest(message=answer))
            assert states(done)[-1] == TaskState.TASK_STATE_COMPLETED
            asked = await collect(client, message("again", context_id="c"))
            task = [e for e in asked if e.HasField("status_update")][-1].status_update.task_id
            declined = await collect(client, message("decline", context_id="c", task_id=task))
            assert states(declined)[-1] == TaskState.TASK_STATE_COMPLETED

    hosts: list[Any] = []
    with served_here(asking_team(tmp_path, asks=2), hosts) as url:
        anyio.run(talk, url)
        llm = hosts[0].team.conversation("c").agents["lead"].config.llm
        tool_results = [r.messages[-1].content for r in llm.requests[1::2]]
    assert "accept {'name': 'Ada', 'age': 36}" in tool_results[0]
    assert "decline None" in tool_results[1]
