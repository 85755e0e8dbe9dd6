import pytest

from autobyteus_like.formats import streaming_parser
from autobyteus_like.parsers import (
    TextDelta,
    ToolCallCompleted,
    ToolCallStarted,
)
from tests.parsers.chunked_parsing import parse_both_ways


def test_a_call_is_emitted_the_moment_its_closing_marker_arrives():
    parser = streaming_parser("xml")
    assert parser.feed('Hi <tool name="a" id="x1"><arguments><arg name="k">v</arg>') == [
        TextDelta("Hi "), ToolCallStarted(index=0, name="a", id="x1")]
    [completed] = parser.feed("</arguments></tool>")
    assert isinstance(completed, ToolCallCompleted)
    assert (completed.index, completed.invocation.id) == (0, "x1")
    assert parser.feed(" more text") == [TextDelta(" more text")]


def test_json_calls_are_emitted_when_the_value_closes():
    parser = streaming_parser("openai")
    assert parser.feed('{"name": "a", "arguments": {"k": ') == []
    events = parser.feed('"v"}} after')
    assert [type(e).__name__ for e in events] == [
        "ToolCallStarted", "ToolCallCompleted", "TextDelta"]


def test_documented_misuse_errors():
    parser = streaming_parser("json")
    with pytest.raises(TypeError, match="feed\\(\\) takes text, got bytes"):
        parser.feed(b"{}")  # type: ignore[arg-type]
    parser.finish()
    assert parser.finish() == []
    with pytest.raises(RuntimeError, match="this parser has finished"):
        parser.feed("more")
    with pytest.raises(ValueError, match="unknown tool call format 'yml'"):
        streaming_parser("yml")


@pytest.mark.parametrize("opening", ["<th\u0131nk>", "<thin\u212a>", "<THİNK>"])
def test_a_marker_spelled_with_characters_case_folding_matches_streams_as_it_reads_whole(opening):
    # Markers are found case-insensitively by ``re``, which matches dotless ı, İ and the Kelvin
    # sign to i and k; the held-back tail of a chunk used str.lower(), which does not, so such an
    # opening was given out as text one character at a time and its block ran as a call.
    text = (f'a {opening}[{{"name": "f", "args": {{}}}}]</think> '
            '<execute>[{"name": "g", "args": {}}]</execute>')
    whole = parse_both_ways(text, "execute")
    assert [i.name for i in whole.invocations] == ["g"]
