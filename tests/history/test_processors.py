"""History processors: a long chat under a token budget, turns kept whole, a durable
session keeping everything, a context overflow retried once."""

from __future__ import annotations

import json
import threading

import pytest

from autobyteus_like import Agent, AgentConfig, AgentTurnError, ScriptedLLM
from autobyteus_like.errors import LLMError
from autobyteus_like.history import (
    AssistantMessage,
    ProcessorContext,
    SystemMessage,
    ToolResultsMessage,
    UserMessage,
    keep_last_turns,
    summarize_older,
    token_budget,
)
from autobyteus_like.history._tokens import MESSAGE_OVERHEAD, estimate_tokens, openai_counter
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, NativeToolCall
from autobyteus_like.llm._scripted import ScriptedReply
from autobyteus_like.tools import tool

BUDGET = 1500


@tool
def note(text: str) -> str:
    """Write a note down."""
    return f"noted: {text}"


def _tokens(request: LLMRequest) -> int:
    count = openai_counter()
    total = count(request.system_prompt) + MESSAGE_OVERHEAD
    for message in request.messages:
        text = message.content
        if message.tool_calls:
            text += json.dumps([[c.name, c.arguments] for c in message.tool_calls],
                               ensure_ascii=False, default=str)
        if message.role == "tool":
            text = json.dumps([r.content if r.error is None else r.error.message
                               for r in message.tool_results], ensure_ascii=False, default=str)
        total += count(text) + MESSAGE_OVERHEAD
    return total


def _chat_reply(request: LLMRequest) -> ScriptedReply:
    """A call on a turn's first request, an answer after its results."""
    last = request.messages[-1]
    if last.role == "user":
        return ScriptedReply(text="Let me note that.", tool_calls=(NativeToolCall(
            None, "note", json.dumps({"text": last.content})),))
    return ScriptedReply(text=f"Done: {last.tool_results[0].content}. " + "ok " * 20)


@pytest.mark.slow
def test_a_200_turn_chat_stays_under_its_token_budget_with_no_orphan_result():
    pytest.importorskip("bpe_openai", reason="exact OpenAI counts need the tokens extra")
    llm = ScriptedLLM([_chat_reply] * 400, provider="openai")
    config = AgentConfig(name="chat", llm=llm, tools=[note], tool_format="native",
                         history_processors=[token_budget(BUDGET)])
    with Agent(config) as agent:
        for turn in range(200):
            assert agent.run(f"turn {turn}: remember the number {turn * 7}",
                             timeout=10).startswith("Done: noted")
        kept = agent.history
    assert len(llm.requests) == 400
    for number, request in enumerate(llm.requests):
        assert request.system_prompt  # never dropped
        assert _tokens(request) <= BUDGET, f"request {number} is over the budget"
        messages = request.messages
        assert messages[0].role == "user"  # whole turns only
        turn = number // 2
        assert f"turn {turn}:" in [m for m in messages if m.role == "user"][-1].content
        for index, message in enumerate(messages):  # no call without its result, no orphan
            if message.role == "tool":
                before = messages[index - 1]
                assert before.role == "assistant" and [c.id for c in before.tool_calls] == [
                    r.invocation_id for r in message.tool_results]
            if message.tool_calls:
                assert (index + 1 < len(messages) and messages[index + 1].role == "tool") or (
                    index == len(messages) - 1)
    assert len(llm.requests[-1].messages) < 100  # the budget bit: 800 messages were held
    assert len(kept) == 1 + 200 * 4  # the agent keeps the whole conversation


def test_a_durable_session_stores_everything_while_requests_are_shaped(tmp_path):
    from autobyteus_like.store._session import Session

    llm = ScriptedLLM([_chat_reply] * 20, provider="openai")
    config = AgentConfig(name="chat", llm=llm, tools=[note], tool_format="native",
                         history_processors=[keep_last_turns(2)])
    session = Session("long", str(tmp_path / "s.db"))
    with Agent(config, session=session) as agent:
        for turn in range(10):
            agent.run(f"turn {turn}", timeout=10)
    assert len(llm.requests[-1].messages) == 7  # two turns, the current one unfinished
    stored = session.store.history("long", "chat")
    assert [record.content for record in stored if record.role == "user"] == [
        f"turn {n}" for n in range(10)]
    assert len(stored) == 10 * 4


def _history(turns: int) -> list:
    history = [SystemMessage(content="system")]
    for turn in range(turns):
        history += [UserMessage(content=f"question {turn}"),
                    AssistantMessage(content="", format="native", tool_calls=[
                        {"id": f"c{turn}", "name": "note", "arguments": {"text": "x" * 40}}]),
                    ToolResultsMessage(format="native", results=[{
                        "invocation_id": f"c{turn}", "tool_name": "note",
                        "status": "success", "content": "y" * 40}]),
                    AssistantMessage(content=f"answer {turn}", format="native")]
    return history


