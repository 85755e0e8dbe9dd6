"""A stream holds a short XML call body back to read it whole: its events still come the moment
they are decided (ToolCallStarted with the ``<tool>`` tag, the call with its ``</tool>``), and
what it reads equals the whole text's, short body or long."""

from __future__ import annotations

import pytest

from autobyteus_like.formats import formatter_for, streaming_parser
from autobyteus_like.parsers import ParseEvent, ToolCallCompleted, ToolCallFailed, ToolCallStarted
from autobyteus_like.parsers._xml_call import HOLD_BODY
from tests.parsers.chunked_parsing import calls, parse_both_ways, parse_in_chunks
from tests.sample_tools import write_file

CALL = formatter_for("xml").format_call("write_file", {"path": "a.ts", "content": "x < y"})
TEXT = f"Hi {CALL} bye"


def _kinds(events: list[ParseEvent]) -> set[type]:
    return {type(event) for event in events}


@pytest.mark.parametrize("head", [CALL, CALL.replace("\n  <arguments>", "<arguments>", 1),
                                  CALL.replace('name="write_file"', 'name="write_file" id="c1"')])
def test_each_event_comes_with_the_chunk_that_decides_it(head):
    text = f"Hi {head} bye"
    tag_end = text.index(">") + 1
    call_end = text.index("</tool>") + len("</tool>")
    for cut in range(1, len(text)):
        parser = streaming_parser("xml", [write_file])
        first, second = parser.feed(text[:cut]), parser.feed(text[cut:])
        assert (ToolCallStarted in _kinds(first)) == (cut >= tag_end), cut
        assert (ToolCallCompleted in _kinds(first)) == (cut >= call_end), cut
        assert ToolCallCompleted in _kinds(first) | _kinds(second)


def test_a_next_call_before_the_close_ends_the_held_one_as_whole_text_does():
    text = CALL.replace("</tool>", "") + "\n" + CALL
    result = parse_both_ways(text, "xml", None)
    assert [e.message for e in result.errors] == [
        "the call to 'write_file' is malformed: the call is not closed with </tool> before "
        "the next <tool>"]
    assert calls(result) == [("write_file", {"path": "a.ts", "content": "x < y"})]


@pytest.mark.parametrize("size", [HOLD_BODY - 200, HOLD_BODY + 1, 5 * HOLD_BODY])
def test_bodies_short_and_long_stream_to_what_the_whole_text_reads(size):
    content = ("<b>bold</b> & text " * size)[:size]
    call = formatter_for("xml").format_call("write_file", {"path": "p", "content": content})
    text = f"Before. {call} after {call}"
    whole = parse_both_ways(text, "xml", None)
    assert calls(whole) == [("write_file", {"path": "p", "content": content})] * 2
    for sizes in ([16], [5, 300, 1]):
        assert calls(parse_in_chunks(text, "xml", sizes)) == calls(whole)


def test_a_held_body_cut_off_by_the_end_is_the_same_error_as_whole():
    text = TEXT[: TEXT.index("</arguments>")]
    parser = streaming_parser("xml", [write_file])
    events = [e for chunk in (text[:20], text[20:]) for e in parser.feed(chunk)]
    events += parser.finish()
    [failed] = [e for e in events if isinstance(e, ToolCallFailed)]
    whole = parse_both_ways(text, "xml", [write_file])
    assert [failed.error] == whole.errors
    assert "cut off" in failed.error.message
