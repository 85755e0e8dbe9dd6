"""A history written by a text format replays its calls with the arguments as the tool took
them: numbers as numbers, lists as lists, in every target format; a call whose tool is gone
keeps the values as written."""

from __future__ import annotations

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.llm._scripted import ScriptedReply


@tool
def scale(factor: float, tags: list[str]) -> str:
    """Scale something."""
    return f"{factor} {tags}"


XML_CALL = ('<tool name="scale"><arguments><arg name="factor">42.5</arg>'
            '<arg name="tags"><item>a</item><item>b</item></arg></arguments></tool>')


def _xml_history(tools: list) -> list:
    llm = ScriptedLLM([XML_CALL, "Scaled."])
    with Agent(AgentConfig(name="x", llm=llm, tools=tools, tool_format="xml")) as agent:
        agent.run("scale it", timeout=10)
        return agent.history


@pytest.mark.parametrize("fmt", ["json", "openai", "gemini", "execute", "tool_call", "native"])
def test_replayed_calls_carry_the_values_the_tool_took(fmt):
    history = _xml_history([scale])
    assert history[2].tool_calls[0].arguments["factor"] == "42.5"  # as the XML wrote it
    reply = ScriptedReply("Again.") if fmt == "native" else "Again."
    llm = ScriptedLLM([reply], provider="openai")
    with Agent(AgentConfig(name="j", llm=llm, tools=[scale], tool_format=fmt)) as agent:
        agent.run("and again?", timeout=10, history=history)
    replayed = llm.requests[0].messages[1]
    if fmt == "native":
        assert replayed.tool_calls[0].arguments == {"factor": 42.5, "tags": ["a", "b"]}
    else:  # the call as the model reads it, in its own format
        from autobyteus_like.formats._by_name import parse_tool_calls

        [call] = parse_tool_calls(replayed.content, fmt).invocations
        assert call.arguments == {"factor": 42.5, "tags": ["a", "b"]}


def test_a_call_whose_tool_is_gone_keeps_the_values_as_written():
    history = _xml_history([scale])
    llm = ScriptedLLM(["Again."])
    with Agent(AgentConfig(name="j", llm=llm, tool_format="json")) as agent:
        agent.run("and again?", timeout=10, history=history)
    assert '"factor": "42.5"' in llm.requests[0].messages[1].content
