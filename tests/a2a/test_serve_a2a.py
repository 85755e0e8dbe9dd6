"""``autobyteus-like serve-a2a``: the A2A SDK's own client against a team served in another
process on 127.0.0.1: the agent card, SendMessage, SendStreamingMessage with status updates,
GetTask, CancelTask stopping the team's work, a bearer token."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("a2a", reason="the A2A tests need autobyteus-like[a2a]")

from a2a.client import ClientConfig, create_client
from a2a.helpers.proto_helpers import new_text_message
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    Role,
    SendMessageRequest,
    TaskState,
)

TOOLS = f"{Path(__file__).parents[1] / 'serving' / 'team_tools.py'}:TOOLS"
TOKEN = "a-token-of-enough-length"


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def team_file(tmp_path: Path, responses: list[str]) -> Path:
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "helpers", "coordinator": "lead", "description": "answers questions",
        "members": [{"name": "lead", "role": "answers questions", "tool_format": "json",
                     "llm": {"provider": "scripted", "responses": responses},
                     "tools": ["wait"]},
                    {"name": "helper", "role": "helps", "llm": {
                        "provider": "scripted", "responses": ["hi"]}}]}))
    return path


@contextmanager
def served(team: Path, *extra: str, env: dict[str, str] | None = None
           ) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``serve-a2a`` in a process of its own: its URL, then SIGTERM (and its exit checked)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "autobyteus_like.cli", "serve-a2a", str(team), "--tools", TOOLS,
         *extra], stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "over A2A at " in line, line + process.stderr.read()
        yield line.split(" at ")[1].split()[0], process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            if process.stderr:
                process.stderr.close()


@contextmanager
def served_here(team: Path, hosts: list[Any] | None = None) -> Iterator[str]:
    """The team served over A2A by this process as ``serve-a2a TEAM --tools TOOLS`` serves it
    (the same app, no call approved beforehand), uvicorn in a thread: its URL; then stopped,
    the thread joined. For tests where the process boundary is not what is tested."""
    import uvicorn

    from autobyteus_like.a2a import build_a2a_app
    from autobyteus_like.cli._tools import load_tools
    from autobyteus_like.serving._approval import ApprovalPolicy
    from autobyteus_like.serving._startup import listening_socket
    from autobyteus_like.serving._team_host import TeamHost
    from autobyteus_like.team import TeamConfig

    tools = load_tools(TOOLS)
    host = TeamHost(TeamConfig.from_yaml(team, tools=tools), tools=tools,
                    policy=ApprovalPolicy([]))
    sock = listening_socket("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    if hosts is not None:  # (for a test to look at the team)
        hosts.append(host)
    try:
        host.start()
        web = uvicorn.Server(uvicorn.Config(build_a2a_app(host, url), log_level="warning"))
        thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]},
                                  name="a2a test server")
        thread.start()
        try:
            yield url
        finally:
            host.stop()  # as serve-a2a on SIGTERM: the team's work ends now, then the server
            web.should_exit = True
            thread.join(30)
            assert not thread.is_alive(), "the A2A test server did not stop"
    finally:
        host.stop()
        sock.close()


def message(text: str, **ids: str) -> SendMessageRequest:
    return SendMessageRequest(message=new_text_message(text, role=Role.ROLE_USER, **ids))


async def collect(client: Any, request: SendMessageRequest) -> list[Any]:
    return [event async for event in client.send_message(request)]


@pytest.mark.slow  # one served team in its own process, asked four times
def test_card_send_stream_get_cancel_behind_a_token(tmp_path):
    marker = tmp_path / "marker"
    team = team_file(tmp_path, ["The answer is 4.", "Still 4.",
                                call("wait", seconds=60, marker=str(marker)), "never"])
    with served(team, "--token-env", "A2A_TOKEN_FOR_TEST",
                env={"A2A_TOKEN_FOR_TEST": TOKEN}) as (url, process):
        card = httpx.get(url + ".well-known/agent-card.json", timeout=10).json()  # public
        assert card["name"] == "helpers" and "answers questions" in card["description"]
        assert {skill["id"] for skill in card["skills"]} == {"lead", "helper"}
        assert card["capabilities"]["streaming"] is True and "bearer" in card["securitySchemes"]
        refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "GetTask",
                                        "params": {"id": "x"}}, timeout=10)
        assert refused.status_code == 401

        async def talk() -> None:
            http = httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"},
                                     timeout=60)
            async with http:
                await stream_then_get(url, http)
                await cancel(url, http, marker)

        anyio.run(talk)
    assert process.returncode == 0


async def stream_then_get(url: str, http: httpx.AsyncClient) -> None:
    streaming = await create_client(url, ClientConfig(httpx_client=http))
    events = await collect(streaming, message("2+2?"))
    states = [e.status_update.status.state for e in events if e.HasField("status_update")]
    assert states[0] == TaskState.TASK_STATE_WORKING
    assert states[-1] == TaskState.TASK_STATE_COMPLETED
    steps = [e.status_update.status.message.parts[0].text for e in events
             if e.HasField("status_update") and e.status_update.status.message.parts]
    assert "lead is thinking (step 1)" in steps
    *streamed, answer = [e.artifact_update.artifact for e in events
                         if e.HasField("artifact_update")]
    assert answer.name == "answer" and answer.parts[0].text == "The answer is 4."
    assert "".join(a.parts[0].text for a in streamed) == "The answer is 4."  # as it came

    plain = await create_client(url, ClientConfig(streaming=False, httpx_client=http))
    [final] = await collect(plain, message("and again?"))
    task = final.task
    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    fetched = await plain.get_task(GetTaskRequest(id=task.id))
    assert fetched.artifacts[0].parts[0].text == "Still 4."


async def cancel(url: str, http: httpx.AsyncClient, marker: Path) -> None:
    client = await create_client(url, ClientConfig(streaming=False, httpx_client=http))
    request = message("wait a minute")
    request.configuration.return_immediately = True
    [first] = await collect(client, request)
    with anyio.fail_after(30):
        while not (marker.exists() and marker.read_text() == "started"):
            await anyio.sleep(0.02)
    cancelled = await client.cancel_task(CancelTaskRequest(id=first.task.id))
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    with anyio.fail_after(30):  # the tool saw its cancellation
        while marker.read_text() != "cancelled":
            await anyio.sleep(0.02)


def test_off_loopback_without_a_token_is_refused(tmp_path, capsys):
    from autobyteus_like.cli._main import main

    team = team_file(tmp_path, ["ok"])
    assert main(["serve-a2a", str(team), "--tools", TOOLS, "--http", "0.0.0.0:0"]) != 0
    err = capsys.readouterr().err
    assert "not a loopback address: give a bearer token" in err
    assert "Traceback" not in err


async def ask_in(url: str, context: str, text: str) -> tuple[str, list[str]]:
    async with httpx.AsyncClient(timeout=60) as http:
        client = await create_client(url, ClientConfig(streaming=False, httpx_client=http))
        [final] = await collect(client, message(text, context_id=context))
    task = final.task
    assert task.status.state == TaskState.TASK_STATE_COMPLETED, task.status
    return task.context_id, [part.text for art in task.artifacts for part in art.parts]


@pytest.mark.slow  # the server started twice
def test_a_context_is_a_conversation_that_survives_a_restart(tmp_path):
    from autobyteus_like.store import open_store

    team = team_file(tmp_path, ["first", "second", "third"])
    store = tmp_path / "a2a.sessions.db"
    for round_ in range(2):
        with served(team, "--session", "s", "--store", str(store)) as (url, process):
            assert anyio.run(ask_in, url, "ctx-1", f"kept {round_}")[0] == "ctx-1"
            anyio.run(ask_in, url, f"other-{round_}", f"apart {round_}")
        assert process.returncode == 0
    opened = open_store(store)
    try:
        def said(name: str) -> list[tuple[str, str]]:
            return [(m.role, m.content) for m in opened.history(name, "lead")]

        # one record per context; ctx-1 went on with its history after the restart (its
        # scripted reply is the one after those its restored history holds)
        assert said("s@ctx-1") == [("user", "kept 0"), ("assistant", "first"),
                                   ("user", "kept 1"), ("assistant", "second")]
        assert [m for m, _ in said("s@other-0")] == ["user", "assistant"]
        assert said("s@other-1")[0] == ("user", "apart 1")
        assert said("s") == []  # the default conversation was not used
    finally:
        opened.close()
