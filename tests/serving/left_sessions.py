"""Sessions a real ``autobyteus-like run`` process left unfinished: killed (SIGKILL) while its
tool ran, so its turn is open in the store with a call that has no result."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

TOOLS = f"{Path(__file__).parent / 'team_tools.py'}:TOOLS"


def call(name: str, **arguments: object) -> str:
    """A call in the json tool format, as a scripted model writes it."""
    return json.dumps({"name": name, "arguments": arguments})


def waiting_team(folder: Path, then: list[Any], name: str = "lefteam") -> Path:
    """A one-member team whose first answer calls ``wait`` (60 s; it writes 'started' to
    ``folder/marker``), then answers ``then`` in order."""
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"name": name, "coordinator": "lead", "members": [
        {"name": "lead", "tool_format": "json", "tools": ["wait", "echo"],
         "llm": {"provider": "scripted",
                 "responses": [call("wait", seconds=60, marker=str(folder / "marker")),
                               *then]}}]}))
    return path


def killed_mid_tool(team: Path, session: str, *extra: str, timeout: float = 60) -> None:
    """Run ``team`` on a message in ``session``; SIGKILL the process once its tool runs."""
    marker = team.parent / "marker"
    marker.unlink(missing_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "autobyteus_like.cli", "run", str(team), "--tools", TOOLS,
         "--session", session, "-m", "wait for it", "--json", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=team.parent)
    try:
        deadline = time.monotonic() + timeout
        while not (marker.exists() and marker.read_text() == "started"):  # nothing signals it
            if process.poll() is not None or time.monotonic() > deadline:
                error = process.stderr.read().decode() if process.stderr else ""
                raise AssertionError(f"the run never reached its tool: {error}")
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        if process.stderr:
            process.stderr.close()


def assert_cut_then_fresh(store: Any, session: str, error: str, text: str, answer: str) -> None:
    """The lead's stored turns in ``session`` are the one left (failed with ``error``, its one
    call INTERRUPTED) and a fresh one (``text`` answered ``answer``). ``store``: a
    ``SessionStore``, or the path of one (opened and closed here)."""
    from autobyteus_like.store import open_store

    opened = open_store(str(store)) if isinstance(store, (str, Path)) else None
    kept = opened if opened is not None else store
    try:
        left, fresh = kept.turns(session, "lead")
        assert (left.state, left.error) == ("failed", error)
        assert [c.state.value for c in kept.calls(session, "lead", left.turn_id)] == [
            "interrupted"]
        assert (fresh.text, fresh.answer) == (text, answer)
    finally:
        if opened is not None:
            opened.close()
