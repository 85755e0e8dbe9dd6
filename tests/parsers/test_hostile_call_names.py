"""A call whose name is empty, blank or odd, in every format (text formats and native): never a
crash of the parser or the turn, always a result the model can act on (a PARSE_ERROR for a
call that names no tool, an UNKNOWN_TOOL for a name no tool has), and the other calls of the
response still run."""

from __future__ import annotations

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.formats import TEXT_FORMATS, parse_tool_calls
from autobyteus_like.history._messages import ToolResultsMessage
from autobyteus_like.llm._messages import NativeToolCall
from autobyteus_like.llm._scripted import ScriptedReply
from tests.parsers.test_properties import CALL_TEMPLATES

FORMATS = [f.value for f in TEXT_FORMATS]
NAMES = ["", " ", "\t", "no such tool", "note ", "\\u0000", "<", '"']


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", NAMES)
def test_a_call_naming_no_tool_is_a_parse_error_or_an_unknown_tool_never_a_crash(fmt, name):
    text = CALL_TEMPLATES[fmt].format(name=name, arg="text", value='"x"' if fmt != "xml"
                                      else "x")
    parsed = parse_tool_calls(text, fmt)  # must not raise
    assert all(invocation.name for invocation in parsed.invocations)
    if not name:  # a call that names no tool is the model's to fix: an error it is shown
        assert parsed.errors and not parsed.invocations


@tool
def note(text: str) -> str:
    """Note it."""
    return "noted " + text


@pytest.mark.parametrize("fmt", [*FORMATS, "native"])
def test_a_response_with_a_nameless_call_gets_its_results_and_the_turn_goes_on(fmt):
    if fmt == "native":
        first: str | ScriptedReply = ScriptedReply(tool_calls=(
            NativeToolCall(id="c1", name="", arguments='{"text": "x"}'),
            NativeToolCall(id="c2", name="note", arguments='{"text": "y"}')))
    else:
        first = (CALL_TEMPLATES[fmt].format(name="", arg="text",
                                            value="x" if fmt == "xml" else '"x"') + "\n"
                 + CALL_TEMPLATES[fmt].format(name="note", arg="text",
                                              value="y" if fmt == "xml" else '"y"'))
    config = AgentConfig(name="a", llm=ScriptedLLM([first, "done"]), tools=[note],
                         tool_format=fmt)
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"
        history = agent.history
    [results] = [m for m in history if isinstance(m, ToolResultsMessage)]
    statuses = [(r.status, r.error.code if r.error else None) for r in results.results]
    assert ("success", None) in statuses  # the good call ran
    assert any(code in ("PARSE_ERROR", "UNKNOWN_TOOL") for _, code in statuses), statuses
