"""tool_choice and parallel_tool_calls per member, on real agents with ScriptedLLM: the native
request carries them; a text format teaches them in the manifest and enforces them with error
results the model can act on."""

from __future__ import annotations

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.errors import ConfigError
from autobyteus_like.llm import NativeToolCall
from autobyteus_like.llm._scripted import ScriptedReply
from autobyteus_like.team._config import TeamConfig
from autobyteus_like.tools._call_rules import CallRules, ToolChoice

ran: list[tuple[str, int]] = []


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    ran.append(("add", a + b))
    return a + b


@tool
def mul(a: int, b: int) -> int:
    """Multiply two numbers."""
    ran.append(("mul", a * b))
    return a * b


def call(name: str, a: int, b: int) -> str:
    return f'<tool name="{name}"><arguments><arg name="a">{a}</arg><arg name="b">{b}</arg>' \
           f'</arguments></tool>'


def run(llm: ScriptedLLM, **config) -> tuple[Agent, str]:
    ran.clear()
    agent = Agent(AgentConfig(name="a", llm=llm, tools=[add, mul], tool_format="xml", **config))
    with agent:
        answer = agent.run("go", timeout=10)
    return agent, answer


def test_required_is_taught_and_a_reply_without_a_call_is_fed_back_once_per_turn():
    llm = ScriptedLLM(["I think it is 5.", call("add", 2, 3), "It is 5.",
                       "No tools today.", "Really none."])
    ran.clear()
    agent = Agent(AgentConfig(name="a", llm=llm, tools=[add, mul], tool_format="xml",
                              tool_choice="required"))
    with agent:
        first = agent.run("go", timeout=10)
        second = agent.run("again", timeout=10)
    assert "A tool call is required: call a tool before you answer" in agent.system_prompt
    assert ran == [("add", 5)]
    assert "a tool call is required before you answer (tool_choice: required)" in \
        llm.requests[1].messages[-1].content
    # once the turn made its call, its answer stands (no loop); the next turn asks again, once
    assert first == "It is 5."
    assert "tool_choice: required" in llm.requests[4].messages[-1].content
    assert second == "Really none." and len(llm.requests) == 5


def test_a_named_tool_is_the_only_one_taught_and_the_only_one_run():
    llm = ScriptedLLM([call("mul", 2, 3) + call("add", 2, 3), "Done."])
    agent, _ = run(llm, tool_choice={"tool": "add"})
    assert "### add" in agent.system_prompt and "### mul" not in agent.system_prompt
    assert ran == [("add", 5)]
    assert "only the tool 'add' may be called here" in llm.requests[1].messages[-1].content


def test_none_teaches_no_tool_and_refuses_a_call():
    llm = ScriptedLLM([call("add", 1, 1), "Two."])
    agent, answer = run(llm, tool_choice="none")
    assert "add" not in agent.system_prompt and ran == [] and answer == "Two."
    assert "tool_choice: none" in llm.requests[1].messages[-1].content


def test_one_call_per_reply_runs_the_first_and_refuses_the_rest_in_their_places():
    llm = ScriptedLLM([call("add", 1, 2) + call("mul", 2, 3) + call("add", 4, 4), "Done."])
    agent, _ = run(llm, parallel_tool_calls=False)
    assert "at most one tool call per reply" in agent.system_prompt
    assert ran == [("add", 3)]
    results = llm.requests[1].messages[-1].content
    assert results.count("parallel_tool_calls: false") == 2
    assert results.index("3") < results.index("parallel_tool_calls")  # invocation order


def test_native_requests_carry_the_rules_relaxed_to_auto_once_the_call_was_made():
    native = ScriptedReply(tool_calls=(NativeToolCall("c1", "add", '{"a": 1, "b": 2}'),))
    llm = ScriptedLLM([native, "Three."])
    with Agent(AgentConfig(name="a", llm=llm, tools=[add], tool_format="native",
                           tool_choice={"tool": "add"}, parallel_tool_calls=False)) as agent:
        assert agent.run("go", timeout=10) == "Three."
    assert [request.rules for request in llm.requests] == [
        CallRules(ToolChoice("tool", "add"), parallel=False),
        CallRules(ToolChoice("auto"), parallel=False)]


def test_yaml_takes_tool_choice_and_a_bad_one_is_located():
    member = {"name": "m", "llm": {"provider": "scripted", "responses": ["x"]},
              "tool_choice": {"tool": "add"}, "parallel_tool_calls": False}
    team = TeamConfig.from_data({"name": "t", "coordinator": "m", "members": [member]})
    assert team.members[0].call_rules() == CallRules(ToolChoice("tool", "add"), False)
    with pytest.raises(ConfigError) as caught:
        TeamConfig.from_data({"name": "t", "coordinator": "m",
                              "members": [{**member, "tool_choice": "always"}]})
    assert "members[0].tool_choice: tool_choice must be auto, required, none or {tool: NAME}" \
        in str(caught.value)
