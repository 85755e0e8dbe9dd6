"""Whole turns on real actors with ScriptedLLM: what the LLM is shown is asserted exactly."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from pydantic import BaseModel, field_validator

from autobyteus_like import Agent, AgentConfig, AgentTurnError, ScriptedLLM, tool
from autobyteus_like.events import (
    AgentErrorOccurred,
    ApprovalRequested,
    ToolResultReceived,
    ToolStarted,
    TurnCompleted,
)
from tests.agent.event_waits import wait_for


def results_shown(llm: ScriptedLLM, request: int = 1) -> list[dict]:
    """The tool_result blocks the LLM saw in a request (json formats)."""
    text = llm.requests[request].messages[-1].content
    return [json.loads(line)["tool_result"] for line in text.splitlines()[1:]]


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def explode(reason: str) -> str:
    """Always fails."""
    raise ValueError(f"boom: {reason}")


def agent_with(llm: ScriptedLLM, tools: list, **options: object) -> Agent:
    return Agent(AgentConfig(name="tester", llm=llm, tools=tools, tool_format="json", **options))


def test_a_single_call_and_what_the_llm_was_shown():
    llm = ScriptedLLM([f"Let me add. {call('add', a=2, b='3')}", "2 + 3 = 5"], chunk_size=3)
    with agent_with(llm, [add]) as agent:
        assert agent.run("What is 2+3?", timeout=10) == "2 + 3 = 5"
    first, second = llm.requests
    assert "### add" in first.system_prompt and first.messages[0].content == "What is 2+3?"
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    assert second.messages[1].content.endswith(call("add", a=2, b="3"))
    [shown] = results_shown(llm)
    assert (shown["name"], shown["status"], shown["content"]) == ("add", "success", 5)


def test_results_reach_the_llm_in_invocation_order_whatever_order_tools_finish():
    gates = {n: threading.Event() for n in (1, 2, 3)}

    @tool
    def step(n: int) -> str:
        """Finishes when the test opens its gate."""
        assert gates[n].wait(5)
        return f"step {n}"

    script = "[" + ", ".join(call("step", n=n) for n in (1, 2, 3)) + "]"
    llm = ScriptedLLM([script, "done"])
    with agent_with(llm, [step]) as agent:
        events = agent.events()
        reply = agent.send("go")
        wait_for(events, ToolStarted, 3)  # all three run at once
        finished = []
        for n in (3, 2, 1):  # each finishes only after the agent has the previous result
            gates[n].set()
            finished += [e.result.content for e in wait_for(events, ToolResultReceived)]
        assert reply.result(10) == "done"
    assert finished == ["step 3", "step 2", "step 1"]
    assert [r["content"] for r in results_shown(llm)] == ["step 1", "step 2", "step 3"]


def test_a_failing_tool_between_two_good_ones():
    script = f"[{call('add', a=1, b=1)}, {call('explode', reason='x')}, {call('add', a=2, b=2)}]"
    llm = ScriptedLLM([script, "two of three worked"])
    with agent_with(llm, [add, explode]) as agent:
        assert agent.run("go", timeout=10) == "two of three worked"
    shown = results_shown(llm)
    assert [r["status"] for r in shown] == ["success", "failure", "success"]
    assert shown[1]["content"] == {"code": "INTERNAL",
                                   "message": "explode raised ValueError: boom: x"}


def test_a_hanging_tool_times_out_without_blocking_the_others():
    @tool(timeout_s=0.2)
    async def hang() -> str:
        """Never finishes on its own."""
        await asyncio.Event().wait()
        return "unreachable"

    llm = ScriptedLLM([f"[{call('hang')}, {call('add', a=1, b=2)}]", "ok"])
    with agent_with(llm, [hang, add]) as agent:
        assert agent.run("go", timeout=10) == "ok"
    hung, added = results_shown(llm)
    assert hung["content"]["code"] == "TIMEOUT"
    assert hung["content"]["message"] == "hang did not finish within 0.2 s"
    assert (added["status"], added["content"]) == ("success", 3)


def test_approval_with_one_call_approved_and_one_denied():
    llm = ScriptedLLM([f"[{call('add', a=1, b=2)}, {call('add', a=5, b=5)}]", "finished"])
    with agent_with(llm, [add], auto_execute_tools=False) as agent:
        events = agent.events()
        reply = agent.send("go")
        first, second = (e.invocation for e in wait_for(events, ApprovalRequested, 2))
        assert not reply.done()
        agent.deny(second.id, reason="too big")
        agent.approve(first.id)
        assert reply.result(timeout=10) == "finished"
    approved, denied = results_shown(llm)
    assert (approved["status"], approved["content"]) == ("success", 3)
    assert denied["content"]["code"] == "DENIED"
    assert denied["content"]["message"] == "denied: too big"


def test_only_marked_tools_wait_for_approval_under_the_marked_policy():
    @tool(requires_approval=True)
    def delete(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    llm = ScriptedLLM([f"[{call('add', a=1, b=1)}, {call('delete', path='x')}]", "ok"])
    with agent_with(llm, [add, delete], auto_execute_tools=False,
                    approval_policy="marked") as agent:
        events = agent.events()
        reply = agent.send("go")
        [waiting] = [e.invocation for e in wait_for(events, ApprovalRequested)]
        assert waiting.name == "delete"
        agent.approve(waiting.id)
        assert reply.result(timeout=10) == "ok"


def test_a_parse_error_is_fed_back_and_corrected():
    llm = ScriptedLLM(['{"name": "add", "arguments": {"a": 1, "b": }}',
                       call("add", a=1, b=2), "3"])
    with agent_with(llm, [add]) as agent:
        assert agent.run("go", timeout=10) == "3"
    [error] = results_shown(llm, 1)
    assert error["content"]["code"] == "PARSE_ERROR"
    assert error["content"]["message"].startswith("the tool call is not valid JSON: Expecting")
    assert results_shown(llm, 2)[0]["content"] == 3


def test_unknown_tools_bad_arguments_and_missing_why_are_results_not_crashes():
    script = f"[{call('nope')}, {call('add', a='x')}, {call('add', a=1, b=2)}]"
    llm = ScriptedLLM([script, "ok"])
    with agent_with(llm, [add], require_why=True) as agent:
        assert agent.run("go", timeout=10) == "ok"
    unknown, bad, no_why = (r["content"] for r in results_shown(llm))
    assert unknown["code"] == "UNKNOWN_TOOL"
    assert unknown["suggestion"] == "use one of the available tools: add"
    assert bad["code"] == "INVALID_ARGS" and "missing required argument 'b'" in bad["message"]
    assert no_why["code"] == "MISSING_WHY"
    assert "must include a `why` argument" in llm.requests[0].system_prompt


def test_max_iterations_ends_the_turn_with_a_clear_error():
    llm = ScriptedLLM([call("add", a=1, b=1)] * 3)
    with agent_with(llm, [add], max_iterations=2) as agent:
        events = agent.events()
        with pytest.raises(AgentTurnError, match=r"max_iterations \(2\) reached"):
            agent.run("loop", timeout=10)
        [error] = wait_for(events, AgentErrorOccurred)
        [done] = wait_for(events, TurnCompleted)
    assert "max_iterations (2) reached" in error.message and done.error is not None
    assert len(llm.requests) == 2


def test_an_llm_error_ends_the_turn_and_the_agent_keeps_working():
    llm = ScriptedLLM(["first answer"])
    with agent_with(llm, [add]) as agent:
        assert agent.run("one", timeout=10) == "first answer"
        with pytest.raises(AgentTurnError, match="ran out of responses: request 2 arrived but"):
            agent.run("two", timeout=10)
        llm.responses.append("third answer")
        assert agent.run("three", timeout=10) == "third answer"


def test_a_message_arriving_mid_turn_waits_for_the_turn():
    gate = threading.Event()

    @tool
    def slow() -> str:
        """Waits for the test."""
        assert gate.wait(5)
        return "slow done"

    llm = ScriptedLLM([call("slow"), "first", "second"])
    with agent_with(llm, [slow]) as agent:
        events = agent.events()
        first = agent.send("one")
        wait_for(events, ToolStarted)
        second = agent.send("two")
        gate.set()
        assert (first.result(10), second.result(10)) == ("first", "second")
    assert [m.content for m in llm.requests[2].messages if m.role == "user"][-1] == "two"


def test_sequential_execution_runs_one_call_at_a_time_in_order():
    lock, active, order, peak = threading.Lock(), [0], [], [0]

    @tool
    def work(n: int) -> int:
        """Record concurrency."""
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
            order.append(n)
        with lock:
            active[0] -= 1
        return n

    script = "[" + ", ".join(call("work", n=n) for n in range(5)) + "]"
    llm = ScriptedLLM([script, "ok"])
    with agent_with(llm, [work], tool_execution="sequential") as agent:
        assert agent.run("go", timeout=10) == "ok"
    assert order == [0, 1, 2, 3, 4] and peak[0] == 1


def test_a_sequential_tool_is_a_barrier_in_parallel_mode():
    lock, active, started = threading.Lock(), [0], []
    gate = threading.Event()

    def enter(name: str) -> None:
        with lock:
            active[0] += 1
            started.append((name, active[0]))

    def leave() -> None:
        with lock:
            active[0] -= 1

    @tool
    def fast(n: int) -> int:
        """Parallel work; the first one waits for the opener."""
        enter(f"fast {n}")
        if n == 1:
            assert gate.wait(5)
        leave()
        return n

    @tool
    def opener() -> str:
        """Lets fast 1 finish."""
        enter("opener")
        gate.set()
        leave()
        return "opened"

    @tool(sequential=True)
    def barrier() -> str:
        """Must run alone."""
        enter("barrier")
        leave()
        return "b"

    script = f"[{call('fast', n=1)}, {call('opener')}, {call('barrier')}, {call('fast', n=2)}]"
    llm = ScriptedLLM([script, "ok"])
    with agent_with(llm, [fast, barrier, opener]) as agent:
        assert agent.run("go", timeout=10) == "ok"
    names = [name for name, _ in started]
    assert set(names[:2]) == {"fast 1", "opener"}  # these two ran side by side
    assert started[2:] == [("barrier", 1), ("fast 2", 1)]  # then the barrier alone, then the rest


def test_async_facade():
    llm = ScriptedLLM([call("add", a=1, b=2), "3"])

    async def main() -> tuple[str, list[str]]:
        with agent_with(llm, [add]) as agent:
            seen: list[str] = []
            stream = agent.aevents()  # subscribed now, before the message is sent

            async def watch() -> None:
                async for event in stream:
                    seen.append(type(event).__name__)
                    if isinstance(event, TurnCompleted):
                        return

            watcher = asyncio.create_task(watch())
            answer = await agent.arun("go", timeout=10)
            await asyncio.wait_for(watcher, 10)
            return answer, seen

    answer, seen = asyncio.run(main())
    assert answer == "3" and "ToolResultReceived" in seen and seen[-1] == "TurnCompleted"


def test_reset_starts_a_new_conversation_after_the_current_turn():
    llm = ScriptedLLM(["one", "two", "three"])
    with agent_with(llm, []) as agent:
        assert agent.run("a", timeout=10) == "one"
        first = agent.send("b")
        agent.reset()
        assert first.result(10) == "two" and agent.run("c", timeout=10) == "three"
    assert [len(r.messages) for r in llm.requests] == [1, 3, 1]


def test_native_mode_offline_with_scripted_replies():
    from autobyteus_like.llm import NativeToolCall, ScriptedReply

    reply = ScriptedReply("Adding twice.", (NativeToolCall("call_x", "add", '{"a": 1, "b": 2}'),
                                            NativeToolCall("call_y", "add", '{"a": 3, "b": "4"}')))
    llm = ScriptedLLM([reply, "3 and 7"], chunk_size=4)
    config = AgentConfig(name="n", llm=llm, tools=[add], tool_format="native",
                         system_prompt="Be exact. {{tools}}")
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "3 and 7"
    first, second = llm.requests
    assert first.system_prompt == "Be exact. " and first.tools == (add,)
    assistant, results = second.messages[1:]
    assert assistant.content == "Adding twice."
    assert [c.id for c in assistant.tool_calls] == ["call_x", "call_y"]
    assert [(r.invocation_id, r.content) for r in results.tool_results] == [
        ("call_x", 3), ("call_y", 7)]


VALIDATIONS: list[int] = []


class Point(BaseModel):
    x: int

    @field_validator("x")
    @classmethod
    def _count(cls, value: int) -> int:
        VALIDATIONS.append(value)
        return value


@tool
def plot(point: Point) -> int:
    """Plot a point."""
    return point.x


def test_arguments_are_validated_once_per_call():
    VALIDATIONS.clear()
    llm = ScriptedLLM([call("plot", point={"x": 5}), "plotted"])
    with agent_with(llm, [plot]) as agent:
        assert agent.run("go", timeout=10) == "plotted"
    assert VALIDATIONS == [5] and results_shown(llm)[0]["content"] == 5


def test_async_events_need_no_thread_per_event_and_never_hold_a_loop_open():
    llm = ScriptedLLM([call("add", a=1, b=2), "3"])
    finished = threading.Event()
    outcome: list[object] = []

    async def watch_with_a_timeout(agent: Agent) -> None:
        stream = agent.aevents()
        await agent.arun("go", timeout=10)
        names = [type(event).__name__ async for event in _until_turn_end(stream)]
        outcome.append(names)
        helpers = [t.name for t in threading.enumerate() if t.name.startswith("asyncio")]
        outcome.append(helpers)
        try:  # the agent is idle now: nothing will come, and the wait times out
            await asyncio.wait_for(anext(agent.aevents()), 0.1)
        except TimeoutError:
            outcome.append("timed out")

    def host(agent: Agent) -> None:
        asyncio.run(watch_with_a_timeout(agent))
        finished.set()

    with agent_with(llm, [add]) as agent:
        runner = threading.Thread(target=host, args=(agent,))
        runner.start()
        # asyncio.run must return while the agent is still running and silent
        assert finished.wait(10), "asyncio.run did not return after the timeout"
        runner.join()
    names, helpers, timed_out = outcome
    assert names[-1] == "TurnCompleted" and "ToolResultReceived" in names
    assert helpers == []  # no worker thread carried the events into the loop
    assert timed_out == "timed out"


async def _until_turn_end(stream):  # type: ignore[no-untyped-def]
    async for event in stream:
        yield event
        if isinstance(event, TurnCompleted):
            return


def test_the_execute_format_runs_its_batch_in_order_by_default():
    order: list[str] = []
    first_done = threading.Event()

    @tool
    def slow(tag: str) -> str:
        """Finishes after a moment unless it is second."""
        order.append(f"start {tag}")
        if tag == "a":
            first_done.wait(0.3)  # a parallel run would start b meanwhile
        order.append(f"end {tag}")
        return tag

    batch = ('<execute>[{"name": "slow", "args": {"tag": "a"}}, '
             '{"name": "slow", "args": {"tag": "b"}}]</execute>')
    llm = ScriptedLLM([batch, "done"])
    with Agent(AgentConfig(name="ex", llm=llm, tools=[slow], tool_format="execute")) as agent:
        assert agent.run("go", timeout=10) == "done"
    assert order == ["start a", "end a", "start b", "end b"]
    assert AgentConfig(name="p", llm=llm, tool_format="execute",
                       tool_execution="parallel").resolved_execution() == "parallel"
    assert AgentConfig(name="j", llm=llm, tool_format="json").resolved_execution() == "parallel"


def test_informational_events_are_built_only_when_someone_takes_them():
    """With no subscriber, a turn builds no status, request-started, tool-started or
    turn-completed event (each costs ~1 us); with one, it builds them all."""
    from autobyteus_like.events import (
        AgentStatusChanged,
        LLMRequestStarted,
        ToolStarted,
        TurnCompleted,
    )

    informational = (AgentStatusChanged, LLMRequestStarted, ToolStarted, TurnCompleted)
    built: list[str] = []

    def count(frame, event, arg):  # type: ignore[no-untyped-def]
        if (event == "call" and frame.f_code.co_name == "__init__"
                and type(frame.f_locals.get("self")) in informational):
            built.append(type(frame.f_locals["self"]).__name__)

    def turn(subscribe: bool) -> list[str]:
        built.clear()
        config = AgentConfig(name="a", llm=ScriptedLLM([call("add", a=1, b=2), "3"]),
                             tools=[add], tool_format="json")
        threading.setprofile(count)  # the agent's threads, started below, are counted
        try:
            with Agent(config) as agent:
                events = agent.events() if subscribe else None
                assert agent.run("sum", timeout=10) == "3"
                if events is not None:
                    events.close()
        finally:
            threading.setprofile(None)  # type: ignore[arg-type]
        return list(built)

    assert turn(subscribe=False) == []
    seen = turn(subscribe=True)
    assert set(seen) == {
        "AgentStatusChanged", "LLMRequestStarted", "ToolStarted", "TurnCompleted"}
