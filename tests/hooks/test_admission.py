"""Admission: a request or call admitted by the hooks' ``claim`` and then not made is released,
so usage counts only what was made: a later hook refuses it (or raises), a call times out
waiting for a thread, the agent stops while a call waits for one; a run budget gives the count
back to its team's too."""

from __future__ import annotations

import json
import threading

import pytest

from autobyteus_like import Agent, AgentConfig, AgentHooks, ScriptedLLM, ToolContext, tool
from autobyteus_like.errors import AgentTurnError, UsageLimitExceededError
from autobyteus_like.hooks import compose
from autobyteus_like.usage._budget import RunBudget
from autobyteus_like.usage._limits import UsageLimits


class Counter(AgentHooks):
    """Admits everything, counting; gives back what it is told was not made."""

    def __init__(self) -> None:
        self.count = 0

    def claim(self, turn: object, kind: object) -> UsageLimitExceededError | None:
        self.count += 1
        return None

    def release(self, turn: object, kind: object) -> None:
        self.count -= 1


class Refusing(AgentHooks):
    def __init__(self, raises: bool = False) -> None:
        self.raises = raises

    def claim(self, turn: object, kind: object) -> UsageLimitExceededError | None:
        if self.raises:
            raise RuntimeError("the policy store is down")
        return UsageLimitExceededError("agent 'a'", "max_tool_calls", 0, 1, refused=True)


def test_a_later_hook_s_refusal_or_failure_releases_the_earlier_admissions():
    first, second = Counter(), Counter()
    refusal = compose([first, second, Refusing(), Counter()]).claim(object(), "tool_calls")
    assert refusal is not None and first.count == second.count == 0
    hooks = compose([first, Refusing(raises=True)])
    with pytest.raises(RuntimeError, match="policy store"):
        hooks.claim(object(), "llm_calls")
    assert first.count == 0
    admitted = compose([first, second])
    assert admitted.claim(object(), "llm_calls") is None and first.count == second.count == 1
    admitted.release(object(), "llm_calls")
    assert first.count == second.count == 0


def test_a_member_s_release_gives_the_count_back_to_its_team_s_run():
    team = RunBudget(UsageLimits(max_tool_calls=1), "team 't'")
    member = RunBudget(None, "agent 'a'", parent=team)
    assert member.claim("tool_calls") is None
    assert member.claim("tool_calls") is not None  # the team's last call is taken
    member.release("tool_calls")  # not made after all
    assert (member.totals.tool_calls, team.totals.tool_calls) == (0, 0)
    assert member.claim("tool_calls") is None  # so another may take it


def _two_calls() -> str:
    return (json.dumps({"name": "hold", "arguments": {}})
            + json.dumps({"name": "quick", "arguments": {}}))


def test_a_call_that_times_out_waiting_for_a_thread_is_not_counted():
    quick_over = threading.Event()
    started: list[str] = []

    class Watch(AgentHooks):
        def call_finished(self, turn: object, call: object) -> None:
            if call.invocation.name == "quick":  # type: ignore[attr-defined]
                quick_over.set()

    @tool(timeout_s=5)
    def hold() -> str:
        """Hold the only tool thread until quick timed out."""
        started.append("hold")
        quick_over.wait(5)
        return "held"

    @tool(timeout_s=0.2)
    def quick() -> str:
        """Never reached: it waits behind hold."""
        started.append("quick")
        return "quick"

    config = AgentConfig(name="a", llm=ScriptedLLM([_two_calls(), "done"]),
                         tools=[hold, quick], tool_format="json", max_parallel_tools=1,
                         tool_execution="parallel", hooks=[Watch()])
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"
        usage = agent.usage.run
    assert started == ["hold"]
    assert usage.tool_calls == 1  # quick was admitted, never began: given back


def test_a_call_still_waiting_for_a_thread_when_the_agent_stops_is_not_counted():
    holding = threading.Event()
    started: list[str] = []

    @tool
    def hold(context: ToolContext) -> str:
        """Hold the only tool thread until the agent stops."""
        started.append("hold")
        holding.set()
        while not context.cancelled.is_set():
            threading.Event().wait(0.01)  # the flag is made to be polled
        return "held"

    @tool
    def quick() -> str:
        """Never reached: it waits behind hold."""
        started.append("quick")
        return "quick"

    config = AgentConfig(name="a", llm=ScriptedLLM([_two_calls(), "done"]),
                         tools=[hold, quick], tool_format="json", max_parallel_tools=1,
                         tool_execution="parallel")
    agent = Agent(config)
    with agent:
        agent.send("go")
        assert holding.wait(5)
    assert started == ["hold"]
    assert agent.usage.run.tool_calls == 1  # quick was admitted, never began: given back


@pytest.mark.parametrize("point", ["request_sent", "call_running"])
def test_a_hook_that_fails_after_the_claim_leaves_the_request_or_call_uncounted(point):
    started: list[str] = []

    def fail_once(self: AgentHooks, *args: object) -> None:
        if not self.failed:  # type: ignore[attr-defined]
            self.failed = True  # type: ignore[attr-defined]
            raise RuntimeError(f"cannot record {point}")

    Failing = type("Failing", (AgentHooks,), {point: fail_once, "failed": False})

    @tool
    def note() -> str:
        """Note it."""
        started.append("note")
        return "noted"

    llm = ScriptedLLM([json.dumps({"name": "note", "arguments": {}}), "done", "again"])
    config = AgentConfig(name="a", llm=llm, tools=[note], tool_format="json",
                         hooks=[Failing()])
    with Agent(config) as agent:
        with pytest.raises(AgentTurnError, match=f"Failing.{point} raised"):
            agent.run("go", timeout=10)
        usage = agent.usage.run
    assert (usage.llm_calls, usage.tool_calls) == (len(llm.requests), len(started))
