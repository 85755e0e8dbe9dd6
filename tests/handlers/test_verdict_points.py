"""A limit's verdict that turns against the run at each point of a three-call turn (a hook of
one's own, as a custom limit would be): the run ends with the limit's error, never hangs, the
turn ends once at the hooks, the usage counts exactly the calls whose body started (never one
that did not run), and later messages are refused."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence

import pytest

from autobyteus_like import Agent, AgentConfig, AgentHooks, ScriptedLLM, tool
from autobyteus_like.errors import UsageLimitExceededError

POINTS = ["turn_started", "request_sent", "call_parsed", "response_received",
          "response_completed", "call_pending", "call_running", "call_finished"]


def _tripping_class(point: str) -> type[AgentHooks]:
    """A limit that says the run is over from the first time the turn reaches ``point``."""

    def reached(self: AgentHooks, *args: object) -> None:
        self.tripped = True  # type: ignore[attr-defined]

    def verdict(self: AgentHooks) -> UsageLimitExceededError | None:
        if not self.tripped:  # type: ignore[attr-defined]
            return None
        return UsageLimitExceededError("agent 'a'", f"after_{point}", 0, 1)

    def turn_ended(self: AgentHooks, turn: object, messages: Sequence[object], answer: str,
                   error: str | None) -> None:
        self.ended += 1  # type: ignore[attr-defined]

    def init(self: AgentHooks) -> None:
        self.tripped = False  # type: ignore[attr-defined]
        self.ended = 0  # type: ignore[attr-defined]

    return type("Tripping", (AgentHooks,), {"__init__": init, point: reached,
                                            "verdict": verdict, "turn_ended": turn_ended})


@pytest.mark.parametrize("execution", ["parallel", "sequential"])
@pytest.mark.parametrize("point", POINTS)
def test_a_verdict_at_any_point_ends_the_run_counting_only_calls_that_ran(point, execution):
    started: list[str] = []
    lock = threading.Lock()

    @tool
    def note(text: str) -> str:
        """Note it."""
        with lock:
            started.append(text)
        return "noted"

    response = "".join(json.dumps({"name": "note", "arguments": {"text": t}}) for t in "abc")
    limit = _tripping_class(point)()
    llm = ScriptedLLM([response, "done", "never"])
    config = AgentConfig(name="a", llm=llm, tools=[note],
                         tool_format="json", tool_execution=execution, hooks=[limit])
    with Agent(config) as agent:
        with pytest.raises(UsageLimitExceededError, match=f"after_{point}"):
            agent.run("go", timeout=10)
        usage = agent.usage.run
        with pytest.raises(UsageLimitExceededError):
            agent.run("again", timeout=10)
    assert usage.llm_calls == len(llm.requests)  # counted the requests sent, no other
    assert usage.tool_calls == len(started)  # counted what ran, nothing refused or unstarted
    assert len(set(started)) == len(started)
    assert limit.ended == 1  # type: ignore[attr-defined]
    if point in ("turn_started", "request_sent", "call_parsed", "response_received",
                 "response_completed"):
        assert started == []  # the verdict came before any call was checked
