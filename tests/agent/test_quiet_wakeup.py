"""An agent's threads give up preempting the thread that wakes them (Linux's SCHED_BATCH)."""

from __future__ import annotations

import json
import os
import threading

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.agent._quiet_wakeup import wake_quietly


def _policy_can_be_set() -> bool:
    result: list[bool] = []
    probe = threading.Thread(target=lambda: result.append(wake_quietly()))
    probe.start()
    probe.join()
    return result == [True]


@pytest.mark.skipif(not _policy_can_be_set(), reason="SCHED_BATCH cannot be set here (not "
                    "Linux, or a sandbox forbids it)")
def test_the_agents_threads_are_batch_and_the_callers_thread_is_left_alone():
    @tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    llm = ScriptedLLM([json.dumps({"name": "noop", "arguments": {}}), "done"])
    caller_policy = os.sched_getscheduler(0)
    before = set(threading.enumerate())
    with Agent(AgentConfig(name="quiet", llm=llm, tools=[noop], tool_format="json")) as agent:
        assert agent.run("go", timeout=10) == "done"
        started = set(threading.enumerate()) - before
        policies = {thread.name: os.sched_getscheduler(thread.native_id) for thread in started}
    assert len(policies) == 3, policies  # the actor, the LLM worker, the tool's thread
    assert set(policies.values()) == {os.SCHED_BATCH}, policies
    assert os.sched_getscheduler(0) == caller_policy


def test_where_the_policy_cannot_be_set_the_thread_keeps_the_default(monkeypatch):
    def forbidden(*_: object) -> None:
        raise PermissionError("not allowed in this sandbox")

    monkeypatch.setattr(os, "sched_setscheduler", forbidden, raising=False)
    assert wake_quietly() is False
    monkeypatch.delattr(os, "sched_setscheduler")
    assert wake_quietly() is False
