"""The per-chunk shortcuts of streaming: a chunk that holds no structural character is taken in
one step, and a chunk's held-back tail is found by one regular expression. Each must leave the
parser exactly where reading the chunk the long way would."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like.formats import parse_tool_calls
from autobyteus_like.parsers._json_scanner import _UNFINISHED, _short_value
from autobyteus_like.parsers._json_tracker import JsonTracker, Status
from autobyteus_like.parsers._partial_marker import PartialMarker
from tests.parsers.chunked_parsing import calls, parse_both_ways, parse_in_chunks
from tests.stress_rounds import rounds

MARKERS = ["<execute>", "<think>", "<TOOL_CALL>", "]]>", "<arg ", "</arguments>"]


def longest_held(markers: list[str], data: str, start: int, ignore_case: bool) -> int:
    """By definition: the longest suffix of data[start:] equal, under re's case-insensitivity
    when asked, to a proper prefix of a marker."""
    flags = re.IGNORECASE if ignore_case else 0
    tail = data[start:]
    for size in range(len(tail), 0, -1):
        suffix = tail[-size:]
        if any(re.fullmatch(re.escape(m[:size]), suffix, flags) for m in markers
               if size < len(m)):
            return size
    return 0


@settings(max_examples=rounds(100, 400), deadline=None)
@given(data=st.lists(st.sampled_from([*"<>]/ aeiktTI", "\u0131", "\u0130", "\u212a", "<exe",
                                      "<TOOL_C", "]]", "<th"]), max_size=12).map("".join),
       start=st.integers(0, 20), ignore_case=st.booleans())
def test_the_held_tail_is_the_longest_suffix_that_may_begin_a_marker(data, start, ignore_case):
    start = min(start, len(data))
    held = PartialMarker(MARKERS, ignore_case=ignore_case).hold(data, start)
    assert held == longest_held(MARKERS, data, start, ignore_case)


def test_a_held_tail_never_reaches_before_the_start():
    assert PartialMarker(["<execute>"]).hold("ab<exe", 2) == 4
    assert PartialMarker(["<execute>"]).hold("ab<exe", 3) == 0  # its '<' was already read
    assert PartialMarker(["<execute>"]).hold("ab<exe", 6) == 0
    assert PartialMarker([]).hold("<", 0) == 0


# Strings a model writes in its JSON arguments, dense in what the escapes and quotes decide.
ESCAPY = st.lists(st.sampled_from(['"', "\\", "\n", "/", "\u2028", "\x7f", "a", "é", "<",
                                   "</execute>", "</TOOL_CALL>", "{", "]", "\ud800"]),
                  max_size=30).map("".join)


@pytest.mark.parametrize("fmt", ["json", "openai", "execute", "tool_call"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(ESCAPY, min_size=1, max_size=3), ascii_only=st.booleans(),
       sizes=st.lists(st.integers(1, 20), min_size=1, max_size=4))
def test_escaped_strings_stream_to_the_arguments_they_were_written_from(
        fmt, values, ascii_only, sizes):
    arguments = {f"k{n}": value for n, value in enumerate(values)}
    body = json.dumps({"name": "f", "arguments": arguments} if fmt != "execute"
                      else [{"name": "f", "args": arguments}], ensure_ascii=ascii_only)
    if fmt == "tool_call":
        body = json.dumps({"tool": "f", "args": arguments}, ensure_ascii=ascii_only)
    text = {"execute": f"Run: <execute>{body}</execute> done",
            "tool_call": f"Run: <TOOL_CALL>{body}</TOOL_CALL> done"}.get(fmt, f"Run: {body} done")
    assert calls(parse_both_ways(text, fmt)) == [("f", arguments)]
    assert calls(parse_in_chunks(text, fmt, sizes)) == [("f", arguments)]


@pytest.mark.parametrize("fmt", ["json", "execute"])
def test_a_chunk_ending_inside_an_escape_is_finished_by_the_next(fmt):
    value = 'say \\"hi\\" and \\u00e9 \\\\ done'  # as written inside the JSON string
    body = '{"name": "f", "arguments": {"x": "' + value + '"}}'
    text = f"<execute>[{body}]</execute>" if fmt == "execute" else body
    expected = [("f", {"x": json.loads('"' + value + '"')})]
    for cut in range(len(text)):
        assert calls(parse_in_chunks(text, fmt, [cut or 1, 3])) == expected


# -- a short JSON value read by json alone, held in a stream until a closing bracket ---------

# Pieces of JSON values, whole or damaged: escapes, multi-byte and surrogate characters,
# numbers json refuses or cannot convert, nesting near the limit, and what breaks a value.
JSON_PIECES = st.sampled_from([
    "{", "}", "[", "]", '"', ":", ",", " ", "\n", '"a"', '"k": ', "1", "-0.5e3", "true",
    "null", "NaN", "-Infinity", "tr", "1.", '"\\u00e9"', '"\\ud800"', "\\", '\\"', "é",
    "\u20ac", "\U0001f600", "\x01", "9" * 5_000, "[" * 99, "]" * 99, "[" * 101, "]" * 101,
    '{"name": "f", "arguments": {"x": ', '"</TOOL_CALL>"', "x",
])


@settings(max_examples=rounds(100, 600), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.lists(JSON_PIECES, max_size=14).map("".join), opener=st.sampled_from("{["))
def test_json_alone_reads_a_short_value_as_the_tracker_does(data, opener):
    """What json alone says of a value's text is what the tracker says of it, or nothing."""
    text = opener + data
    read = _short_value(text, 0)
    tracker = JsonTracker()
    status, index = tracker.feed(text, 0)
    if read is _UNFINISHED:
        assert status is Status.MORE  # json saw no fault before the end: the tracker neither
    elif read is not None:
        value, end = read
        assert (status, index) == (Status.COMPLETE, end) and not tracker.too_deep
        assert value == json.loads(text[:end]) or value != value  # (NaN is not itself)


@pytest.mark.parametrize("fmt", ["json", "openai", "gemini"])
@settings(max_examples=rounds(25, 300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.one_of(ESCAPY, st.sampled_from(["\U0001f600é", "x" * 1_100])),
                       min_size=1, max_size=3),
       damage=st.sampled_from(["none", "cut", "insert", "twice"]), at=st.integers(0, 200),
       sizes=st.lists(st.integers(1, 40), min_size=1, max_size=4))
def test_a_held_short_value_streams_as_it_reads_whole(fmt, values, damage, at, sizes):
    """Held until a closing bracket, then read by json (or by the tracker from its bracket,
    when json cannot read it: broken, cut off, longer than it is tried on)."""
    arguments = {f"k{n}": value for n, value in enumerate(values)}
    call = {"json": {"name": "f", "arguments": arguments},
            "openai": {"tool_calls": [{"type": "function",
                                       "function": {"name": "f", "arguments": arguments}}]},
            "gemini": {"name": "f", "args": arguments}}[fmt]
    body = json.dumps(call, ensure_ascii=False)
    at = min(at, len(body))
    body = {"cut": body[:at], "insert": body[:at] + "x" + body[at:],
            "twice": body + "\n" + body}.get(damage, body)
    text = f"Run: {body} and [1, 2] or {{}} done"
    whole = parse_tool_calls(text, fmt)
    streamed = parse_in_chunks(text, fmt, sizes)
    assert streamed.invocations == whole.invocations
    assert streamed.errors == whole.errors
    assert streamed.text == whole.text
    if damage == "none":
        assert calls(whole) == [("f", arguments)]
