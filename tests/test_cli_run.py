"""``run --timeout`` bounds the run, not the team's start-up: a real MCP server that takes
longer than the timeout to start does not fail a run that then takes a moment, and a run that
goes on past the timeout is still stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("mcp", reason="the mcp extra is not installed")
pytestmark = pytest.mark.slow  # an MCP server that takes seconds to start, on purpose

SDK_SERVER = str(Path(__file__).parent / "mcp" / "servers" / "sdk_server.py")
TOOLS = f"{Path(__file__).parent / 'serving' / 'team_tools.py'}:TOOLS"
START_S = 4.0
"""How long the MCP server takes to start (a sleep before it serves)."""


def slow_start_team(folder: Path, responses: list[str], start_s: float = START_S) -> Path:
    path = folder / "slow.yaml"
    path.write_text(yaml.safe_dump({
        "name": "slow", "coordinator": "lead",
        "mcp_servers": {"fixture": {
            "command": "sh", "args": ["-c", f'sleep {start_s}; exec "$0" "$1" stdio',
                                      sys.executable, SDK_SERVER]}},
        "members": [{"name": "lead", "tool_format": "json", "tools": ["fixture.echo", "wait"],
                     "llm": {"provider": "scripted", "responses": responses}}]}))
    return path


def run(team: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autobyteus_like.cli", "run", str(team), "--tools", TOOLS,
         "-m", "go", "--json", "--timeout", f"{timeout:g}"],
        capture_output=True, text=True, timeout=120, cwd=team.parent)


def test_the_timeout_does_not_count_the_start_up(tmp_path):
    team = slow_start_team(tmp_path, ['{"name": "fixture.echo", "arguments": {"text": "x"}}',
                                      "Done."])
    done = run(team, START_S - 1)  # shorter than the MCP server's start alone
    assert done.returncode == 0, done.stderr
    assert '"answer": "Done."' in done.stdout


def test_the_timeout_still_bounds_the_run(tmp_path):
    marker = tmp_path / "marker"
    team = slow_start_team(tmp_path, [  # a start of a second is enough to be left out here
        f'{{"name": "wait", "arguments": {{"seconds": 60, "marker": "{marker}"}}}}', "never"],
        start_s=1)
    stopped = run(team, 2)
    assert stopped.returncode == 1, stopped.stderr
    assert stopped.stderr.strip().splitlines()[-1] == (
        "error: the team was still busy after 2 s; stopped it")
    assert marker.read_text() == "cancelled"  # the run's tool was stopped with it
