"""History written in one format, replayed to an agent speaking another."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM
from autobyteus_like.formats import builtin_format
from autobyteus_like.formats._by_name import parse_tool_calls
from autobyteus_like.history import (
    AssistantMessage,
    ToolResultsMessage,
    UserMessage,
    history_from_json,
)
from autobyteus_like.history._replay import from_history, sendable, to_history
from autobyteus_like.llm._messages import NativeToolCall
from autobyteus_like.llm._scripted import ScriptedReply
from autobyteus_like.tools import tool

FORMATS = ["xml", "json", "openai", "gemini", "execute", "tool_call", "native"]


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _first_reply(fmt: str) -> str | ScriptedReply:
    if fmt == "native":
        return ScriptedReply(text="Adding.", tool_calls=(
            NativeToolCall("c1", "add", '{"a": 2, "b": 3}'),))
    return "Adding.\n" + builtin_format(fmt).formatter.format_call("add", {"a": 2, "b": 3})


def _recorded(fmt: str) -> list:
    """A real conversation held by an agent speaking ``fmt``: a call, its result, an answer."""
    llm = ScriptedLLM([_first_reply(fmt), "The sum is 5."], provider="openai")
    with Agent(AgentConfig(name="a", llm=llm, tools=[add], tool_format=fmt)) as agent:
        assert agent.run("What is 2 + 3?", timeout=10) == "The sum is 5."
        history = agent.history
    return history


@pytest.mark.parametrize("source", FORMATS)
def test_history_json_round_trips_exactly(source):
    history = _recorded(source)
    assert [m.role for m in history] == ["system", "user", "assistant", "tool", "assistant"]
    call = history[2].tool_calls[0]
    assert (call.name, {k: int(v) for k, v in call.arguments.items()}) == ("add",
                                                                           {"a": 2, "b": 3})
    assert history[3].results[0].status == "success" and history[3].results[0].content == 5
    assert history_from_json(json.dumps(json.loads(
        __import__("autobyteus_like.history", fromlist=["x"]).history_to_json(history))))\
        == history


@pytest.mark.parametrize("target", FORMATS)
@pytest.mark.parametrize("source", ["xml", "native", "execute"])
def test_calls_and_results_are_re_rendered_for_the_target_format(source, target):
    history = _recorded(source)
    tool_format = builtin_format(target)
    system, messages = from_history(history, tool_format)
    assert system is not None and system.startswith("You are")
    assistant, results = messages[1], messages[2]
    assert assistant.tool_calls == history[2].tool_calls
    if target == "native":
        assert assistant.content == "Adding." and results.role == "tool"
    else:
        parsed = parse_tool_calls(assistant.content, target, [add])
        assert [(c.name, {k: int(v) for k, v in c.arguments.items()})
                for c in parsed.invocations] == [("add", {"a": 2, "b": 3})]
        assert parsed.text.strip() == "Adding."
        assert results.role == "user" and "5" in results.content
        others = {"<tool ", "<execute>", "<TOOL_CALL>", '"tool_calls"'} - {
            "<tool " if target == "xml" else "", "<execute>" if target == "execute" else ""}
        if source != target:
            assert not any(marker in assistant.content for marker in others
                           if marker and marker not in tool_format.formatter.format_call(
                               "add", {"a": 1, "b": 1}))
        sent = sendable(messages, native=False)
        assert not any(m.tool_calls or m.tool_results for m in sent)  # text only, as read


def test_an_agent_seeded_from_another_formats_history_goes_on_from_it():
    history = _recorded("xml")
    # a ScriptedLLM given a seeded conversation starts at its first reply
    llm = ScriptedLLM([ScriptedReply(text="Still 5.")], provider="openai")
    with Agent(AgentConfig(name="b", llm=llm, tools=[add], tool_format="native")) as agent:
        assert agent.run("And again?", history=history, timeout=10) == "Still 5."
        seen = agent.history
    request = llm.requests[0]
    assert [m.role for m in request.messages] == ["user", "assistant", "tool", "assistant",
                                                  "user"]
    assert "<tool" not in request.messages[1].content  # no XML reaches a native model
    assert request.messages[1].tool_calls[0].name == "add"
    assert [m.role for m in seen[1:]] == ["user", "assistant", "tool", "assistant", "user",
                                          "assistant"]


def test_a_config_history_seeds_the_agent_at_start():
    history = [UserMessage(content="My name is Ada."),
               AssistantMessage(content="Hello Ada.")]
    llm = ScriptedLLM(["You are Ada."])
    config = AgentConfig(name="c", llm=llm, history=[m.model_dump() for m in history])
    with Agent(config) as agent:
        assert [(m.role, m.content) for m in agent.history[1:]] == [
            ("user", "My name is Ada."), ("assistant", "Hello Ada.")]
        assert agent.run("Who am I?", timeout=10) == "You are Ada."
    assert [m.content for m in llm.requests[0].messages] == ["My name is Ada.", "Hello Ada.",
                                                             "Who am I?"]
    assert agent.history[-1].content == "You are Ada."  # still readable once stopped


def test_results_without_their_call_are_still_rendered():
    history = [UserMessage(content="hi"),
               ToolResultsMessage(results=[{"invocation_id": "x1", "tool_name": "add",
                                            "status": "success", "content": 1}])]
    _, messages = from_history(history, builtin_format("json"))
    assert "add" in messages[1].content and messages[1].tool_results[0].content == 1


def test_to_history_reads_text_format_results_as_results():
    _, messages = from_history(_recorded("json"), builtin_format("json"))
    again = to_history(messages, "json")
    assert isinstance(again[2], ToolResultsMessage)


def test_a_broken_history_is_refused_saying_where():
    from autobyteus_like import ConfigError, history_from_json
    from autobyteus_like.history._replay import history_problems

    orphan = [UserMessage(content="hi"),
              ToolResultsMessage(results=[{"invocation_id": "x1", "tool_name": "add",
                                           "status": "success", "content": 1}])]
    unanswered = [UserMessage(content="hi"), AssistantMessage(tool_calls=[
        {"id": "c1", "name": "add", "arguments": {}}]), UserMessage(content="next")]
    assert history_problems(orphan) == [
        "history[1]: the result for 'x1' follows no call of that id"]
    assert history_problems(unanswered) == ["history[1]: the call 'c1' has no result after it"]
    with Agent(AgentConfig(name="a", llm=ScriptedLLM(["x"]))) as agent:
        with pytest.raises(ConfigError, match=r"history\[1\]: the call 'c1'"):
            agent.run("go", history=unanswered, timeout=10)
        assert agent.run("go", timeout=10) == "x"  # nothing was sent or lost
    with pytest.raises(ValueError, match="follows no call"):
        AgentConfig(name="a", llm=ScriptedLLM([]), history=orphan)
    with pytest.raises(ConfigError, match=r"history\[0\]"):
        history_from_json('[{"role": "assistant", "content": 5}]')


def test_a_session_keeps_a_seeded_conversation_and_a_restart_goes_on_from_it(tmp_path):
    from autobyteus_like.store._session import Session

    seed = [UserMessage(content="My name is Ada."), AssistantMessage(content="Hello Ada.")]
    url = str(tmp_path / "s.db")

    def config(script: list[str]) -> AgentConfig:
        return AgentConfig(name="a", llm=ScriptedLLM(script), history=seed)

    with Agent(config(["You are Ada."]), session=Session("s", url)) as agent:
        assert agent.run("Who am I?", timeout=10) == "You are Ada."
    # a restart on the session goes on from what it stored, not from the config's seed again
    llm_script = ["(1)", "Still Ada."]  # its one own reply is skipped (the seed's is not its)
    with Agent(config(llm_script), session=Session("s", url)) as agent:
        assert agent.run("And now?", timeout=10) == "Still Ada."
        contents = [m.content for m in agent.history[1:]]
    assert contents == ["My name is Ada.", "Hello Ada.", "Who am I?", "You are Ada.",
                        "And now?", "Still Ada."]
