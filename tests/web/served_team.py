"""A team served on the web by ``autobyteus-like serve`` in a real subprocess, and a small
HTTP client for it (the standard library's, so a test sees exactly what went over the wire)."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from tests.mcp.server_processes import wait_until

TOOLS = f"{Path(__file__).parents[1] / 'serving' / 'team_tools.py'}:TOOLS"


def call(name: str, **arguments: object) -> str:
    """A call in the json tool format, as a scripted model writes it."""
    return json.dumps({"name": name, "arguments": arguments})


def write_team(folder: Path, members: list[dict[str, Any]], name: str = "webteam") -> Path:
    """A team file whose members are scripted (``tool_format: json``)."""
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"name": name, "coordinator": members[0]["name"],
                                    "members": members}))
    return path


def body_running(marker: Path) -> None:
    """Wait until the ``wait`` tool's body has begun (it writes its marker first). The
    tool_started event says the call was started; its body, a coroutine, may not have run a line
    yet, and a stop then cancels a body that never began, leaving no marker to judge by.
    Another process writes the file, nothing signals it: poll."""
    assert wait_until(lambda: marker.exists() and marker.read_text() != ""), "never began"


class WebServer:
    """``serve TEAM.yaml`` in a subprocess until ``stop`` (SIGTERM; it must exit 0)."""

    def __init__(self, team: Path, *extra: str, **popen: Any) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autobyteus_like.cli", "serve", str(team), "--tools", TOOLS,
             *extra], stdout=subprocess.PIPE, text=True, cwd=team.parent, **popen)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the URL line (on stderr too, when piped)
        if " on the web at " not in line:
            self.process.kill()
            rest = self.process.stdout.read()
            self.process.wait()
            raise AssertionError(f"the server did not start (its stderr is above): {line}{rest}")
        self.url = line.split(" on the web at ")[1].strip()
        parts = urlsplit(self.url)
        self.host, self.port = parts.hostname or "", parts.port or 0
        self.token = parts.query.removeprefix("token=")
        self.base = f"http://{parts.netloc}"

    def request(self, method: str, path: str, body: object = None, *, token: bool = True,
                headers: dict[str, str] | None = None) -> tuple[int, str]:
        """One request; its status and body text."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            sent = {"Content-Type": "application/json", **(headers or {})}
            if token:
                sent["Authorization"] = f"Bearer {self.token}"
            connection.request(method, path, None if body is None else json.dumps(body), sent)
            response = connection.getresponse()
            return response.status, response.read().decode()
        finally:
            connection.close()

    def post(self, path: str, body: object = None) -> tuple[int, dict[str, Any]]:
        status, text = self.request("POST", path, body if body is not None else {})
        return status, json.loads(text)

    def state(self) -> dict[str, Any]:
        status, text = self.request("GET", "/api/state")
        assert status == 200, text
        return dict(json.loads(text))

    def events(self, last_event_id: int = 0, until: str | None = None,
               path: str = "/events", body: object = None) -> list[tuple[int, dict[str, Any]]]:
        """SSE events (id, event) from ``path`` until one of type ``until`` (or the stream's
        end); ``body``: POST it (the AG-UI run endpoint)."""
        out = []
        for event_id, event in self.stream(last_event_id, path, body):
            out.append((event_id, event))
            if until is not None and event["type"] == until:
                break
        return out

    def stream(self, last_event_id: int = 0, path: str = "/events", body: object = None
               ) -> Iterator[tuple[int, dict[str, Any]]]:
        """SSE events (id, event) as they come."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream",
                   "Content-Type": "application/json"}
        if last_event_id:
            headers["Last-Event-ID"] = str(last_event_id)
        connection.request("GET" if body is None else "POST", path,
                           None if body is None else json.dumps(body), headers)
        response = connection.getresponse()
        assert response.status == 200, response.read()
        event_id = 0
        try:
            for raw in response:
                line = raw.decode().rstrip("\n")
                if line.startswith("id: "):
                    event_id = int(line[4:])
                elif line.startswith("data: "):
                    yield event_id, json.loads(line[6:])
        finally:
            connection.close()

    def stop(self) -> int:
        """SIGTERM; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise
        finally:
            if self.process.stdout:
                self.process.stdout.close()
        return code
