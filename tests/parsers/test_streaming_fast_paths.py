"""The per-chunk shortcuts of streaming: a chunk that holds no structural character is taken in
one step, and a chunk's held-back tail is found by one regular expression. Each must leave the
parser exactly where reading the chunk the long way would."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
