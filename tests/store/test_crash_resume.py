"""Crash and resume, for real: a scripted team runs as a subprocess (the CLI, on a session), is
killed with SIGKILL at random moments (hypothesis chooses them), and is resumed until done.

Checked against an uninterrupted run of the same team: every member's assistant messages, its
calls (names, arguments, ids) and its turns' answers are the same; each result is the same,
except that a call killed while it ran may come back INTERRUPTED (the LLM is told so) when its
tool is not idempotent; no such tool ran twice (the tools append to a file, which survives the
kill); every result and answer a run printed is in the store as printed; and the database
passes its own integrity check. On SQLite and on a real PostgreSQL server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like.store import open_store
from tests.stress_rounds import rounds

TOOLS = '''
import os
import time
from autobyteus_like import ToolContext, ToolRegistry, tool

def _effect(context: ToolContext, what: str) -> None:
    fd = os.open("effects.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, f"{context.agent} {context.invocation_id} {what}\\n".encode())
    finally:
        os.close(fd)

def make_tools():
    @tool
    def record(note: str, context: ToolContext) -> str:
        """Appends a note (a side effect that must not happen twice)."""
        _effect(context, "record")
        time.sleep(0.05)
        return f"recorded {note}"

    @tool(idempotent=True)
    def measure(text: str, context: ToolContext) -> int:
        """Counts words (safe to repeat)."""
        _effect(context, "measure")
        time.sleep(0.05)
        return len(text.split())

    return ToolRegistry([record, measure])
'''

TEAM = '''
name: crashy
coordinator: lead
members:
  - name: lead
    llm:
      provider: scripted
      imitates: anthropic
      responses:
        - |
          Recording, then delegating.
          <tool name="record"><arguments><arg name="note">plan</arg></arguments></tool>
          <tool name="send_message_to"><arguments><arg name="recipient_name">worker</arg>
          <arg name="content">measure and record the draft</arg></arguments></tool>
        - Waiting for the worker.
        - "All done: the worker reported."
    tools: [record, send_message_to]
  - name: worker
    llm:
      provider: scripted
      imitates: openai
      responses:
        - |
          {"tool_calls": [
            {"type": "function", "function": {"name": "measure", "arguments": {"text": "a b c"}}},
            {"type": "function", "function": {"name": "record", "arguments": {"note": "draft"}}},
            {"type": "function", "function": {"name": "measure", "arguments": {"text": "d e"}}}
          ]}
        - |
          {"tool_calls": [{"type": "function", "function": {"name": "send_message_to",
            "arguments": {"recipient_name": "lead", "content": "measured and recorded"}}}]}
        - Reported.
    tools: [record, measure, send_message_to]
'''


def _command(folder: Path, store: str, message: str | None) -> list[str]:
    command = [sys.executable, "-m", "autobyteus_like.cli", "run", "team.yaml", "--tools",
               "tools.py:make_tools", "--session", "s", "--store", store, "--json", "--yes"]
    return command + (["--message", message] if message is not None else [])


def _needs_message(store_url: str) -> bool:
    """Whether the session has not yet received the user's message (start it, not resume)."""
    store = open_store(store_url)
    try:
        return store.session("s") is None or not store.mail("s")
    finally:
        store.close()


