"""``serve`` itself: where it cannot listen it says so in one line (exit 2)."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
from contextlib import ExitStack

import pytest

from tests.web.served_team import TOOLS, WebServer, call, write_team

pytestmark = pytest.mark.slow  # a real server in a subprocess per test


def test_an_address_in_use_is_one_line(tmp_path):
    team = write_team(tmp_path, [{"name": "lead", "llm": {"provider": "scripted",
                                                          "responses": ["hi"]}}])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "autobyteus_like.cli", "serve", str(team),
                               "--tools", TOOLS, "--http", f"127.0.0.1:{port}"],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == (f"error: --http 127.0.0.1:{port}: cannot listen there: "
                           "Address already in use\n")


def test_idle_connections_lock_out_neither_the_token_holder_nor_the_run(tmp_path):
    # a server allowed 256 files, and more idle connections than that
    team = write_team(tmp_path, [{"name": "lead", "tool_format": "json", "tools": ["echo"],
                                  "llm": {"provider": "scripted", "responses": [
                                      call("echo", text="still here"), "Done."]}}])
    errors = tmp_path / "stderr"

    def small_file_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    with errors.open("w") as stderr:
        server = WebServer(team, preexec_fn=small_file_limit, stderr=stderr)
    try:
        with ExitStack() as idle:
            for _ in range(300):
                idle.enter_context(socket.create_connection((server.host, server.port)))
            assert server.state()["running"] is None  # the token holder gets in
            assert server.post("/api/run", {"message": "go"})[0] == 202
            events = server.events(until="RUN_FINISHED")
            results = [e["content"] for _, e in events if e["type"] == "TOOL_CALL_RESULT"]
            assert results == ["still here"] and events[-1][1]["result"] == "Done."
    finally:
        assert server.stop() == 0
    logged = errors.read_text()
    assert "Too many open files" not in logged and len(logged) < 2_000, logged
    assert logged.count("the most this server keeps") == 1, logged
