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

    @tool(timeout_s=0.6)
    def stuck() -> str:
        """Holds the only slot past its timeout."""
        ran.append("stuck")
        release.wait(30)
        return "late"

    @tool(timeout_s=0.2)
    def quick() -> str:
        """Queued behind it; its deadline passes before the slot is free."""
        ran.append("quick")
        return "quick"

    llm = ScriptedLLM([f"[{call('stuck')}, {call('quick')}]", "done"])
    config = AgentConfig(name="queue", llm=llm, tools=[stuck, quick], tool_format="json",
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
    assert ran == ["stuck"]  # the queued call timed out waiting and never started


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


class _BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("cannot show myself")


def test_failures_that_cannot_be_described_plainly_still_end_the_call() -> None:
    import asyncio as aio

    from autobyteus_like import ToolFailure

    @tool(timeout_s=3)
    def bad_str() -> str:
        """Raises an exception whose str() raises."""
        raise _BadStr()

    @tool(timeout_s=3)
    def bad_code() -> str:
        """Fails with a code that is not one."""
        raise ToolFailure("BROKEN", "custom failure")  # type: ignore[arg-type]

    @tool(timeout_s=3)
    async def cancels_itself() -> str:
        """Raises CancelledError on its own."""
        raise aio.CancelledError()

    llm = ScriptedLLM([f"[{call('bad_str')}, {call('bad_code')}, {call('cancels_itself')}]",
                       "ok"])
    config = AgentConfig(name="bad", llm=llm, tools=[bad_str, bad_code, cancels_itself],
                         tool_format="json")
    with Agent(config) as agent:
        assert agent.run("go", timeout=8) == "ok"
    shown = [r["content"] for r in results_shown(llm, 1)]
    assert [r["code"] for r in shown] == ["INTERNAL", "INTERNAL", "INTERNAL"]
    assert shown[0]["message"] == "bad_str raised _BadStr: <a _BadStr that cannot be shown>"
    assert "unknown code 'BROKEN': custom failure" in shown[1]["message"]
    assert "raised CancelledError" in shown[2]["message"]


def test_timeouts_fire_even_when_an_async_tool_blocks_the_loop() -> None:
    release = threading.Event()

    @tool(timeout_s=0.5)
    async def blocks_loop() -> str:
        """Blocks the event loop (a bug in the tool)."""
        release.wait(10)
        return "late"

    @tool(timeout_s=0.5)
    def sync_slow() -> str:
        """Overruns too."""
        release.wait(10)
        return "late"

    llm = ScriptedLLM([f"[{call('blocks_loop')}, {call('sync_slow')}]", "both timed out"])
    config = AgentConfig(name="blocked", llm=llm, tools=[blocks_loop, sync_slow],
                         tool_format="json")
    try:
        with Agent(config) as agent:
            assert agent.run("go", timeout=5) == "both timed out"
            release.set()
    finally:
        release.set()
        for thread in threading.enumerate():
            if thread.name.startswith("blocked-tool"):
                thread.join(10)
    assert [r["content"]["code"] for r in results_shown(llm, 1)] == ["TIMEOUT", "TIMEOUT"]


def test_a_task_a_tool_leaves_behind_cannot_kill_the_loop() -> None:
    import asyncio as aio

    async def doom() -> None:
        raise SystemExit("from a background task")

    @tool
    async def spawner() -> str:
        """Leaves a task behind that raises SystemExit."""
        aio.get_running_loop().create_task(doom())
        await aio.sleep(0)
        return "spawned"

    llm = ScriptedLLM([call("spawner"), "first", call("async_add", a=2, b=3), "second"])
    config = AgentConfig(name="loop2", llm=llm, tools=[spawner, async_add], tool_format="json")
    with Agent(config) as agent:
        assert agent.run("spawn", timeout=10) == "first"
        assert agent.run("add", timeout=10) == "second"
    assert results_shown(llm, 3)[0]["content"] == 5
