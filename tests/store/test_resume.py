"""Agents on a durable session, on both databases: what is written when (write-ahead), and how a
new agent on the same session goes on (history, interrupted and idempotent calls, approvals asked
again or decided while stopped, waiting messages exactly once, changed configurations)."""

from __future__ import annotations

import threading

import pytest

from autobyteus_like import (
    Agent,
    AgentConfig,
    ConfigError,
    ScriptedLLM,
    SessionInUseError,
    ToolContext,
    tool,
)
from autobyteus_like.events import ApprovalRequested, ToolResultReceived
from autobyteus_like.llm._messages import LLMRequest
from autobyteus_like.store import CallState, Session, open_store


def call(name: str, **args: object) -> str:
    inner = "".join(f'<arg name="{key}">{value}</arg>' for key, value in args.items())
    return f'<tool name="{name}"><arguments>{inner}</arguments></tool>'


class Tools:
    """Tools whose runs are counted; ``slow`` blocks until released."""

    def __init__(self) -> None:
        self.runs: list[str] = []
        self.release = threading.Event()
        self.started = threading.Event()

        @tool
        def slow(x: int, ctx: ToolContext) -> int:
            """Blocks until released."""
            self.runs.append("slow")
            self.started.set()
            self._wait(ctx)
            return x * 2

        @tool(idempotent=True)
        def slow_again(x: int, ctx: ToolContext) -> int:
            """Blocks until released; safe to run twice."""
            self.runs.append("slow_again")
            self.started.set()
            self._wait(ctx)
            return x * 3

        @tool(requires_approval=True)
        def guarded(x: int) -> int:
            """Needs a person's approval."""
            self.runs.append("guarded")
            return x + 1

        @tool
        def echo(text: str) -> str:
            """Returns its text."""
            self.runs.append("echo")
            return text

        self.all = [slow, slow_again, guarded, echo]

    def _wait(self, ctx: ToolContext) -> None:
        """Until released, or until the call is cancelled (the agent stops): a tool that
        gives up when told, so a stop does not wait out its grace for it."""
        for _ in range(1000):
            if self.release.wait(0.01) or ctx.cancelled.is_set():
                return


def agent(replies: list, store_url: str, tools: Tools, name: str = "a",
          session: str = "s1") -> Agent:
    config = AgentConfig(name=name, llm=ScriptedLLM(replies, provider="anthropic"),
                         tools=[t.name for t in tools.all], auto_execute_tools=False,
                         approval_policy="marked")
    return Agent(config, tools=tools.all, session=Session(session, store_url))


def results_of(store_url: str, agent_name: str = "a") -> dict[str, tuple[str, object]]:
    store = open_store(store_url)
    try:
        return {c.name: (c.state.value, (c.result or {}).get("content") or
                         ((c.result or {}).get("error") or {}).get("code"))
                for c in store.calls("s1", agent_name)}
    finally:
        store.close()


def stop_during_slow(replies: list, store_url: str, tools: Tools) -> None:
    first = agent(replies, store_url, tools)
    with first:
        first.send("go")
        assert tools.started.wait(10)
    first.session.close()
    tools.release.set()


def test_a_call_running_at_the_stop_comes_back_interrupted_and_is_not_run_again(store_url):
    tools = Tools()
    replies = [call("slow", x=2), "done after the interruption"]
    stop_during_slow(replies, store_url, tools)
    assert results_of(store_url) == {"slow": ("running", None)}
    second = agent(replies, store_url, tools)
    with second:
        [turn] = second.resume()
        assert (turn.turn_id, turn.text) == (1, "go")
        assert turn.reply.result(10) == "done after the interruption"
        request: LLMRequest = second.config.llm.requests[-1]
    second.session.close()
    assert tools.runs == ["slow"]  # never twice
    assert results_of(store_url) == {"slow": ("interrupted", "INTERRUPTED")}
    assert "INTERRUPTED" in request.messages[-1].content


def test_an_idempotent_call_running_at_the_stop_runs_again(store_url):
    tools = Tools()
    replies = [call("slow_again", x=2), "done"]
    stop_during_slow(replies, store_url, tools)
    second = agent(replies, store_url, tools)
    with second:
        [turn] = second.resume()
        assert turn.reply.result(10) == "done"
    second.session.close()
    assert tools.runs == ["slow_again", "slow_again"]
    assert results_of(store_url) == {"slow_again": ("succeeded", 6)}


def test_history_is_rebuilt_exactly_and_the_next_turn_follows_it(store_url):
    tools = Tools()
    tools.release.set()
    replies = [call("slow", x=4), "first answer", "second answer"]
    first = agent(replies, store_url, tools)
    with first:
        assert first.run("one", timeout=10) == "first answer"
        before = list(first.config.llm.requests[-1].messages)
    first.session.close()
    second = agent(replies, store_url, tools)  # a fresh ScriptedLLM: its place is the history
    with second:
        assert second.resume() == []
        assert second.run("two", timeout=10) == "second answer"
        sent = second.config.llm.requests[0].messages
    second.session.close()
    assert list(sent[: len(before) + 1]) == [*before, sent[len(before)]]
    assert sent[len(before)].role == "assistant" and sent[-1].content == "two"


