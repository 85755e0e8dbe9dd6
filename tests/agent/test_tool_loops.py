"""Async tools bound to a loop of their own (``ToolDefinition.call_soon``, as MCP tools are):
the agent starts them on that loop, times them out and cancels them there, and falls back to
its own loop, with a clean result, once that loop has stopped."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.mcp._loop_thread import LoopThread
from autobyteus_like.tools._definition import ToolDefinition


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def shown(llm: ScriptedLLM, request: int) -> list[dict]:
    text = llm.requests[request].messages[-1].content
    return [json.loads(line)["tool_result"] for line in text.splitlines()[1:]]


@tool
async def where() -> str:
    """Name the thread this runs on."""
    return threading.current_thread().name


def bound(definition: ToolDefinition, thread: LoopThread) -> ToolDefinition:
    return dataclasses.replace(definition, call_soon=thread.post)


def test_a_bound_async_tool_runs_on_its_own_loop() -> None:
    thread = LoopThread("own-loop")
    try:
        llm = ScriptedLLM([f"[{call('where')}, {call('where')}]", "done"])
        config = AgentConfig(name="a", llm=llm, tools=[bound(where, thread)], tool_format="json")
        with Agent(config) as agent:
            assert agent.run("go", timeout=10) == "done"
        assert [r["content"] for r in shown(llm, 1)] == ["own-loop", "own-loop"]
    finally:
        thread.stop()


def test_a_bound_tool_that_overruns_is_cancelled_on_its_loop() -> None:
    thread = LoopThread("own-loop")
    cancelled = threading.Event()

    @tool(name="slow", timeout_s=0.2)
    async def slow() -> str:
        """Wait for ever."""
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    try:
        llm = ScriptedLLM([call("slow"), "gave up"])
        config = AgentConfig(name="a", llm=llm, tools=[bound(slow, thread)], tool_format="json")
        with Agent(config) as agent:
            assert agent.run("go", timeout=10) == "gave up"
        assert shown(llm, 1)[0]["content"]["code"] == "TIMEOUT"
        assert cancelled.wait(5)  # on the tool's loop, which stays up for the next call
        assert thread.thread.is_alive()
    finally:
        thread.stop()


def test_stopping_the_agent_cancels_a_call_running_on_its_tools_loop() -> None:
    thread = LoopThread("own-loop")
    started, cancelled = threading.Event(), threading.Event()

    @tool(name="hang")
    async def hang() -> str:
        """Wait for ever."""
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    try:
        llm = ScriptedLLM([call("hang"), "never"])
        agent = Agent(AgentConfig(name="a", llm=llm, tools=[bound(hang, thread)],
                                  tool_format="json"))
        agent.start()
        agent.send("go")
        assert started.wait(10)
        agent.stop()
        assert cancelled.wait(5)
    finally:
        thread.stop()


def test_a_tool_whose_loop_has_stopped_runs_on_the_agents_loop() -> None:
    thread = LoopThread("own-loop")
    thread.stop()
    llm = ScriptedLLM([call("where"), "done"])
    config = AgentConfig(name="a", llm=llm, tools=[bound(where, thread)], tool_format="json")
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"
    assert shown(llm, 1)[0]["content"] == "a-tools"
