"""kill -9 at each stage of a tool call, then resume from the one snapshot: a process runs an
agent on a session (SQLite, and a real PostgreSQL server) and is killed exactly when a hook or
the tool says it reached a stage: the call committed as running but not started, the tool
midway through its effect, the result stored but not yet sent to the LLM, the next request
about to go out. A new process resumes; every call ran at most once (the tool appends to a
file, which survives the kill), a call that was running comes back INTERRUPTED with the one
wording (``ToolResult.interrupted``), a stored result is sent as stored, the results reach the
LLM in invocation order, and the turn ends with the model's answer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, ToolContext, tool
from autobyteus_like.history._messages import ToolResultsMessage
from autobyteus_like.store import Session
from autobyteus_like.tools._invocation import MAY_HAVE_RUN, ToolInvocation, ToolResult

FIRST = "".join(json.dumps({"name": "record", "arguments": {"note": n}}) for n in "ab")
SCRIPT = [FIRST, "done"]

CHILD = '''
import json, os, sys, time
from autobyteus_like import Agent, AgentConfig, AgentHooks, ScriptedLLM, ToolContext, tool
from autobyteus_like.store import Session

store, folder, stage = sys.argv[1], sys.argv[2], sys.argv[3]
SCRIPT = json.loads(sys.argv[4])
EXECUTION = sys.argv[5] if len(sys.argv) > 5 else None

def reached():
    with open(os.path.join(folder, "reached"), "w") as marker:
        marker.write(stage)
    time.sleep(3600)  # the parent kills this process now

@tool
def record(note: str, context: ToolContext) -> str:
    """Appends a note (an effect that must not happen twice)."""
    fd = os.open(os.path.join(folder, "effects"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, (note + "\\n").encode())
    os.close(fd)
    if stage == "during" and note == "a":
        reached()
    return "recorded " + note

class Stages(AgentHooks):  # called after the session writer stored the step
    def call_running(self, turn, call):
        if stage == "before_running" and call.position == 0:
            reached()
    def call_finished(self, turn, call):
        done = [c for c in turn.calls() if c.result is not None]
        if stage == "after_finished" and len(done) == 2:
            reached()
    def request_sent(self, turn, messages):
        if stage == "next_request" and turn.request_no == 2:
            reached()

config = AgentConfig(name="a", llm=ScriptedLLM(SCRIPT), tools=[record], tool_format="json",
                     hooks=[Stages()], tool_execution=EXECUTION)
with Agent(config, session=Session("s1", store)) as agent:
    agent.run("go", timeout=60)
'''

STAGES = ["before_running", "during", "after_finished", "next_request"]


def killed_when_reached(arguments: list[str], folder: Path, what: str) -> None:
    """Run ``python -c *arguments`` and kill -9 it once it writes ``folder/reached``
    (the test fails, saying it never reached ``what``, if it ends or takes 60 s first)."""
    child = subprocess.Popen([sys.executable, "-c", *arguments], stderr=subprocess.PIPE)
    marker = folder / "reached"
    deadline = time.monotonic() + 60
    while not marker.exists():
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            _, err = child.communicate()
            pytest.fail(f"the child never reached {what}: {err.decode()[-2000:]}")
        time.sleep(0.02)  # polling another process's file: there is no event to wait on
    os.kill(child.pid, signal.SIGKILL)
    child.communicate()
    assert child.returncode == -signal.SIGKILL


def _killed_at(store: str, folder: Path, stage: str, execution: str = "parallel") -> None:
    killed_when_reached([CHILD, store, str(folder), stage, json.dumps(SCRIPT), execution],
                        folder, stage)


def _effects(folder: Path) -> Counter[str]:
    path = folder / "effects"
    return Counter(path.read_text().split()) if path.exists() else Counter()


@pytest.mark.parametrize("stage", STAGES)
def test_killed_at_each_stage_of_a_call_the_session_resumes_exactly_once(
        stage: str, store_url: str, tmp_path: Path):
    _killed_at(store_url, tmp_path, stage)
    before = _effects(tmp_path)

    @tool
    def record(note: str, context: ToolContext) -> str:
        """Appends a note (an effect that must not happen twice)."""
        with open(tmp_path / "effects", "a") as effects:
            effects.write(note + "\n")
        return "recorded " + note

    llm = ScriptedLLM(SCRIPT)
    config = AgentConfig(name="a", llm=llm, tools=[record], tool_format="json")
    with Agent(config, session=Session("s1", store_url)) as agent:
        [resumed] = agent.resume()
        assert resumed.reply.result(timeout=30) == "done"
        history = agent.history
    effects = _effects(tmp_path)
    assert all(count == 1 for count in effects.values()), effects  # never twice
    [results] = [m for m in history if isinstance(m, ToolResultsMessage)]
    assert [r.invocation_id for r in results.results] == [
        c.id for m in history if getattr(m, "tool_calls", ()) for c in m.tool_calls]
    by_note = dict(zip("ab", results.results, strict=True))
    for note, result in by_note.items():
        if result.status == "success":
            assert effects[note] == 1
        else:  # cut while it ran: said once, the same way everywhere
            assert result.error is not None and result.error.code == "INTERRUPTED"
            wording = ToolResult.interrupted(ToolInvocation(id=result.invocation_id,
                                                            name="record"))
            assert result.error.message == wording.error.message  # type: ignore[union-attr]
            assert effects[note] == before[note] <= 1  # not run again
    if stage == "before_running":
        assert by_note["a"].status != "success" and before["a"] == 0
    if stage == "during":
        assert by_note["a"].status != "success" and before["a"] == 1
    if stage in ("after_finished", "next_request"):
        assert before == effects == Counter({"a": 1, "b": 1})  # nothing ran again
        assert [r.status for r in results.results] == ["success", "success"]
    assert len(llm.requests) == 1  # the resumed process asked once, with every result
    sent = llm.requests[0].messages[-1].content
    assert sent.index(by_note["a"].invocation_id) < sent.index(by_note["b"].invocation_id)


RESUMER = '''
import json, os, sys
from autobyteus_like import Agent, AgentConfig, ScriptedLLM, ToolContext, tool
from autobyteus_like.errors import SessionInUseError
from autobyteus_like.history._messages import ToolResultsMessage
from autobyteus_like.store import Session

store, folder, script = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])

@tool
def record(note: str, context: ToolContext) -> str:
    """Appends a note (an effect that must not happen twice)."""
    fd = os.open(os.path.join(folder, "effects"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, (note + "\\n").encode())
    os.close(fd)
    return "recorded " + note

config = AgentConfig(name="a", llm=ScriptedLLM(script), tools=[record], tool_format="json")
try:
    with Agent(config, session=Session("s1", store)) as agent:
        resumed = agent.resume()
        if not resumed:  # the other process finished it first
            print("nothing left")
        for turn in resumed:
            answer = turn.reply.result(timeout=60)
            [results] = [m for m in agent.history if isinstance(m, ToolResultsMessage)]
            print("results:" + json.dumps([[r.status, r.error.message if r.error else r.content]
                                           for r in results.results]))
            print("answered:" + answer)
except SessionInUseError as exc:
    print("refused:" + type(exc).__name__)
'''


def test_two_processes_racing_to_resume_a_killed_session_one_goes_on_nothing_runs_twice(
        store_url: str, tmp_path: Path):
    # Sequential calls, so the kill's moment fixes every stored state: a is RUNNING (killed in
    # its body, after its effect) and b is stored with the response but not started. With
    # parallel calls b may be committed RUNNING and killed before its body writes: it then
    # comes back INTERRUPTED ("may have run") and never runs, a timing the test cannot choose.
    _killed_at(store_url, tmp_path, "during", execution="sequential")
    assert _effects(tmp_path) == Counter({"a": 1})
    racers = [subprocess.Popen([sys.executable, "-c", RESUMER, store_url, str(tmp_path),
                                json.dumps(SCRIPT)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outcomes, results = [], []
    for racer in racers:
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0, err[-2000:]
        lines = out.strip().splitlines()
        outcomes.append(lines[-1])
        results += [json.loads(line[len("results:"):]) for line in lines
                    if line.startswith("results:")]
    assert outcomes.count("answered:done") == 1, outcomes  # one of them went on with it,
    assert {"refused:SessionInUseError", "nothing left"} & set(outcomes), outcomes  # not both
    effects = _effects(tmp_path)
    assert effects == Counter({"a": 1, "b": 1}), (effects, results)  # each ran once
    [[a, b]] = results  # the one that went on sent both, in invocation order: a was cut
    assert a[0] == "failure" and a[1].startswith(MAY_HAVE_RUN), results  # in its body,
    assert b == ["success", "recorded b"], results  # and b ran, in the resumer only
