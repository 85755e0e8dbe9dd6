"""A run's budget is stored with its session: a run killed with SIGKILL and resumed counts on
from what it had spent, so ``max_llm_calls`` and ``max_tool_calls`` hold across both processes.

The team runs as the real command line in a subprocess, on SQLite and on a real PostgreSQL; its
model is OpenAI's SDK pointed at a local server that counts every request it gets, and its tool
appends a line to a file each time its body starts (both survive the kill).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, UsageLimits, tool
from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.store import Session
from tests.llm.replay_server import ReplayServer, Stream

TOOLS = '''
import os
import time
from pathlib import Path
from autobyteus_like import ToolRegistry, tool

def make_tools():
    @tool
    def step(n: int) -> str:
        """One step of the work (its body is counted in bodies.log)."""
        fd = os.open("bodies.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, f"{n}\\n".encode())
        finally:
            os.close(fd)
        while n >= 2 and Path("block").exists():  # the test kills the process here
            time.sleep(0.02)
        return f"step {n} done"

    return ToolRegistry([step])
'''

TEAM = '''
name: budgeted
coordinator: lead
limits: {max_llm_calls: 4, max_tool_calls: 3}
members:
  - name: lead
    tool_format: json
    tools: [step]
    llm: {provider: openai, model: gpt-4o-mini, base_url: "URL", api_key_env: TEST_KEY,
          max_retries: 0}
'''


def _reply(n: int) -> Stream:
    """A response calling ``step`` (with token usage, as OpenAI reports it)."""
    base = {"id": f"c{n}", "object": "chat.completion.chunk", "created": 0,
            "model": "gpt-4o-mini"}
    text = json.dumps({"name": "step", "arguments": {"n": n}})
    return Stream([
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text},
                              "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                          "total_tokens": 15}},
    ])


def _command(store: str, message: str | None) -> list[str]:
    command = [sys.executable, "-m", "autobyteus_like.cli", "run", "team.yaml", "--tools",
               "tools.py:make_tools", "--session", "s", "--store", store, "--json", "--yes"]
    return command + (["--message", message] if message is not None else [])


def _bodies(folder: Path) -> list[str]:
    path = folder / "bodies.log"
    return path.read_text().split() if path.exists() else []


@pytest.mark.slow  # two command-line runs in subprocesses
def test_a_killed_run_resumes_with_the_budget_it_had_spent(tmp_path, store_url):
    folder = tmp_path
    env = {**os.environ, "TEST_KEY": "k", "PYTHONUNBUFFERED": "1"}
    with ReplayServer([_reply(n) for n in range(1, 11)]) as server:
        (folder / "tools.py").write_text(TOOLS)
        (folder / "team.yaml").write_text(TEAM.replace("URL", server.base_url))
        (folder / "block").touch()
        first = subprocess.Popen(_command(store_url, "go"), cwd=folder, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while len(_bodies(folder)) < 2 and first.poll() is None:  # the 2nd body is running
                assert time.monotonic() < deadline, "the run never reached its second call"
                time.sleep(0.02)
            assert first.poll() is None, first.communicate()
            first.send_signal(signal.SIGKILL)
        finally:
            first.kill()
            first.communicate()
        assert (len(server.requests), _bodies(folder)) == (2, ["1", "2"])

        (folder / "block").unlink()
        second = subprocess.run(_command(store_url, None), cwd=folder, env=env,
                                capture_output=True, text=True, timeout=120)
        requests = len(server.requests)
    assert second.returncode == 1, second.stderr  # the run ended on its limit
    assert "max_tool_calls=3" in second.stderr  # its 4th call was refused
    # both processes together made no more than the limits allow
    assert requests == 4
    assert _bodies(folder) == ["1", "2", "3"]
    # and what the resumed process reports is the run's whole usage, both processes' work
    summary = json.loads(second.stdout.splitlines()[-1])
    assert summary["type"] == "RunSummary"
    run = summary["usage"]["run"]
    assert (run["llm_calls"], run["tool_calls"]) == (4, 3)
    assert (run["input_tokens"], run["output_tokens"]) == (40, 20)
    assert summary["usage"]["members"]["lead"]["llm_calls"] == 4


def _guarded_agent(store_url: str, limits: UsageLimits, replies: list[str]) -> Agent:
    @tool(requires_approval=True)
    def guarded(x: int) -> str:
        """Needs a person's approval."""
        return f"guarded {x}"

    config = AgentConfig(name="a", llm=ScriptedLLM(replies), tools=["guarded"],
                         tool_format="json", auto_execute_tools=False,
                         approval_policy="marked", limits=limits)
    return Agent(config, tools=[guarded], session=Session("s1", store_url))


def _until_waiting(agent: Agent, events) -> str:
    for event in iter(lambda: events.get(timeout=10), None):
        if isinstance(event, ApprovalRequested):
            return event.invocation.id
    raise AssertionError("no call waited")


def test_an_agent_left_waiting_goes_on_with_its_run_budget_and_a_done_one_starts_afresh(
        store_url):
    step = json.dumps({"name": "guarded", "arguments": {"x": 1}})
    replies = [step, step, "a new run"]
    first = _guarded_agent(store_url, UsageLimits(max_llm_calls=2), replies)
    with first:  # one request, then the process stops while its call waits for a person
        events = first.events()
        first.send("go")
        _until_waiting(first, events)
    first.session.close()

    second = _guarded_agent(store_url, UsageLimits(max_llm_calls=2), replies)
    with second:  # the same run goes on: one request left of its two
        assert second.usage.run.llm_calls == 1
        events = second.events()
        [turn] = second.resume()
        second.approve(_until_waiting(second, events))
        second.approve(_until_waiting(second, events))  # the 2nd request's call
        with pytest.raises(UsageLimitExceededError, match="max_llm_calls=2"):
            turn.reply.result(10)  # its 3rd request would cross the run's limit
        assert second.usage.run.llm_calls == 2
    second.session.close()

    third = _guarded_agent(store_url, UsageLimits(max_llm_calls=2), replies)
    with third:  # the session was left done: a new run, from zero
        assert third.usage.run.llm_calls == 0
        assert third.run("again", timeout=10) == "a new run"
        assert third.usage.run.llm_calls == 1
    third.session.close()
