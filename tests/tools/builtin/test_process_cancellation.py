"""A command whose call is cancelled (its agent's tool timeout passed, the agent stopped, or
the agent's process died) is killed with everything it started, at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from autobyteus_like import Agent, AgentConfig, SandboxPolicy, ScriptedLLM, builtin_tools
from autobyteus_like.events import ApprovalRequested, ToolStarted
from tests.tools.builtin.test_process_cleanup import left_behind, live_processes_mentioning

__all__ = ["left_behind"]  # the fixture, used by the tests below


def run_call(sleeper: str) -> str:
    return json.dumps({"name": "terminal.run",
                       "arguments": {"cmd": ["sh", "-c", f"setsid {sleeper} 60 & {sleeper} 61"],
                                     "timeout_ms": 60000}})


@pytest.fixture
def sleeper(tmp_path):  # type: ignore[no-untyped-def]
    import shutil

    path = tmp_path / "sleeper"
    path.symlink_to(shutil.which("sleep"))
    return str(path)


def approve_all(agent: Agent, events) -> None:  # type: ignore[no-untyped-def]
    while not isinstance(event := events.get(timeout=10), ToolStarted):
        if isinstance(event, ApprovalRequested):
            agent.approve(event.invocation.id)


def test_the_agents_tool_timeout_kills_the_command(tmp_path, sleeper, left_behind):
    llm = ScriptedLLM([run_call(sleeper), "gave up"])
    config = AgentConfig(name="t", llm=llm, tools=["terminal.run"], tool_format="json",
                         tool_timeout_s=1, sandbox=SandboxPolicy(roots=[tmp_path]))
    with Agent(config, tools=builtin_tools()) as agent:
        events = agent.events()
        reply = agent.send("run it")
        approve_all(agent, events)
        assert reply.result(30) == "gave up"
        # The TIMEOUT went to the LLM; the command is being killed within the poll interval.
        deadline = time.monotonic() + 5  # the kernel gives no event for another's death
        while left_behind() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert left_behind() == []
    for thread in threading.enumerate():  # the cancelled call's thread ends once all is dead
        if thread.name.startswith("t-tool"):
            thread.join(10)
    assert "did not finish within 1 s" in llm.requests[1].messages[-1].content


def test_stopping_the_agent_kills_a_running_command(tmp_path, sleeper, left_behind):
    llm = ScriptedLLM([run_call(sleeper), "never"])
    config = AgentConfig(name="s", llm=llm, tools=["terminal.run"], tool_format="json",
                         sandbox=SandboxPolicy(roots=[tmp_path]))
    agent = Agent(config, tools=builtin_tools()).start()
    events = agent.events()
    agent.send("run it")
    approve_all(agent, events)
    while len(live_processes_mentioning(str(tmp_path))) < 2:  # both sleepers started
        time.sleep(0.02)
    agent.stop()
    deadline = time.monotonic() + 5
    while left_behind() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left_behind() == []
    for thread in threading.enumerate():
        if thread.name.startswith("s-tool"):
            thread.join(10)


def test_a_dead_agent_process_leaves_no_command_behind(tmp_path, sleeper, left_behind):
    script = textwrap.dedent(f"""
        import os, signal
        from autobyteus_like import SandboxPolicy
        from autobyteus_like.tools import ToolContext, builtin_tools
        context = ToolContext(sandbox=SandboxPolicy(roots=[{str(tmp_path)!r}]))
        tool = builtin_tools().get("terminal.run")
        tool.run({{"cmd": ["sh", "-c", "setsid {sleeper} 60 & {sleeper} 61"]}}, context)
    """)
    # Killed mid-call, it cannot remove its call's temporary directory: keep that in tmp_path.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    agent = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "TMPDIR": str(tmp)})
    try:
        while len(live_processes_mentioning(str(tmp_path))) < 2:
            assert agent.poll() is None
            time.sleep(0.02)
        os.kill(agent.pid, signal.SIGKILL)  # the worst moment: mid-call
        agent.wait(10)
        deadline = time.monotonic() + 5
        while left_behind() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert left_behind() == []
        assert [path.name[:16] for path in tmp.iterdir()] == ["autobyteus-call-"]
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()


def test_a_cancelled_call_is_a_timeout_saying_so(tmp_path):
    """The supervisor's ``cancelled`` report (it killed everything because the caller closed
    its stdin) is a TIMEOUT that says why, not a supervisor crash."""
    from autobyteus_like.errors import ToolFailure
    from autobyteus_like.tools import ToolContext
    from autobyteus_like.tools._context import CancelFlag

    cancel = CancelFlag()
    cancel.set()
    context = ToolContext(sandbox=SandboxPolicy(roots=[tmp_path], timeout_s=600),
                          cancelled=cancel)
    with pytest.raises(ToolFailure) as caught:
        builtin_tools().get("python.exec").run({"code": "while True: pass"}, context)
    assert caught.value.code == "TIMEOUT" and "was cancelled" in caught.value.message
