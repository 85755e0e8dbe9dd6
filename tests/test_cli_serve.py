"""``serve`` and ``serve-mcp`` as a careless user meets them: a bad team file, a port in use, a
store path that is a folder, a second server on a session another one serves, SIGTERM while
the team starts. Each is one ``error:`` line (no traceback) and leaves nothing running."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

pytest.importorskip("mcp", reason="the mcp extra is not installed")
pytest.importorskip("starlette", reason="the web extra is not installed")

TOOLS = f"{Path(__file__).parent / 'serving' / 'team_tools.py'}:TOOLS"
COMMANDS = ["serve", "serve-mcp"]


def team_file(folder: Path, **extra: object) -> Path:
    path = folder / "team.yaml"
    path.write_text(yaml.safe_dump({"name": "careless", "coordinator": "lead", **extra,
                                    "members": [{"name": "lead", "llm": {
                                        "provider": "scripted", "responses": ["Hi."]}}]}))
    return path


def serving(command: str, team: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "autobyteus_like.cli", command, str(team), "--tools", TOOLS,
            *args]


def one_error_line(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert done.returncode == code, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=cwd,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_bad_team_file_is_one_line(tmp_path, command):
    bad = tmp_path / "team.yaml"
    bad.write_text("name: [\n")
    line = one_error_line(run(serving(command, bad, "--http", "127.0.0.1:0"), tmp_path))
    assert line.startswith("error: ") and "team.yaml" in line and "invalid YAML" in line


@pytest.mark.parametrize("command", COMMANDS)
def test_a_port_in_use_is_one_line_before_the_team_starts(tmp_path, command):
    started = tmp_path / "started"
    team = team_file(tmp_path, mcp_servers={"probe": {  # would say it was started
        "command": sys.executable, "args": ["-c", f"open({str(started)!r}, 'w')"]}})
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error_line(run(serving(command, team, "--http", f"127.0.0.1:{port}"),
                                  tmp_path))
    assert line == f"error: --http 127.0.0.1:{port}: cannot listen there: Address already in use"
    assert not started.exists()  # refused before any MCP server started


@pytest.mark.parametrize("command", COMMANDS)
def test_a_store_that_is_a_folder_is_one_line(tmp_path, command):
    (tmp_path / "folder").mkdir()
    line = one_error_line(run(serving(command, team_file(tmp_path), "--session", "s1",
                                      "--store", "folder"), tmp_path))
    assert line == ("error: --store folder: a folder, not a session store; give a SQLite "
                    "file's path (made if missing) or a postgresql:// URL")


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_a_second_server_on_a_served_session_exits_with_one_line(tmp_path, command):
    team = team_file(tmp_path)
    first = subprocess.Popen(serving(command, team, "--session", "s1", "--http",
                                     "127.0.0.1:0"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             cwd=tmp_path)
    try:
        assert first.stderr is not None
        assert " at http://127.0.0.1:" in first.stderr.readline()  # serving: it holds s1
        for other in COMMANDS:  # the other face too: one lease per session
            line = one_error_line(run(serving(other, team, "--session", "s1", "--http",
                                              "127.0.0.1:0"), tmp_path))
            assert line.startswith("error: session 's1' is in use by "), line
    finally:
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=30) == 0
        if first.stderr:
            first.stderr.close()


SLOW_SERVER = """
import os, sys, time
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(120)
"""


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_sigterm_while_the_team_starts_stops_what_started(tmp_path, command):
    """The team's MCP server has started (its process runs) but not answered yet: SIGTERM
    then ends the command at once with one line, and the server's process is gone."""
    script, pid_file = tmp_path / "slow_server.py", tmp_path / "pid"
    script.write_text(SLOW_SERVER)
    team = team_file(tmp_path, mcp_servers={"slow": {
        "command": sys.executable, "args": [str(script), str(pid_file)],
        "startup_timeout_s": 100}})
    server = subprocess.Popen(serving(command, team, "--http", "127.0.0.1:0"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()):  # nothing signals it
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=30)
        rest = server.stderr.read() if server.stderr else ""
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        if server.stderr:
            server.stderr.close()
    assert code == 130, rest
    assert rest == ("interrupted by SIGTERM while the team started; stopped what had "
                    "started\n"), rest
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid):  # the toolset's clean-up ends it: wait on its exit
        assert time.monotonic() < deadline, f"the MCP server {pid} was left running"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie has ended (its parent reaps it)
        return stat.read().split(") ")[-1][0] != "Z"


