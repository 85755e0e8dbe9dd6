"""``autobyteus-like serve-mcp``: the official SDK's client talks to a served team over stdio
and streamable HTTP; progress notifications carry the team's events, a cancelled request stops
the turn, approvals follow the server's policy."""

from __future__ import annotations

import contextlib
import io
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

from autobyteus_like.cli._main import main
from autobyteus_like.store import open_store
from tests.serving.left_sessions import assert_cut_then_fresh, killed_mid_tool, waiting_team

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


def serve_args(*args: str) -> list[str]:
    return ["serve-mcp", *args, "--tools", TOOLS]


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "autobyteus_like.cli", *serve_args(*args)]


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
def served_over_http(team: Path, *args: str, name: str = "helpers",
                     said: list[str] | None = None) -> Iterator[ServedOverHttp]:
    """Serve ``team`` over streamable HTTP on a free port; on leaving, SIGTERM (the server
    stops its team and exits) and wait for it. ``said``: the lines it wrote before its
    address (settling a session's unfinished work) are put there."""
    server = subprocess.Popen([*serve_command(str(team), "--http", "127.0.0.1:0", *args)],
                              stderr=subprocess.PIPE, text=True, cwd=team.parent)
    served = ServedOverHttp()
    try:
        line = server.stderr.readline() if server.stderr else ""
        while said is not None and line and " over MCP at " not in line:
            said.append(line.rstrip("\n"))
            line = server.stderr.readline() if server.stderr else ""
        assert line.startswith(f"serving team {name!r} over MCP at http://127.0.0.1:"), line
        served.url = line.split(" at ")[1].strip()
        yield served
    finally:
        server.terminate()
        served.code = server.wait(timeout=20)
        if server.stderr:
            served.rest = server.stderr.read()
            server.stderr.close()


def ask_over_http(url: str, message: str, tool: str = "ask_helpers") -> str:
    """The team's answer to ``message``, asked with the SDK's client."""
    async def client() -> str:
        async with Client(url) as mcp:
            result = await mcp.call_tool(tool, {"message": message})
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


@pytest.mark.slow
def test_with_a_session_each_ask_is_a_run_of_the_same_stored_team(tmp_path, capsys):
    team = team_file(tmp_path, ["First.", "Second."])
    with served_over_http(team, "--session", "s1") as served:
        assert ask_over_http(served.url, "one") == "First."
        capsys.readouterr()  # held while served: the lease is that process's
        assert main(["sessions", "list", "--team", str(team)]) == 0
        listed = capsys.readouterr().out
        assert "\trunning in " in listed, listed
        assert ask_over_http(served.url, "two") == "Second."
    assert served.code == 0, served.rest
    store = open_store(str(tmp_path / "team.sessions.db"))
    try:
        assert [(t.text, t.state, t.answer) for t in store.turns("s1", "lead")] == [
            ("one", "done", "First."), ("two", "done", "Second.")]
        assert store.is_held("s1") is None  # let go at the stop
    finally:
        store.close()


@pytest.mark.slow
def test_a_session_left_unfinished_is_refused_unless_resumed_or_abandoned(tmp_path, monkeypatch,
                                                                         capsys):
    team = waiting_team(tmp_path, ["Resumed.", "After that."])
    killed_mid_tool(team, "s1")
    monkeypatch.chdir(tmp_path)  # the CLI in this process: the refusal needs no server
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(serve_args(str(team), "--session", "s1")) == 2
    assert capsys.readouterr().err == (
        "error: session 's1' has an unfinished turn its last process left; serve-mcp does not "
        "go on with it by itself: pass --resume to go on with it first, or --abandon REASON "
        "to end it\n")
    said: list[str] = []
    with served_over_http(team, "--session", "s1", "--resume", name="lefteam",
                          said=said) as served:
        assert said == ["session 's1': went on with what its last process left; its answer: "
                        "Resumed."]
        assert ask_over_http(served.url, "and now?", "ask_lefteam") == "After that."
    assert served.code == 0, served.rest
    store = open_store(str(tmp_path / "lefteam.sessions.db"))
    try:
        assert [(t.text, t.state, t.answer) for t in store.turns("s1", "lead")] == [
            ("wait for it", "done", "Resumed."), ("and now?", "done", "After that.")]
    finally:
        store.close()


@pytest.mark.slow
def test_abandon_ends_what_a_session_left_and_the_next_ask_is_served(tmp_path):
    team = waiting_team(tmp_path, ["Answered."])
    killed_mid_tool(team, "s1")
    said: list[str] = []
    with served_over_http(team, "--session", "s1", "--abandon", "gave up on it",
                          name="lefteam", said=said) as served:
        assert said == ["session 's1': abandoned what its last process left unfinished"]
        assert ask_over_http(served.url, "fresh", "ask_lefteam") == "Answered."
    assert served.code == 0, served.rest
    assert_cut_then_fresh(tmp_path / "lefteam.sessions.db", "s1", "gave up on it", "fresh",
                          "Answered.")


@pytest.mark.parametrize("args", [["--resume"], ["--abandon", "why"], ["--abandon", " "]])
def test_settling_flags_need_a_session_and_a_reason(tmp_path, args, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # the CLI in this process
    assert main(serve_args(str(team_file(tmp_path, ["x"])), *args)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --"), err
    assert len(err.splitlines()) == 1
