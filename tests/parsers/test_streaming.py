import pytest

from autobyteus_like.parsers import (
    StreamingToolCallParser,
    TextDelta,
    ToolCallCompleted,
    ToolCallStarted,
)


def test_a_call_is_emitted_the_moment_its_closing_marker_arrives():
    parser = StreamingToolCallParser("xml")
    assert parser.feed('Hi <tool name="a" id="x1"><arguments><arg name="k">v</arg>') == [
        TextDelta("Hi "), ToolCallStarted(index=0, name="a", id="x1")]
    [completed] = parser.feed("</arguments></tool>")
    assert isinstance(completed, ToolCallCompleted)
    assert (completed.index, completed.invocation.id) == (0, "x1")
    assert parser.feed(" more text") == [TextDelta(" more text")]


def test_json_calls_are_emitted_when_the_value_closes():
    parser = StreamingToolCallParser("openai")
    assert parser.feed('{"name": "a", "arguments": {"k": ') == []
    events = parser.feed('"v"}} after')
    assert [type(e).__name__ for e in events] == [
        "ToolCallStarted", "ToolCallCompleted", "TextDelta"]


def test_documented_misuse_errors():
    parser = StreamingToolCallParser("json")
    with pytest.raises(TypeError, match="feed\\(\\) takes text, got bytes"):
        parser.feed(b"{}")  # type: ignore[arg-type]
    parser.finish()
    assert parser.finish() == []
    with pytest.raises(RuntimeError, match="this parser has finished"):
        parser.feed("more")
    with pytest.raises(ValueError, match="unknown tool call format 'yml'"):
        StreamingToolCallParser("yml")
