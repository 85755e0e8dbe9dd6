"""What a tool does to the runtime: nothing. Any exception (SystemExit and KeyboardInterrupt
included) is a failed result, and a tool that overruns its timeout gives its slot back."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def results_shown(llm: ScriptedLLM, request: int) -> list[dict]:
    text = llm.requests[request].messages[-1].content
    return [json.loads(line)["tool_result"] for line in text.splitlines()[1:]]


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def async_add(a: int, b: int) -> int:
    """Add two integers, asynchronously."""
    return a + b


def _raiser(kind: type[BaseException], is_async: bool):  # type: ignore[no-untyped-def]
    if is_async:
        @tool(name="crash", timeout_s=5)
        async def crash_async() -> str:
            """Raises on purpose."""
            raise kind("from the tool")
        return crash_async

    @tool(name="crash", timeout_s=5)
    def crash() -> str:
        """Raises on purpose."""
        raise kind("from the tool")
    return crash


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("kind", [SystemExit, KeyboardInterrupt, GeneratorExit])
@pytest.mark.parametrize("middleware", [False, True], ids=["plain", "middleware"])
def test_a_tool_raising_a_base_exception_is_a_failed_result_and_the_agent_goes_on(
        kind: type[BaseException], is_async: bool, middleware: bool) -> None:
    llm = ScriptedLLM([call("crash"), "noted",
                       f"[{call('async_add', a=1, b=2)}, {call('add', a=3, b=4)}]", "fine"])
    options = {"middleware": [lambda c, n: n(c)]} if middleware else {}
    config = AgentConfig(name="victim", llm=llm, tools=[_raiser(kind, is_async), add, async_add],
                         tool_format="json", **options)
    with Agent(config) as agent:
        assert agent.run("crash it", timeout=10) == "noted"
        assert agent.run("then add", timeout=10) == "fine"
    [crashed] = results_shown(llm, 1)
    assert crashed["status"] == "failure"
    assert crashed["content"]["code"] == "INTERNAL"
    assert f"crash raised {kind.__name__}: from the tool" in crashed["content"]["message"]
    assert [r["content"] for r in results_shown(llm, 3)] == [3, 7]


def test_timed_out_sync_tools_give_their_slots_back() -> None:
    release = threading.Event()

    @tool(timeout_s=0.2)
    def stuck() -> str:
        """Ignores its timeout."""
        release.wait(30)
        return "late"

    # Two stuck calls fill both slots; the healthy calls after them must still run.
    adds = ", ".join(call("add", a=n, b=n) for n in (1, 2, 3))
    llm = ScriptedLLM([f"[{call('stuck')}, {call('stuck')}]", "both timed out", f"[{adds}]",
                       "added"])
    config = AgentConfig(name="slots", llm=llm, tools=[stuck, add], tool_format="json",
                         max_parallel_tools=2, tool_timeout_s=5)
    try:
        with Agent(config) as agent:
            assert agent.run("stall", timeout=10) == "both timed out"
            assert agent.run("add", timeout=10) == "added"
    finally:
        release.set()
        for thread in threading.enumerate():
            if thread.name.startswith("slots-tool"):
                thread.join(10)
    assert [r["content"]["code"] for r in results_shown(llm, 1)] == ["TIMEOUT", "TIMEOUT"]
    assert [r["content"] for r in results_shown(llm, 3)] == [2, 4, 6]


def test_a_call_that_timed_out_while_queued_never_runs() -> None:
    release = threading.Event()
    ran: list[str] = []

    @tool(timeout_s=0.2)
    def stuck(tag: str) -> str:
        """Ignores its timeout."""
        ran.append(tag)
        release.wait(30)
        return tag

    llm = ScriptedLLM([f"[{call('stuck', tag='first')}, {call('stuck', tag='queued')}]", "done"])
    config = AgentConfig(name="queue", llm=llm, tools=[stuck], tool_format="json",
                         max_parallel_tools=1)
    try:
        with Agent(config) as agent:
            assert agent.run("go", timeout=10) == "done"
    finally:
        release.set()
        for thread in threading.enumerate():
            if thread.name.startswith("queue-tool"):
                thread.join(10)
    assert [r["content"]["code"] for r in results_shown(llm, 1)] == ["TIMEOUT", "TIMEOUT"]
    # The queued call's deadline passed while it waited: when the stuck thread's slot was
    # given back, the queued call was already settled, so its body never ran.
    assert ran == ["first"]


def test_an_async_tool_that_hangs_the_loop_thread_is_isolated_from_later_calls() -> None:
    @tool(timeout_s=0.2)
    async def sleeper() -> str:
        """Sleeps past its timeout."""
        await asyncio.sleep(30)
        return "late"

    llm = ScriptedLLM([call("sleeper"), "timed out", call("async_add", a=2, b=2), "4"])
    config = AgentConfig(name="loop", llm=llm, tools=[sleeper, async_add], tool_format="json")
    with Agent(config) as agent:
        assert agent.run("sleep", timeout=10) == "timed out"
        assert agent.run("add", timeout=10) == "4"
    assert results_shown(llm, 1)[0]["content"]["code"] == "TIMEOUT"
    assert results_shown(llm, 3)[0]["content"] == 4


class _Unshowable:
    def __str__(self) -> str:
        raise RuntimeError("no")

    __repr__ = __str__


def test_a_value_that_cannot_even_be_shown_is_described_not_fatal() -> None:
    @tool
    def weird() -> object:
        """Returns something odd."""
        return _Unshowable()

    @tool
    def rows() -> object:
        """Returns a set and a tuple."""
        return {"set": {1}, "tuple": (1, 2), 3: "int key"}

    llm = ScriptedLLM([f"[{call('weird')}, {call('rows')}]", "ok"])
    with Agent(AgentConfig(name="odd", llm=llm, tools=[weird, rows],
                           tool_format="json")) as agent:
        assert agent.run("go", timeout=10) == "ok"
    shown, listed = results_shown(llm, 1)
    assert shown["content"] == "<a _Unshowable that cannot be shown>"
    assert listed["content"] == {"set": [1], "tuple": [1, 2], "3": "int key"}
