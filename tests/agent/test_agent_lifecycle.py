"""Starting, stopping, crashing handlers and extending the handler registry."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest

from autobyteus_like import Agent, AgentConfig, AgentStoppedError, AgentTurnError, ScriptedLLM, tool
from autobyteus_like.events import (
    AgentErrorOccurred,
    AgentStatus,
    AgentStatusChanged,
    ToolStarted,
    TurnCompleted,
)
from tests.agent.event_waits import wait_for


@tool
async def wait_forever() -> str:
    """Never returns by itself."""
    await asyncio.Event().wait()
    return "unreachable"


def test_stop_is_prompt_cancels_running_tools_and_fails_waiting_turns():
    llm = ScriptedLLM([json.dumps({"name": "wait_forever", "arguments": {}})])
    agent = Agent(AgentConfig(name="stopper", llm=llm, tools=[wait_forever], tool_format="json",
                              tool_timeout_s=None))
    agent.start()
    events = agent.events()
    reply = agent.send("go")
    queued = agent.send("next")
    wait_for(events, ToolStarted)
    started = time.perf_counter()
    agent.stop()
    assert time.perf_counter() - started < 5  # the tool itself would never finish
    for future in (reply, queued):
        with pytest.raises(AgentStoppedError, match="'stopper' stopped before the turn finished"):
            future.result(timeout=1)
    statuses = [e.status for e in events if isinstance(e, AgentStatusChanged)]
    assert statuses[-1] is AgentStatus.STOPPED
    with pytest.raises(AgentStoppedError, match="'stopper' is not running"):
        agent.send("too late")


def test_a_crashing_handler_ends_the_turn_not_the_agent():
    class Exploding:
        def handle(self, event, ctx):
            raise KeyError("bug in a user handler")

    llm = ScriptedLLM(["first", "second"])
    config = AgentConfig(name="crashy", llm=llm, handlers={TurnCompleted: Exploding()})
    with Agent(config) as agent:
        events = agent.events()
        assert agent.run("one", timeout=10) == "first"
        [error] = wait_for(events, AgentErrorOccurred)
        assert "TurnCompleted raised KeyError" in error.message
        assert agent.run("two", timeout=10) == "second"


def test_a_crash_inside_a_turn_fails_that_turn_with_a_clear_error():
    class Broken:
        def handle(self, event, ctx):
            raise RuntimeError("cannot handle tool starts")

    llm = ScriptedLLM([json.dumps({"name": "ping", "arguments": {}}), "after"])

    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    config = AgentConfig(name="b", llm=llm, tools=[ping], tool_format="json",
                         handlers={ToolStarted: Broken()})
    with Agent(config) as agent, pytest.raises(AgentTurnError, match="ToolStarted raised"):
        agent.run("go", timeout=10)


def test_a_user_handler_sees_events_on_the_actor_thread():
    seen: list[str] = []

    class Recorder:
        def handle(self, event, ctx):
            seen.append(f"{ctx.name}:{event.answer}")

    config = AgentConfig(name="rec", llm=ScriptedLLM(["hi"]), handlers={TurnCompleted: Recorder()})
    with Agent(config) as agent:
        agent.run("hello", timeout=10)
    assert seen == ["rec:hi"]


def test_config_errors_are_clear():
    with pytest.raises(ValueError, match="unknown tool call format 'yaml'"):
        AgentConfig(name="x", llm=ScriptedLLM([]), tool_format="yaml")
    with pytest.raises(ValueError, match="max_iterations"):
        AgentConfig(name="x", llm=ScriptedLLM([]), max_iterations=0)
    with pytest.raises(ValueError, match=r"unknown tool 'fs\.read'; available tools: none"):
        Agent(AgentConfig(name="x", llm=ScriptedLLM([]), tools=["fs.read"]))


def test_events_end_when_the_agent_stops_and_run_times_out_clearly():
    gate = asyncio.Event()

    @tool
    async def block() -> str:
        """Blocks."""
        await gate.wait()
        return "x"

    llm = ScriptedLLM([json.dumps({"name": "block", "arguments": {}})])
    agent = Agent(AgentConfig(name="t", llm=llm, tools=[block], tool_format="json"))
    with agent:
        events = agent.events()
        with pytest.raises(TimeoutError, match=r"'t' did not finish the turn within 0\.2 s"):
            agent.run("go", timeout=0.2)
    assert list(events)[-1] == AgentStatusChanged(agent="t", status=AgentStatus.STOPPED)


def test_leaving_the_block_waits_for_a_tool_body_that_ends_before_its_deadline():
    started = threading.Event()

    @tool(timeout_s=5)
    def slow() -> str:
        """Work a little, ignoring cancellation."""
        started.set()
        time.sleep(0.3)
        return "done"

    llm = ScriptedLLM([json.dumps({"name": "slow", "arguments": {}}), "after"])
    with Agent(AgentConfig(name="w", llm=llm, tools=[slow], tool_format="json")) as agent:
        agent.send("go")
        assert started.wait(10)
    left = [t.name for t in threading.enumerate() if t.name.startswith("w-tool")]
    assert left == []  # the body ended within its deadline, so its thread was joined


def test_a_new_run_goes_on_from_the_conversation_or_rewound_from_where_its_run_began():
    """Without a session: a new run keeps the conversation as it stands; ``rewind`` puts it
    back as the run before began (the first run's start: the config's history)."""
    from autobyteus_like.history._messages import AssistantMessage, UserMessage

    seed = [UserMessage(content="My name is Ada."), AssistantMessage(content="Hello Ada.")]
    llm = ScriptedLLM(["(seed)", "one", "two", "three", "four"])
    with Agent(AgentConfig(name="a", llm=llm, history=seed)) as agent:

        def contents() -> list[str]:
            return [str(m.content) for m in agent.history[1:]]

        assert agent.run("first", timeout=10) == "one"
        agent.new_run(rewind=True)  # the first run's start: the seed alone
        assert contents() == ["My name is Ada.", "Hello Ada."]
        assert agent.run("second", timeout=10) == "two"
        agent.new_run()  # as it stands
        assert agent.run("third", timeout=10) == "three"
        agent.new_run(rewind=True)  # back to where the third's run began
        assert contents() == ["My name is Ada.", "Hello Ada.", "second", "two"]
        assert agent.run("fourth", timeout=10) == "four"
    assert [m.content for m in llm.requests[-1].messages] == [
        "My name is Ada.", "Hello Ada.", "second", "two", "fourth"]
