"""An approval-gated call of a served team surfaces as ``TASK_STATE_INPUT_REQUIRED``; the
client's next message to the task answers it; nothing is approved unasked. And the caller's
side: our ``RemoteA2AAgent`` streams the remote's text, and declines a remote's question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("a2a", reason="the A2A tests need autobyteus-like[a2a]")

from a2a.client import ClientConfig, create_client
from a2a.types import CancelTaskRequest, GetTaskRequest, TaskState

from autobyteus_like import Agent, AgentConfig, AgentTurnError
from autobyteus_like.a2a import RemoteA2AAgent
from autobyteus_like.events import LLMChunkReceived
from tests.a2a.test_serve_a2a import call, collect, message, served, served_here

INPUT = TaskState.TASK_STATE_INPUT_REQUIRED


def purging_team(tmp_path: Path, marker: Path, rounds: int) -> Path:
    responses = []
    for _ in range(rounds):
        responses += [call("purge", marker=str(marker)), "Done with the purge."]
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "purgers", "coordinator": "lead",
        "members": [{"name": "lead", "tool_format": "json", "tools": ["purge"],
                     "llm": {"provider": "scripted", "responses": responses}}]}))
    return path


def states(events: list[Any]) -> list[int]:
    return [e.status_update.status.state for e in events if e.HasField("status_update")]


def last_text(events: list[Any]) -> str:
    [last] = [e for e in events if e.HasField("status_update")][-1:]
    return last.status_update.status.message.parts[0].text


@pytest.mark.slow  # a served team in its own process
def test_approval_is_asked_of_the_client_and_answered_in_its_next_message(tmp_path):
    marker = tmp_path / "marker"
    marker.write_text("")
    team = purging_team(tmp_path, marker, rounds=3)
    with served(team) as (url, process):
        async def talk() -> None:
            async with httpx.AsyncClient(timeout=60) as http:
                client = await create_client(url, ClientConfig(httpx_client=http))
                asked = await collect(client, message("purge it", context_id="c"))
                assert states(asked)[-1] == INPUT
                question = last_text(asked)
                assert "lead wants to call purge" in question and "approve" in question
                task = next(e.status_update.task_id for e in asked
                            if e.HasField("status_update"))
                assert marker.read_text() == ""  # nothing ran unasked
                other = await collect(client, message("meanwhile?", context_id="c"))
                assert states(other)[-1] == TaskState.TASK_STATE_REJECTED
                unclear = await collect(client, message("hmm", context_id="c", task_id=task))
                assert states(unclear)[-1] == INPUT and "not understood" in last_text(unclear)
                assert marker.read_text() == ""
                done = await collect(client, message("approve", context_id="c", task_id=task))
                assert states(done)[-1] == TaskState.TASK_STATE_COMPLETED
                assert marker.read_text() == "purged\n"
                # the coordinator's prose streamed as chunks of the artifact "text"
                texts = [e.artifact_update.artifact for e in done
                         if e.HasField("artifact_update")]
                assert [a.name for a in texts][-1] == "answer"
                assert any(a.name == "text" for a in texts)
                # a denial reaches the LLM with its reason
                asked = await collect(client, message("purge again", context_id="c"))
                task = next(e.status_update.task_id for e in asked
                            if e.HasField("status_update"))
                denied = await collect(client, message("deny: not today", context_id="c",
                                                       task_id=task))
                assert states(denied)[-1] == TaskState.TASK_STATE_COMPLETED
                assert marker.read_text() == "purged\n"
                # a task waiting for an answer can be cancelled; its context goes on
                asked = await collect(client, message("purge a third time", context_id="c"))
                task = next(e.status_update.task_id for e in asked
                            if e.HasField("status_update"))
                cancelled = await client.cancel_task(CancelTaskRequest(id=task))
                assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
                fetched = await client.get_task(GetTaskRequest(id=task))
                assert fetched.status.state == TaskState.TASK_STATE_CANCELED
                assert marker.read_text() == "purged\n"
                after = await collect(client, message("still there?", context_id="c"))
                assert states(after)[-1] == TaskState.TASK_STATE_COMPLETED  # not held

        anyio.run(talk)
    assert process.returncode == 0


@pytest.mark.slow  # a served team (in this process)
def test_our_remote_member_streams_text_and_declines_a_remote_question(tmp_path):
    marker = tmp_path / "marker"
    marker.write_text("")
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "talkers", "coordinator": "lead",
        "members": [{"name": "lead", "tool_format": "json", "tools": ["purge"],
                     "llm": {"provider": "scripted", "chunk_size": 4, "responses": [
                         "The answer is four.", call("purge", marker=str(marker)),
                         "never"]}}]}))
    with served_here(path) as url, \
            Agent(AgentConfig(name="caller", llm=RemoteA2AAgent(url, timeout_s=60))) as agent:
        watched = agent.events()
        assert agent.run("2+2?", timeout=60) == "The answer is four."
        chunks = []
        while (event := watched.get(timeout=10)) is not None:
            if isinstance(event, LLMChunkReceived) and event.text:
                chunks.append(event.text)
            if "".join(chunks) == "The answer is four.":
                break
        assert len(chunks) > 1 and "".join(chunks) == "The answer is four."
        with pytest.raises(AgentTurnError, match=r"it asks for input .*purge.*nobody here"):
            agent.run("purge it", timeout=60)
        assert marker.read_text() == ""


@pytest.mark.slow  # a served team (in this process)
def test_a_remotes_question_goes_to_our_approval_flow(tmp_path):
    from autobyteus_like import ScriptedLLM
    from autobyteus_like.a2a import remote_agent_tools
    from autobyteus_like.events import ApprovalRequested

    marker = tmp_path / "marker"
    marker.write_text("")
    with served_here(purging_team(tmp_path, marker, rounds=1)) as url:
        ask, answer = remote_agent_tools(url, name="ask_remote", timeout_s=60)

        def answer_it(request: Any) -> str:  # the LLM answers the question it was shown
            said = request.messages[-1].content
            task = said.split("Its task ")[1].split()[0]
            return call("ask_remote_answer", task_id=task, answer="approve")

        llm = ScriptedLLM([call("ask_remote", message="purge it"), answer_it, "all done"])
        config = AgentConfig(name="caller", llm=llm, tools=["ask_remote", "ask_remote_answer"],
                             tool_format="json", tool_sandboxes={
                                 name: {"allow_network": True}
                                 for name in ("ask_remote", "ask_remote_answer")})
        with Agent(config, tools=[ask, answer]) as agent:
            watched = agent.events()
            reply = agent.send("go")
            while not isinstance(event := watched.get(timeout=60), ApprovalRequested):
                assert event is not None
            assert event.invocation.name == "ask_remote_answer"
            assert "lead wants to call purge" in llm.requests[1].messages[-1].content
            assert marker.read_text() == ""  # nothing answered the remote unasked
            agent.approve(event.invocation.id)  # the person at our end says yes
            assert reply.result(timeout=60) == "all done"
        assert marker.read_text() == "purged\n"
        assert "Done with the purge." in llm.requests[2].messages[-1].content
