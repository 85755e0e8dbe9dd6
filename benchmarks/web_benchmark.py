"""How fast ``autobyteus-like serve`` streams a run's AG-UI events to one client, against the team
producing the same events in-process with no web at all, same run.

    python benchmarks/web_benchmark.py        # about 30 s; the page part needs chromium

A scripted lead writes ``CHARS`` characters of prose one character per chunk, so each chunk is
one ``TEXT_MESSAGE_CONTENT`` event. "team alone" is ``AgentTeam`` in this process with an event
subscription drained as fast as it fills, no web: the time the run itself takes, given as the
run's AG-UI events over that time (the fastest any client could be served them). "live" is the
served team (a real ``serve`` subprocess) with one client reading ``GET /events`` over a socket
while the run goes on, from ``POST /api/run`` to ``RUN_FINISHED``. "replay" is a client reading
the whole stored run again from event 0 (the server's streaming alone, no team working). Then,
where Debian's chromium and Playwright are installed, the page: it is opened after a run,
replays every event, and is timed until it has drawn them all, with the longest task the
browser reported (a long task freezes the page).
"""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from autobyteus_like.team import AgentTeam, TeamConfig, TeamQuiescent

ROUNDS = 3
CHARS = 12_000
PROSE = ("Every member streams its thoughts; the page shows them as text. " * 400)[:CHARS]


def write_team(folder: Path) -> Path:
    path = folder / "bench.yaml"
    path.write_text(yaml.safe_dump({"name": "bench", "coordinator": "lead", "members": [{
        "name": "lead", "tool_format": "json",
        "llm": {"provider": "scripted", "chunk_size": 1, "responses": [PROSE] * ROUNDS}}]}))
    return path


def team_alone(team_file: Path) -> float:
    """Seconds the run takes with the team in this process and no web (best of ROUNDS)."""
    best = float("inf")
    team = AgentTeam(TeamConfig.from_yaml(team_file))
    with team:
        for _ in range(ROUNDS):
            events = team.events()
            started = time.perf_counter()
            team.send("go")
            while (event := events.get(timeout=120)) is not None:
                if isinstance(event, TeamQuiescent):
                    break
            best = min(best, time.perf_counter() - started)
            events.close()
    return best


class Served:
    def __init__(self, team_file: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autobyteus_like.cli._main", "serve", str(team_file)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().split(" on the web at ")[1].strip()
        parts = urlsplit(self.url)
        self.host, self.port = parts.hostname or "", parts.port or 0
        self.token = parts.query.removeprefix("token=")

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=120)

    def post(self, path: str, body: dict[str, Any]) -> None:
        connection = self.connection()
        connection.request("POST", path, json.dumps(body),
                           {"Authorization": f"Bearer {self.token}"})
        response = connection.getresponse()
        response.read()
        connection.close()
        assert response.status == 202, response.status

    def read_until_finished(self, after: int) -> tuple[int, int]:
        """Events read from ``after`` until a RUN_FINISHED; (count, last id)."""
        connection = self.connection()
        connection.request("GET", "/events", headers={
            "Authorization": f"Bearer {self.token}", "Last-Event-ID": str(after)})
        response = connection.getresponse()
        count = last = 0
        for line in response:
            if line.startswith(b"id: "):
                last = int(line[4:])
            elif line.startswith(b"data: "):
                count += 1
                if line.startswith(b'data: {"type":"RUN_FINISHED"'):
                    break
        connection.close()
        return count, last

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)
        if self.process.stdout:
            self.process.stdout.close()


def web(team_file: Path) -> tuple[float, float, int, Served]:
    """(live, replay) AG-UI events per second, the events of one run; the server, running."""
    served = Served(team_file)
    live = replay = 0.0
    last = 0
    run_events = 0
    for _ in range(ROUNDS):
        started = time.perf_counter()
        served.post("/api/run", {"message": "go"})
        count, end = served.read_until_finished(last)
        live = max(live, count / (time.perf_counter() - started))
        run_events, last = count, end
    for _ in range(ROUNDS):
        started = time.perf_counter()
        count, _ = served.read_until_finished(0)  # the first run, from the log
        replay = max(replay, count / (time.perf_counter() - started))
    return live, replay, run_events, served


def page(served: Served) -> tuple[float, float, int] | None:
    """(seconds to draw every event, longest task in ms, events) in a real browser."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path("/usr/bin/chromium").exists():
        return None
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path="/usr/bin/chromium", headless=True, args=args)
        browser_page = context.pages[0] if context.pages else context.new_page()
        browser_page.add_init_script(
            "window.__longest = 0; new PerformanceObserver(l => { for (const e of "
            "l.getEntries()) window.__longest = Math.max(window.__longest, e.duration); })"
            ".observe({entryTypes: ['longtask']});")
        started = time.perf_counter()
        browser_page.goto(served.url)
        connection = served.connection()
        connection.request("GET", "/api/state", headers={
            "Authorization": f"Bearer {served.token}"})
        total = int(json.loads(connection.getresponse().read())["last_event_id"])
        connection.close()
        browser_page.wait_for_function(
            f"() => Number(document.body.dataset.drawn || 0) >= {total}", timeout=300_000)
        seconds = time.perf_counter() - started
        longest = float(browser_page.evaluate("window.__longest"))
        context.close()
    return seconds, longest, total


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        team_file = write_team(Path(folder))
        alone_seconds = team_alone(team_file)
        live, replay, events, served = web(team_file)
        alone = events / alone_seconds
        try:
            drawn = page(served)
        finally:
            served.stop()
    print(f"one run: {events} AG-UI events ({CHARS} text deltas), best of {ROUNDS}")
    print(f"team alone, in-process, no web (events/s)    {alone:10,.0f}  "
          f"(the run in {alone_seconds:.2f} s)")
    print(f"served, live to one client (events/s)        {live:10,.0f}  "
          f"{live / alone:.2f}x the team alone")
    print(f"served, replay of a stored run (events/s)    {replay:10,.0f}  "
          f"{replay / alone:.2f}x the team alone")
    if drawn is None:
        print("page: n/a (needs chromium and playwright)")
    else:
        seconds, longest, total = drawn
        print(f"page: {total} events replayed and drawn in {seconds:.2f} s "
              f"({total / seconds:,.0f} events/s); longest task {longest:.0f} ms")


if __name__ == "__main__":
    main()
