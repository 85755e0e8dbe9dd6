"""The turn's hooks through the public API (``AgentConfig(hooks=...)``): every point of a turn
is called in order; a verdict ends the run; a store error raised by a hook fails the turn at
once, no tool starts after it, and the event it was storing is not shown."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from autobyteus_like import Agent, AgentConfig, AgentHooks, ScriptedLLM, tool
from autobyteus_like.errors import AgentTurnError, StoreError, UsageLimitExceededError
from autobyteus_like.events import ToolResultReceived, ToolStarted


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


class Recorder(AgentHooks):
    """Writes down every point it is called at."""

    def __init__(self) -> None:
        self.seen: list[str] = []


def _recording(point: str) -> object:
    def record(self: Recorder, *args: object, **kwargs: object) -> None:
        self.seen.append(point)
    return record


for _point in [name for name, value in vars(AgentHooks).items()
               if callable(value) and not name.startswith(("_", "wrap_"))
               and name not in ("verdict", "admit_early", "release", "run_started")]:
    setattr(Recorder, _point, _recording(_point))  # the watch points, and claim


def test_every_point_of_a_one_tool_turn_is_called_in_order():
    ran: list[str] = []

    @tool
    def note(text: str) -> str:
        """Note it."""
        ran.append(text)
        return "noted"

    recorder = Recorder()
    config = AgentConfig(name="a", llm=ScriptedLLM([call("note", text="x"), "done"]),
                         tools=[note], tool_format="json", hooks=[recorder])
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"
    assert ran == ["x"]
    assert recorder.seen == [
        "message_received", "turn_started",
        "claim", "request_sent", "call_parsed", "response_received", "response_completed",
        "call_pending", "claim", "call_running", "call_finished",
        "claim", "request_sent", "response_received", "response_completed",
        "turn_ended", "close"]


class Limit(AgentHooks):
    """Ends the run at the second LLM request."""

    def __init__(self) -> None:
        self.requests = 0

    def request_sent(self, turn: object, messages: Sequence[object]) -> None:
        self.requests += 1

    def verdict(self) -> UsageLimitExceededError | None:
        if self.requests < 2:
            return None
        return UsageLimitExceededError("agent 'a'", "my_limit", 1, self.requests)


def test_a_verdict_ends_the_run_and_refuses_later_messages():
    llm = ScriptedLLM([call("missing"), "never", "never"])
    config = AgentConfig(name="a", llm=llm, tool_format="json", hooks=[Limit()])
    with Agent(config) as agent:
        with pytest.raises(UsageLimitExceededError, match="my_limit"):
            agent.run("go", timeout=10)
        assert len(llm.requests) == 1  # the second request was never sent
        with pytest.raises(UsageLimitExceededError):
            agent.run("again", timeout=10)


class FailingStore(AgentHooks):
    """A durable hook whose store refuses one kind of write."""

    def admit_early(self, turn: object, call: object) -> bool:
        return False  # a response and its calls are stored before any call is checked

    def __init__(self, point: str) -> None:
        self.point = point

    def call_running(self, turn: object, call: object) -> None:
        if self.point == "call_running" and getattr(call, "position", 0) == 1:
            raise StoreError("the lease was lost")

    def call_finished(self, turn: object, call: object) -> None:
        if self.point == "call_finished":
            raise StoreError("the lease was lost")


def test_a_store_error_fails_the_turn_at_once_and_no_tool_starts_after_it():
    ran: list[str] = []

    @tool
    def note(text: str) -> str:
        """Note it."""
        ran.append(text)
        return "noted"

    llm = ScriptedLLM([call("note", text="1") + call("note", text="2"), "never"])
    config = AgentConfig(name="a", llm=llm, tools=[note], tool_format="json",
                         hooks=[FailingStore("call_running")])
    with Agent(config) as agent:
        events = agent.events()
        with pytest.raises(AgentTurnError, match="the lease was lost"):
            agent.run("go", timeout=10)
    shown = list(iter(lambda: events.get(timeout=5), None))
    assert ran == []  # the first call was committed as running, but its turn had failed
    assert not [e for e in shown if isinstance(e, ToolStarted | ToolResultReceived)
                and getattr(e, "result", None) is not None and e.result.status == "success"]
    assert len(llm.requests) == 1


def test_a_result_the_store_refused_is_never_shown():
    @tool
    def note(text: str) -> str:
        """Note it."""
        return "noted"

    llm = ScriptedLLM([call("note", text="1"), "never"])
    config = AgentConfig(name="a", llm=llm, tools=[note], tool_format="json",
                         hooks=[FailingStore("call_finished")])
    with Agent(config) as agent:
        events = agent.events()
        with pytest.raises(AgentTurnError, match="the lease was lost"):
            agent.run("go", timeout=10)
    shown = list(iter(lambda: events.get(timeout=5), None))
    assert not [e for e in shown if isinstance(e, ToolResultReceived)]
    assert len(llm.requests) == 1  # the LLM was never sent the unstored result


def test_anything_but_hooks_is_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="expected an AgentHooks"):
        AgentConfig(name="a", llm=ScriptedLLM([]), hooks=[object()])


class BrokenEnd(AgentHooks):
    def turn_ended(self, turn: object, messages: object, answer: str,
                   error: str | None) -> None:
        raise StoreError("the disk is full")


def test_a_turn_whose_end_cannot_be_recorded_still_ends_and_says_why():
    config = AgentConfig(name="a", llm=ScriptedLLM(["hi", "again"]), hooks=[BrokenEnd()])
    with Agent(config) as agent:
        with pytest.raises(AgentTurnError, match=r"could not be recorded \(StoreError: the disk"):
            agent.run("go", timeout=10)
        with pytest.raises(AgentTurnError):  # the agent goes on taking messages
            agent.run("more", timeout=10)