def _until_lease_expired(store_path: Path, session: str, timeout: float = 30) -> None:
    """Wait until no live process holds ``session`` (its holder is paused: its lease runs
    out; nothing signals that, so the store is asked)."""
    from autobyteus_like.store import open_store

    store = open_store(str(store_path))
    try:
        deadline = time.monotonic() + timeout
        while store.is_held(session) is not None:
            assert time.monotonic() < deadline, "the paused holder's lease never ran out"
            time.sleep(0.1)
    finally:
        store.close()


def _ask_mcp(url: str) -> tuple[bool, str]:
    import anyio
    from mcp import Client

    async def client() -> tuple[bool, str]:
        async with Client(url) as mcp:
            result = await mcp.call_tool("ask_careless", {"message": "still yours?"})
            return bool(result.is_error), str(result.content[0].text)

    return anyio.run(client)


def _post_run(url: str) -> int:
    import http.client
    import json
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        connection.request("POST", "/api/run", json.dumps({"message": "still yours?"}), {
            "Authorization": f"Bearer {parts.query.removeprefix('token=')}",
            "Content-Type": "application/json"})
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_a_server_whose_session_was_taken_over_stops_with_one_line(tmp_path, command):
    """Server A is paused (SIGSTOP) until its lease runs out and server B takes the session;
    A, let go on, is asked again: the ask fails saying why, and A stops by itself (exit 2)
    with that one line, while B goes on serving."""
    team = team_file(tmp_path)
    env = {**os.environ, "AUTOBYTEUS_LIKE_LEASE_S": "1"}

    def start() -> tuple[subprocess.Popen[str], str]:
        process = subprocess.Popen(serving(command, team, "--session", "s1", "--http",
                                           "127.0.0.1:0"),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True, cwd=tmp_path, env=env)
        assert process.stderr is not None
        line = process.stderr.readline()
        assert " at http://127.0.0.1:" in line, line
        return process, line.split(" at ")[1].strip()

    first, first_url = start()
    second = None
    try:
        first.send_signal(signal.SIGSTOP)
        _until_lease_expired(tmp_path / "team.sessions.db", "s1")
        second, _ = start()  # takes the session over
        first.send_signal(signal.SIGCONT)
        if command == "serve-mcp":
            failed, text = _ask_mcp(first_url)
            assert failed and "is no longer held by this process" in text, text
        else:
            assert _post_run(first_url) == 202  # the run fails: the page gets RUN_ERROR
        code = first.wait(timeout=60)  # stops by itself
        rest = first.stderr.read() if first.stderr else ""
        assert code == 2, rest
        assert rest.startswith("error: session 's1' is no longer held by this process: "
                               "another process took it over"), rest
        assert len(rest.splitlines()) == 1 and "Traceback" not in rest
        assert second.poll() is None  # the new holder serves on
    finally:
        for process in (first, second):
            if process is None:
                continue
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            if process.stderr:
                process.stderr.close()


def test_a_guessable_web_token_is_one_line(tmp_path):
    done = subprocess.run(serving("serve", team_file(tmp_path)), capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, stdin=subprocess.DEVNULL,
                          env={**os.environ, "AUTOBYTEUS_LIKE_WEB_TOKEN": "1234"})
    assert "AUTOBYTEUS_LIKE_WEB_TOKEN must be at least 16" in one_error_line(done)