def test_keep_last_turns_keeps_whole_turns_and_the_system_prompt():
    context = ProcessorContext("a")
    kept = keep_last_turns(2)(_history(5), context)
    assert kept[0].role == "system" and [m.content for m in kept if m.role == "user"] == [
        "question 3", "question 4"]
    assert len(keep_last_turns(4)(_history(5), ProcessorContext("a", overflowed=True))) == 9


def test_the_current_turn_is_sent_even_when_it_alone_is_over_the_budget():
    kept = token_budget(10, counter="estimate")(_history(3), ProcessorContext("a"))
    assert [m.role for m in kept] == ["system", "user", "assistant", "tool", "assistant"]
    assert kept[1].content == "question 2"


def test_the_estimate_is_used_for_models_outside_the_openai_family():
    pytest.importorskip("bpe_openai", reason="exact OpenAI counts need the tokens extra")
    budget = token_budget(10_000)
    assert budget.counter_for(ProcessorContext("a", "anthropic", "claude-sonnet-4")) is \
        estimate_tokens
    exact = budget.counter_for(ProcessorContext("a", "openai", "gpt-4o"))
    assert exact("hello world") == 2 and estimate_tokens("hello world") == 3


def test_summarize_older_replaces_old_turns_with_one_summary_and_extends_it():
    writer = ScriptedLLM(["summary #1", "summary #2", "summary #3"])
    summarize = summarize_older(writer, keep_last=2)
    first = summarize(_history(4), ProcessorContext("a"))
    assert [m.role for m in first[:2]] == ["system", "user"]
    assert first[1].content.endswith("summary #1") and "question 0" in \
        writer.requests[0].messages[0].content
    assert [m.content for m in first if m.role == "user"][1:] == ["question 2", "question 3"]
    summarize(_history(4), ProcessorContext("a"))
    assert len(writer.requests) == 1  # the same older turns are not summarised twice
    summarize(_history(5), ProcessorContext("a"))
    latest = writer.requests[-1].messages[0].content
    assert "summary #1" in latest and "question 2" in latest and "question 0" not in latest


class _Overflowing(LLM):
    """A provider that refuses requests longer than ``limit`` messages, as OpenAI does."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.sizes: list[int] = []

    def stream(self, request: LLMRequest, cancel: threading.Event):
        self.sizes.append(len(request.messages))
        if len(request.messages) > self.limit:
            raise LLMError("openai gpt-4o: HTTP 400: This model's maximum context length is "
                           "128000 tokens", provider="openai", status=400,
                           server_message="context_length_exceeded")
        yield LLMChunk(text="fine", final=True)


def test_a_context_overflow_runs_the_processors_harder_and_retries_once():
    llm = _Overflowing(limit=5)
    history = [m for m in _history(4)[1:]]
    config = AgentConfig(name="a", llm=llm, history_processors=[keep_last_turns(4)])
    with Agent(config) as agent:
        assert agent.run("go", history=history, timeout=10) == "fine"
    assert llm.sizes == [13, 5]  # four turns refused, then two (the current one included)


def test_without_processors_an_overflow_is_the_turns_error():
    llm = _Overflowing(limit=0)
    with Agent(AgentConfig(name="a", llm=llm)) as agent, pytest.raises(
            AgentTurnError, match="maximum context length"):
        agent.run("go", timeout=10)
    assert llm.sizes == [1]


def test_a_failing_or_careless_processor_is_the_turns_error_naming_it():
    def broken(messages):
        raise KeyError("oops")

    def careless(messages):
        return [{"role": "user", "content": "a dict, not a message"}]

    for processor, words in ((broken, "KeyError"), (careless, "careless returned list")):
        with Agent(AgentConfig(name="a", llm=ScriptedLLM(["x"]),
                               history_processors=[processor])) as agent, pytest.raises(
                AgentTurnError, match=f"a history processor failed: .*{words}"):
            agent.run("go", timeout=10)


def test_an_agent_sends_the_summary_in_place_of_its_older_turns():
    writer = ScriptedLLM(["Ada asked twice.", "Ada asked three times."])
    llm = ScriptedLLM(["one", "two", "three", "four"])
    config = AgentConfig(name="a", llm=llm,
                         history_processors=[summarize_older(writer, keep_last=2)])
    with Agent(config) as agent:
        for text in ("first", "second", "third", "fourth"):
            agent.run(text, timeout=10)
    assert [m.content for m in llm.requests[2].messages] == [
        "Summary of the earlier conversation:\nAda asked twice.", "second", "two", "third"]
    assert llm.requests[3].messages[0].content.endswith("Ada asked three times.")
    assert "Ada asked twice." in writer.requests[1].messages[0].content  # extended, not redone
