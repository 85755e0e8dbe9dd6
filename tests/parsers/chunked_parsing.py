"""Parse a text whole and in chunks; the streamed result must equal the whole one."""

from __future__ import annotations

from typing import Any

from autobyteus_like.formats import parse_tool_calls, streaming_parser
from autobyteus_like.parsers import ParseResult
from autobyteus_like.tools import ToolRegistry


def parse_in_chunks(text: str, fmt: str, sizes: list[int], tools: ToolRegistry | None = None
                    ) -> ParseResult:
    """Feed ``text`` in chunks of the given sizes (cycled)."""
    parser = streaming_parser(fmt, tools)
    events, i, k = [], 0, 0
    while i < len(text):
        size = max(1, sizes[k % len(sizes)])
        events += parser.feed(text[i : i + size])
        i, k = i + size, k + 1
    return ParseResult.from_events(events + parser.finish())


def parse_cut_at(text: str, fmt: str, cuts: list[int], tools: Any = None) -> ParseResult:
    """Feed ``text`` cut at the given offsets (any order, repeats ignored)."""
    parser = streaming_parser(fmt, tools)
    events, start = [], 0
    for cut in [*sorted(set(cuts)), len(text)]:
        events += parser.feed(text[start:cut])
        start = cut
    return ParseResult.from_events(events + parser.finish())


def parse_both_ways(text: str, fmt: str, tools: ToolRegistry | None = None) -> ParseResult:
    """The whole-text result, checked against one-character and odd-sized streaming."""
    whole = parse_tool_calls(text, fmt, tools)
    for sizes in ([1], [3, 7, 2]):
        streamed = parse_in_chunks(text, fmt, sizes, tools)
        assert streamed.invocations == whole.invocations
        assert streamed.errors == whole.errors
        assert streamed.text == whole.text
    return whole


def calls(result: ParseResult) -> list[tuple[str, dict]]:
    """(name, arguments) of each invocation, for compact assertions."""
    return [(inv.name, inv.arguments) for inv in result.invocations]
