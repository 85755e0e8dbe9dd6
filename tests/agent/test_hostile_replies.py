"""A hostile reply ends with the LLM reading clean results and the turn completing normally.

Real agents on ScriptedLLM: lone surrogates, integers too long for Python and nesting a hundred
thousand levels deep reach the parser, the id allocator, coercion and validation, and none of
them may end the turn with an exception.
"""

from __future__ import annotations

import json

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.events import AgentErrorOccurred, TurnCompleted
from autobyteus_like.parsers._limits import MAX_NESTING_DEPTH

DIGITS = "9" * 5_000  # more than Python's int() converts
RECEIVED: list[str] = []


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def echo(text: str) -> str:
    """Return the text it was given."""
    RECEIVED.append(text)
    return f"got {len(text)} characters"


def run_turn(llm: ScriptedLLM, tool_format: str) -> str:
    """One turn on a real agent; it must complete without an error event."""
    config = AgentConfig(name="target", llm=llm, tools=[add, echo], tool_format=tool_format)
    with Agent(config) as agent:
        events = agent.events()
        answer = agent.run("go", timeout=30)
        seen = []  # every event of the turn, up to and including its end
        while not seen or not isinstance(seen[-1], TurnCompleted):
            event = events.get(timeout=10)
            assert event is not None, "the agent stopped before the turn completed"
            seen.append(event)
    assert seen[-1].error is None
    assert [e for e in seen if isinstance(e, AgentErrorOccurred)] == []
    return answer


def results_shown(llm: ScriptedLLM) -> list[dict]:
    """The tool_result blocks the LLM was shown in its second request (json format)."""
    text = llm.requests[1].messages[-1].content
    return [json.loads(line)["tool_result"] for line in text.splitlines()[1:]]


def test_lone_surrogates_reach_the_tool_or_come_back_as_clean_errors():
    RECEIVED.clear()
    reply = (
        '{"name": "echo", "arguments": {"text": "raw \ud800 and escaped \\udfff"}}\n'
        '{"name": "ech\udc00", "arguments": {}}\n'  # no tool has such a name
        '{"name": "echo", "arguments": {"text": "\ud800", }}'  # broken JSON around one
    )
    llm = ScriptedLLM([reply, "handled"], chunk_size=(1, 7))
    assert run_turn(llm, "json") == "handled"
    assert RECEIVED == ["raw \ud800 and escaped \udfff"]  # unchanged, to the tool
    echoed, unknown, broken = results_shown(llm)
    assert (echoed["status"], echoed["content"]) == ("success", "got 19 characters")
    assert unknown["content"]["code"] == "UNKNOWN_TOOL"
    assert unknown["content"]["message"] == "there is no tool named 'ech\\\\udc00'"
    assert broken["content"]["code"] == "PARSE_ERROR"
    assert broken["content"]["message"].startswith("the tool call is not valid JSON")


def test_an_integer_of_five_thousand_digits_is_invalid_args_for_the_llm():
    reply = (f'{{"name": "add", "arguments": {{"a": "{DIGITS}", "b": 1}}}}\n'  # as text
             f'{{"name": "add", "arguments": {{"a": 1, "b": {DIGITS}}}}}')  # as a JSON number
    llm = ScriptedLLM([reply, "too big"], chunk_size=(1, 997))
    assert run_turn(llm, "json") == "too big"
    as_text, as_number = (result["content"] for result in results_shown(llm))
    assert as_text["code"] == as_number["code"] == "INVALID_ARGS"
    problem = "Unable to parse input string as an integer, exceeded maximum size"
    assert f"argument 'a': {problem}" in as_text["message"]
    assert f"argument 'b': {problem}" in as_number["message"]


@pytest.mark.parametrize("tool_format", ["xml", "json"])
def test_a_hundred_thousand_nested_items_are_a_parse_error_and_the_next_call_runs(tool_format):
    depth = 100_000
    if tool_format == "xml":
        deep = "<item>" * depth + "1" + "</item>" * depth
        reply = (f'<tool name="add"><arguments><arg name="a">{deep}</arg><arg name="b">2</arg>'
                 '</arguments></tool><tool name="add"><arguments><arg name="a">1</arg>'
                 '<arg name="b">2</arg></arguments></tool>')
    else:
        deep = "[" * depth + "1" + "]" * depth
        reply = (f'{{"name": "add", "arguments": {{"a": {deep}, "b": 2}}}}\n'
                 '{"name": "add", "arguments": {"a": 1, "b": 2}}')
    llm = ScriptedLLM([reply, "one failed"], chunk_size=(1, 997))
    assert run_turn(llm, tool_format) == "one failed"
    shown = llm.requests[1].messages[-1].content
    if tool_format == "json":
        failed, added = results_shown(llm)
        assert failed["content"]["code"] == "PARSE_ERROR" and added["content"] == 3
        assert failed["content"]["message"] == ("the tool call is refused: it nests deeper than "
                                                f"{MAX_NESTING_DEPTH} levels, the limit")
    else:
        assert shown.count('status="failure" code="PARSE_ERROR"') == 1
        assert shown.count('status="success">3</tool_result>') == 1
        assert (f"&lt;arg&gt;/&lt;item&gt; elements are nested deeper than {MAX_NESTING_DEPTH}"
                " levels") in shown


@tool
def total(values: list[int]) -> int:
    """Sum a list."""
    return sum(values)


def test_deep_json_in_a_string_argument_is_invalid_args():
    deep = "[" * 5_000 + "]" * 5_000  # a list argument given as JSON text, too deep to decode
    llm = ScriptedLLM([json.dumps({"name": "total", "arguments": {"values": deep}}), "ok"])
    config = AgentConfig(name="target", llm=llm, tools=[total], tool_format="json")
    with Agent(config) as agent:
        assert agent.run("go", timeout=30) == "ok"
    [shown] = results_shown(llm)
    assert shown["content"]["code"] == "INVALID_ARGS"


def test_native_arguments_nested_too_deep_are_an_invalid_json_result():
    from autobyteus_like.llm import NativeToolCall, ScriptedReply

    deep = '{"values": ' + "[" * 5_000 + "]" * 5_000 + "}"
    llm = ScriptedLLM([ScriptedReply(tool_calls=(NativeToolCall("c1", "total", deep),)), "ok"])
    config = AgentConfig(name="target", llm=llm, tools=[total], tool_format="native")
    with Agent(config) as agent:
        assert agent.run("go", timeout=30) == "ok"
    [result] = llm.requests[1].messages[-1].tool_results
    assert result.error is not None and result.error.code.value == "PARSE_ERROR"
    assert "invalid_json" in result.error.message