def _run(folder: Path, store: str, kill_after: float | None) -> tuple[int, str, float]:
    """One CLI run, killed ``kill_after`` seconds after its first event (None: not killed);
    its exit code, its output and how long it ran after its first event."""
    message = "go" if _needs_message(store) else None
    child = subprocess.Popen(_command(folder, store, message), cwd=folder,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert child.stdout is not None
    first = child.stdout.readline()  # the team is running (imports and start are behind)
    began = time.perf_counter()
    if kill_after is not None:
        try:
            child.wait(kill_after)  # the random moment: the kill lands wherever the run is
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
    out, err = child.communicate(timeout=120)
    return child.returncode, first + out + "\n" + err, time.perf_counter() - began


def _shown(output: str) -> tuple[dict[tuple[str, str], Any], list[tuple[str, str]]]:
    """The results and turn answers a run printed (its --json lines)."""
    results: dict[tuple[str, str], Any] = {}
    answers = []
    for line in output.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("type") == "ToolResultReceived":
            result = event["result"]
            results[(event["agent"], result["invocation_id"])] = result
        elif event.get("type") == "TurnCompleted" and event.get("error") is None:
            answers.append((event["agent"], event["answer"]))
    return results, answers


def _state(store_url: str) -> dict[str, Any]:
    store = open_store(store_url)
    try:
        assert store.integrity_problems() == []
        state: dict[str, Any] = {}
        for agent in store.agents("s"):
            state[agent] = {
                "assistant": [m.content for m in store.history("s", agent)
                              if m.role == "assistant"],
                "calls": [(c.invocation_id, c.name, c.arguments, c.state.value, c.result)
                          for c in store.calls("s", agent)],
                "answers": [t.answer for t in store.turns("s", agent)],
                "turn_states": [t.state for t in store.turns("s", agent)],
            }
        state["mail"] = [(m.sender, m.recipient, m.content, m.state.value)
                         for m in store.mail("s")]
        return state
    finally:
        store.close()


def assert_same_end(state: dict[str, Any], expected: dict[str, Any], effects: list[str],
                    output: str, where: str = "") -> None:
    """What a disturbed run and its resumes stored is what the undisturbed run stored: each
    member's responses, answers and calls (a ``record`` call cut mid-run may be INTERRUPTED
    instead), no non-idempotent call ran twice, and every result the runs printed is stored
    as printed."""
    for agent in ("lead", "worker"):
        got, want = state[agent], expected[agent]
        assert got["assistant"] == want["assistant"], where
        assert got["answers"] == want["answers"], where
        assert len(got["calls"]) == len(want["calls"]), where
        for (cid, name, args, status, result), (wid, wname, wargs, wstatus, wresult) in zip(
                got["calls"], want["calls"], strict=True):
            assert (cid, name, args) == (wid, wname, wargs), where
            interrupted = status == "interrupted" and name == "record"
            assert interrupted or (status, result) == (wstatus, wresult), where
    runs_of = Counter(line.split()[1] for line in effects if line.endswith(" record"))
    assert set(runs_of.values()) == {1}, f"a non-idempotent tool ran twice: {runs_of} {where}"
    shown_results, _ = _shown(output)
    stored = {(agent, cid): result for agent in ("lead", "worker")
              for cid, _, _, _, result in state[agent]["calls"]}
    for key, result in shown_results.items():
        assert stored[key] == result, f"shown but not stored as shown: {key} {where}"


def _project(folder: Path) -> Path:
    (folder / "tools.py").write_text(TOOLS)
    (folder / "team.yaml").write_text(TEAM)
    return folder


@pytest.fixture(params=["sqlite", "postgres"])
def new_store(request):
    """A function making a fresh, empty store location per run."""
    if request.param == "sqlite":
        def sqlite(folder: Path) -> str:
            return str(folder / "s.db")
        return sqlite
    server = request.getfixturevalue("postgres_server")
    return lambda folder: server.new_database()


def _run_to_the_end(new_store, kills: list[float]) -> tuple[dict[str, Any], list[str], str]:
    with tempfile.TemporaryDirectory() as name:
        folder = _project(Path(name))
        store = new_store(folder)
        outputs = []
        for kill_after in kills:
            outputs.append(_run(folder, store, kill_after)[1])
        for _ in range(6):  # resumes with no kill: each must make progress and end cleanly
            code, output, active = _run(folder, store, None)
            outputs.append(output)
            if "has nothing unfinished" in output:  # finished: resuming shows its outcome
                assert code == 0, output
                break
            if not kills and code == 0:
                ACTIVE.append(active)
            assert code == 0, output
        else:
            pytest.fail("the session never finished:\n" + "\n".join(outputs[-2:]))
        effects = (folder / "effects.log").read_text().splitlines()
        return _state(store), effects, "\n".join(outputs)


ACTIVE: list[float] = []
"""How long uninterrupted runs ran after their first event (where kills are worth aiming)."""


@pytest.fixture
def reference(new_store):
    state, effects, _ = _run_to_the_end(new_store, [])
    return state, effects, max(ACTIVE[-1], 0.05)


@pytest.mark.slow  # many CLI runs, killed and resumed: seconds
def test_killed_at_random_moments_the_session_resumes_to_the_same_end(new_store, reference):
    expected, expected_effects, duration = reference
    assert expected["lead"]["answers"][-1] == "All done: the worker reported."
    assert sorted(line.split()[-1] for line in expected_effects) == [
        "measure", "measure", "record", "record"]

    @settings(max_examples=rounds(2, 5), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=2))
    def killed(fractions: list[float]) -> None:
        state, effects, output = _run_to_the_end(new_store, [f * duration for f in fractions])
        assert_same_end(state, expected, effects, output)
        for agent in ("lead", "worker"):
            assert set(state[agent]["turn_states"]) == {"done"}
        assert state["mail"] == expected["mail"]
        for agent, answer in _shown(output)[1]:
            assert answer in state[agent]["answers"]

    killed()