def test_each_call_is_running_in_the_store_before_it_starts_and_each_result_before_the_llm_sees_it(
        store_url):
    seen: list[tuple[str, str]] = []
    checker = open_store(store_url)

    @tool
    def probe() -> str:
        """Reads its own call's state from another connection."""
        [record] = [c for c in checker.calls("s1", "a") if c.name == "probe"]
        seen.append(("in tool", record.state.value))
        return "ok"

    def second_reply(request: LLMRequest) -> str:
        [record] = [c for c in checker.calls("s1", "a") if c.name == "probe"]
        seen.append(("llm", record.state.value))
        return "finished"

    config = AgentConfig(name="a", llm=ScriptedLLM([call("probe"), second_reply],
                                                   provider="anthropic"), tools=["probe"])
    with Session("s1", store_url) as session, Agent(config, tools=[probe], session=session) as a:
        assert a.run("go", timeout=10) == "finished"
    checker.close()
    assert seen == [("in tool", "running"), ("llm", "succeeded")]


def test_a_call_waiting_for_approval_is_asked_again_after_a_restart(store_url):
    tools = Tools()
    replies = [call("guarded", x=1), "approved and done"]
    first = agent(replies, store_url, tools)
    with first:
        events = first.events()
        first.send("go")
        asked = next(e for e in iter(lambda: events.get(timeout=10), None)
                     if isinstance(e, ApprovalRequested))
    first.session.close()
    assert results_of(store_url) == {"guarded": ("waiting_approval", None)}
    second = agent(replies, store_url, tools)
    with second:
        events = second.events()
        [turn] = second.resume()
        again = next(e for e in iter(lambda: events.get(timeout=10), None)
                     if isinstance(e, ApprovalRequested))
        assert again.invocation.id == asked.invocation.id
        second.approve(again.invocation.id)
        assert turn.reply.result(10) == "approved and done"
    second.session.close()
    assert tools.runs == ["guarded"]


@pytest.mark.parametrize("decision", ["approved", "denied"])
def test_a_decision_recorded_while_stopped_is_applied_without_asking(store_url, decision):
    tools = Tools()
    replies = [call("guarded", x=1), "over"]
    first = agent(replies, store_url, tools)
    with first:
        events = first.events()
        first.send("go")
        asked = next(e for e in iter(lambda: events.get(timeout=10), None)
                     if isinstance(e, ApprovalRequested))
    first.session.close()
    store = open_store(store_url)
    if decision == "approved":
        store.set_call("s1", "a", asked.invocation.id, CallState.APPROVED)
    else:
        store.set_call("s1", "a", asked.invocation.id, CallState.DENIED)
    store.close()
    second = agent(replies, store_url, tools)
    with second:
        events = second.events()
        [turn] = second.resume()
        assert turn.reply.result(10) == "over"
    seen = list(iter(lambda: events.get(timeout=10), None))  # ends with the agent
    second.session.close()
    assert not any(isinstance(e, ApprovalRequested) for e in seen)
    [result] = [e.result for e in seen if isinstance(e, ToolResultReceived)]
    if decision == "approved":
        assert tools.runs == ["guarded"] and result.content == 2
    else:
        assert tools.runs == [] and result.error is not None
        assert result.error.code.value == "DENIED"


def test_messages_waiting_behind_the_turn_are_resumed_once_in_order(store_url):
    tools = Tools()
    replies = [call("slow", x=1), "answer one", "answer two", "answer three"]
    first = agent(replies, store_url, tools)
    with first:
        first.send("one")
        assert tools.started.wait(10)
        first.send("two")
        first.send("three")
        # "two" and "three" are recorded as received before the stop (the actor handles its
        # mailbox in order, and stop is queued behind them)
    first.session.close()
    tools.release.set()
    second = agent(replies, store_url, tools)
    with second:
        turns = second.resume()
        assert [(t.turn_id, t.text) for t in turns] == [(1, "one"), (2, "two"), (3, "three")]
        assert [t.reply.result(10) for t in turns] == ["answer one", "answer two",
                                                       "answer three"]
        assert second.resume() == []  # exactly once
    second.session.close()
    third = agent(replies, store_url, tools)
    with third:
        assert third.resume() == []
    third.session.close()


def test_a_session_whose_tools_are_gone_says_which(store_url):
    tools = Tools()
    tools.release.set()
    first = agent([call("slow", x=1), "done"], store_url, tools)
    with first:
        first.run("go", timeout=10)
    first.session.close()
    config = AgentConfig(name="a", llm=ScriptedLLM(["x"]), tools=["guarded"])
    session = Session("s1", store_url)
    with pytest.raises(ConfigError) as caught:
        Agent(config, tools=tools.all, session=session).start()
    session.close()
    assert "no longer has the tools it used: echo, slow, slow_again" in str(caught.value)


def test_a_session_held_by_a_running_agent_cannot_be_taken(store_url):
    tools = Tools()
    first = agent(["hi"], store_url, tools)
    with first:
        second = agent(["hi"], store_url, tools)
        with pytest.raises(SessionInUseError, match="in use by"):
            second.start()
        assert not second.running
        second.session.close()
    first.session.close()
