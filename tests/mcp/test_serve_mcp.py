"""``autobyteus-like serve-mcp``: the official SDK's client talks to a served team over stdio
and streamable HTTP; progress notifications carry the team's events, a cancelled request stops
the turn, approvals follow the server's policy."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

TOOLS = f"{Path(__file__).parents[1] / 'serving' / 'team_tools.py'}:TOOLS"


def team_file(tmp_path: Path, responses: list[str]) -> Path:
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({
        "name": "helpers", "coordinator": "lead", "description": "answers questions",
        "members": [{"name": "lead", "role": "answers", "tool_format": "json",
                     "llm": {"provider": "scripted", "responses": responses},
                     "tools": ["wait", "purge"], "auto_execute_tools": False,
                     "approval_policy": "marked"},
                    {"name": "helper", "llm": {"provider": "scripted", "responses": ["hi"]}}],
    }))
    return path


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


async def file_says(path: Path, text: str, timeout: float = 60) -> bool:
    """Poll a file another process writes (nothing signals it) until it holds ``text`` (the
    deadline, sized for a loaded machine, only bounds a failing test)."""
    with anyio.move_on_after(timeout):
        while not (path.exists() and path.read_text() == text):
            await anyio.sleep(0.02)
        return True
    return False


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "autobyteus_like.cli", "serve-mcp", *args, "--tools", TOOLS]


def test_over_stdio_progress_denied_approval_and_cancellation(tmp_path):
    marker = tmp_path / "marker"
    team = team_file(tmp_path, [call("purge", marker=str(marker)), "Purge refused.",
                                call("wait", seconds=60, marker=str(marker)), "Back again."])
    command, *args = serve_command(str(team), "--members")
    progress: list[str] = []

    async def client() -> None:
        async with Client(StdioServerParameters(command=command, args=args)) as mcp:
            listed = {tool.name: tool for tool in (await mcp.list_tools()).tools}
            assert set(listed) == {"ask_helpers", "ask_lead", "ask_helper"}
            assert listed["ask_helpers"].input_schema["required"] == ["message"]
            assert "Members: lead (answers), helper" in str(listed["ask_helpers"].description)

            async def note(done: float, total: float | None, message: str | None) -> None:
                progress.append(str(message))

            refused = await mcp.call_tool("ask_helpers", {"message": "purge it"},
                                          progress_callback=note)
            assert not refused.is_error and refused.content[0].text == "Purge refused."
            async with anyio.create_task_group() as group:
                group.start_soon(mcp.call_tool, "ask_helpers", {"message": "wait"})
                assert await file_says(marker, "started")  # the tool runs in the server
                group.cancel_scope.cancel()  # the SDK sends notifications/cancelled
            assert await file_says(marker, "cancelled")
            again = await mcp.call_tool("ask_helpers", {"message": "still there?"})
            assert again.content[0].text == "Back again."
            member = await mcp.call_tool("ask_helper", {"message": "hello"})
            assert member.content[0].text == "hi"

    anyio.run(client)
    assert not (marker.exists() and marker.read_text() == "purged\n")
    assert progress[:3] == ["user -> lead: purge it", "lead is thinking (step 1)",
                            "lead asks to run purge"]
    assert "lead: purge failed (DENIED)" in progress
    assert progress[-1] == "lead answered: Purge refused."


@dataclass
class ServedOverHttp:
    """A ``serve-mcp --http`` process: its URL, and once it is stopped its exit code and what
    it wrote on stderr after announcing the URL."""

    url: str = ""
    code: int | None = None
    rest: str = ""


@contextmanager
def served_over_http(team: Path, *args: str) -> Iterator[ServedOverHttp]:
    """Serve ``team`` over streamable HTTP on a free port; on leaving, SIGTERM (the server
    stops its team and exits) and wait for it."""
    server = subprocess.Popen([*serve_command(str(team), "--http", "127.0.0.1:0", *args)],
                              stderr=subprocess.PIPE, text=True)
    served = ServedOverHttp()
    try:
        line = server.stderr.readline() if server.stderr else ""
        assert line.startswith("serving team 'helpers' over MCP at http://127.0.0.1:"), line
        served.url = line.split(" at ")[1].strip()
        yield served
    finally:
        server.terminate()
        served.code = server.wait(timeout=20)
        if server.stderr:
            served.rest = server.stderr.read()
            server.stderr.close()


def ask_over_http(url: str, message: str) -> str:
    """The team's answer to ``message``, asked with the SDK's client."""
    async def client() -> str:
        async with Client(url) as mcp:
            result = await mcp.call_tool("ask_helpers", {"message": message})
            return str(result.content[0].text)

    return anyio.run(client)


def test_over_streamable_http_with_an_approval_policy(tmp_path):
    marker = tmp_path / "marker"
    team = team_file(tmp_path, [call("purge", marker=str(marker)), "Purged."])
    with served_over_http(team, "--approve", "pur*") as served:
        assert ask_over_http(served.url, "purge it") == "Purged."
        assert marker.read_text() == "purged\n"
    assert served.code == 0


def test_sigterm_stops_an_http_server_quietly(tmp_path):
    team = team_file(tmp_path, ["Hello."])
    with served_over_http(team) as served:
        assert ask_over_http(served.url, "hi") == "Hello."
    assert served.code == 0
    assert served.rest == "", served.rest


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_a_call_is_in_flight_stops_an_http_server_quietly(tmp_path, signum):
    """SIGTERM (or Ctrl-C's SIGINT) while a client waits on an ask whose tool runs: the
    server stops its team (the tool is cancelled), the client's call ends, and the server
    exits 0 within its grace period, printing nothing more (no traceback)."""
    marker = tmp_path / "marker"
    team = team_file(tmp_path, [call("wait", seconds=60, marker=str(marker)), "never"])
    server = subprocess.Popen([*serve_command(str(team), "--http", "127.0.0.1:0",
                                              "--approve", "*")],
                              stderr=subprocess.PIPE, text=True)
    ended: list[str] = []
    try:
        line = server.stderr.readline() if server.stderr else ""
        assert line.startswith("serving team 'helpers' over MCP at http://127.0.0.1:"), line
        url = line.split(" at ")[1].strip()

        async def client() -> None:
            async with Client(url) as mcp:
                async def ask() -> None:
                    try:
                        result = await mcp.call_tool("ask_helpers", {"message": "wait"})
                        ended.append(f"result: {result.content[0].text if result.content else ''}")
                    except Exception as exc:  # the server went away under the call
                        ended.append(f"error: {type(exc).__name__}")

                async with anyio.create_task_group() as group:
                    group.start_soon(ask)
                    assert await file_says(marker, "started")  # the tool runs in the server
                    server.send_signal(signum)
                    with anyio.fail_after(30):  # the call ends: nothing stalls
                        while not ended:
                            await anyio.sleep(0.05)

        with contextlib.suppress(Exception):  # leaving a client whose server is gone may fail
            anyio.run(client)
    finally:
        if server.poll() is None and not ended:
            server.send_signal(signum)
        code = server.wait(timeout=30)
        rest = server.stderr.read() if server.stderr else ""
        if server.stderr:
            server.stderr.close()
    assert ended, "the client's call never ended"
    assert code == 0, rest
    assert rest == "", rest
    assert marker.read_text() == "cancelled"  # the team stopped its tool


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_right_after_the_address_is_shown_stops_the_server_quietly(tmp_path, signum):
    """The address is announced once the server listens for signals: an operator's SIGTERM
    or Ctrl-C at once is a quiet stop too (not the default handler's death, nor exit 130)."""
    team = team_file(tmp_path, ["Hello."])
    server = subprocess.Popen([*serve_command(str(team), "--http", "127.0.0.1:0")],
                              stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline() if server.stderr else ""
        assert line.startswith("serving team 'helpers' over MCP at http://127.0.0.1:"), line
    finally:
        server.send_signal(signum)
        code = server.wait(timeout=20)
        rest = server.stderr.read() if server.stderr else ""
        if server.stderr:
            server.stderr.close()
    assert code == 0
    assert rest == "", rest
