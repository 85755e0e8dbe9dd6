"""One response with many calls, every outcome mixed (success, a tool that raises, an unknown
tool, bad arguments, approved, denied), parallel or sequential, under a max_tool_calls limit
or none; hypothesis chooses. Whatever it chooses, through the public API: the turn ends (never
hangs, never ends silently), each tool body runs at most once, the usage counts exactly the
calls that ran (never one refused), the hooks see each call finish at most once and the turn
end once, and without a limit crossed the LLM gets every result once, in invocation order,
each with the status its outcome calls for."""

from __future__ import annotations

import contextlib
import json
import threading
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobyteus_like import Agent, AgentConfig, AgentHooks, ScriptedLLM, UsageLimits, tool
from autobyteus_like.errors import AutobyteusLikeError, UsageLimitExceededError
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.history._messages import ToolResultsMessage

OUTCOMES = ["ok", "raises", "unknown", "bad_args", "approved", "denied"]
EXPECTED = {"ok": None, "raises": "any", "unknown": "UNKNOWN_TOOL", "bad_args": "INVALID_ARGS",
            "approved": None, "denied": "DENIED"}
RUNS = {"ok", "raises", "approved"}  # the outcomes whose body starts (each claims a call)


def _call(tag: str, outcome: str) -> str:
    name, arguments = {
        "ok": ("work", {"tag": tag, "text": "x"}),
        "raises": ("crash", {"tag": tag}),
        "unknown": ("nosuch", {"tag": tag}),
        "bad_args": ("work", {"tag": tag}),  # text is missing
        "approved": ("guarded", {"tag": tag}),
        "denied": ("guarded", {"tag": tag}),
    }[outcome]
    return json.dumps({"name": name, "arguments": arguments})


class Watch(AgentHooks):
    def __init__(self) -> None:
        self.finished: Counter[str] = Counter()
        self.ended = 0

    def call_finished(self, turn: object, call: object) -> None:
        self.finished[call.invocation.id] += 1  # type: ignore[attr-defined]

    def turn_ended(self, turn: object, messages: Sequence[object], answer: str,
                   error: str | None) -> None:
        self.ended += 1


@settings(max_examples=40)
@given(outcomes=st.lists(st.sampled_from(OUTCOMES), min_size=1, max_size=5),
       execution=st.sampled_from(["parallel", "sequential"]),
       limit=st.none() | st.integers(min_value=0, max_value=4))
def test_any_mix_of_outcomes_ends_the_turn_with_each_call_once_in_order(
        outcomes: list[str], execution: str, limit: int | None):
    ran: Counter[str] = Counter()
    lock = threading.Lock()

    def body(tag: str) -> None:
        with lock:
            ran[tag] += 1

    @tool
    def work(tag: str, text: str) -> str:
        """Work."""
        body(tag)
        return "worked " + tag

    @tool
    def crash(tag: str) -> str:
        """Crash."""
        body(tag)
        raise RuntimeError("crashed " + tag)

    @tool(requires_approval=True)
    def guarded(tag: str) -> str:
        """Guarded."""
        body(tag)
        return "guarded " + tag

    tags = [f"c{i}" for i in range(len(outcomes))]
    decisions = dict(zip(tags, outcomes, strict=True))
    watch = Watch()
    config = AgentConfig(
        name="a", llm=ScriptedLLM(["".join(map(_call, tags, outcomes)), "done"]),
        tools=[work, crash, guarded], tool_format="json", tool_execution=execution,
        auto_execute_tools=False, approval_policy="marked", hooks=[watch],
        limits=None if limit is None else UsageLimits(max_tool_calls=limit))
    with Agent(config) as agent:
        events = agent.events()
        reply = agent.send("go")
        while not reply.done():
            event = events.get(timeout=20)
            assert event is not None, "the agent went quiet before the turn ended"
            if isinstance(event, ApprovalRequested):
                tag = event.invocation.arguments["tag"]
                with contextlib.suppress(AutobyteusLikeError):  # the run may have ended
                    if decisions[tag] == "approved":
                        agent.approve(event.invocation.id)
                    else:
                        agent.deny(event.invocation.id, "no")
        history = agent.history
        usage = agent.usage.run
    assert all(count == 1 for count in ran.values()), ran  # no body twice
    assert usage.tool_calls == sum(ran.values())  # counted exactly what ran
    assert set(ran) <= {tag for tag, outcome in decisions.items() if outcome in RUNS}
    assert watch.ended == 1
    assert all(count == 1 for count in watch.finished.values())
    would_run = sum(outcome in RUNS for outcome in outcomes)
    if limit is not None and would_run > limit:
        error = reply.exception(timeout=0)
        assert isinstance(error, UsageLimitExceededError) and error.limit == "max_tool_calls"
        assert sum(ran.values()) == limit  # every allowed call ran; none beyond
        return
    assert reply.result(timeout=0) == "done"
    assert set(ran) == {tag for tag, outcome in decisions.items() if outcome in RUNS}
    [results] = [m for m in history if isinstance(m, ToolResultsMessage)]
    [asked] = [m for m in history if getattr(m, "tool_calls", ())]
    assert [r.invocation_id for r in results.results] == [c.id for c in asked.tool_calls]
    for outcome, result in zip(outcomes, results.results, strict=True):
        code = None if result.error is None else result.error.code
        if EXPECTED[outcome] == "any":
            assert code is not None and code != "LIMIT"
        else:
            assert code == EXPECTED[outcome], (outcome, result)


def test_a_limit_that_refused_a_call_does_not_wait_for_a_person_on_the_rest():
    ran: list[str] = []

    @tool
    def work(tag: str) -> str:
        """Work."""
        ran.append(tag)
        return "worked"

    @tool(requires_approval=True)
    def guarded(tag: str) -> str:
        """Guarded."""
        ran.append(tag)
        return "guarded"

    response = json.dumps({"name": "work", "arguments": {"tag": "a"}}) + json.dumps(
        {"name": "guarded", "arguments": {"tag": "b"}})
    config = AgentConfig(name="a", llm=ScriptedLLM([response, "never"]), tools=[work, guarded],
                         tool_format="json", auto_execute_tools=False,
                         approval_policy="marked", limits=UsageLimits(max_tool_calls=0))
    with Agent(config) as agent:
        reply = agent.send("go")
        error = reply.exception(timeout=10)  # no one has to decide on a call that cannot run
        assert isinstance(error, UsageLimitExceededError)
        with pytest.raises(UsageLimitExceededError):
            agent.run("again", timeout=10)
    assert ran == []
