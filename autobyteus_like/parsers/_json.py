"""The JSON formats (openai, gemini, json): calls are JSON values anywhere in the text.

All three read every known call shape (``call_shapes``), because models mix them.
"""

from __future__ import annotations

from autobyteus_like.parsers._base import FormatParser
from autobyteus_like.parsers._call_shapes import (
    CallSpec,
    broken_call_identity,
    extract_calls,
    looks_like_call_text,
)
from autobyteus_like.parsers._json_scanner import (
    CANDIDATE,
    TOO_DEEP,
    BrokenJson,
    JsonSegment,
    JsonTextScanner,
    JsonValue,
    Prose,
)
from autobyteus_like.parsers._parse_events import ParseEvent, TextDelta
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["JsonToolCallParser", "json_value_events"]


def json_value_events(
    parser: FormatParser, value: object, raw: str, explicit: bool
) -> list[ParseEvent] | None:
    """The events for one JSON value, or None if it holds no call (it is prose)."""
    found = extract_calls(value, explicit=explicit)
    if found is None:
        return None
    events: list[ParseEvent] = []
    for item in found:
        if isinstance(item, CallSpec):
            events.extend(parser.calls.from_spec(item, raw))
        else:
            events.append(parser.calls.failure(item.message, raw, name=item.name))
    return events


class JsonToolCallParser(FormatParser):
    """JSON objects and arrays, inline or fenced, in document order, in one pass."""

    def __init__(
        self,
        tools: ToolRegistry | None,
        ids: InvocationIdAllocator,
        format: str = "json",
    ) -> None:
        self.format_name = format
        super().__init__(tools, ids)
        self._scanner = JsonTextScanner()

    def feed(self, chunk: str) -> list[ParseEvent]:
        scanner = self._scanner
        if not scanner.in_candidate and (
                ("{" not in chunk and "[" not in chunk) or CANDIDATE.search(chunk) is None):
            return [TextDelta(chunk)]  # prose, code braces included
        segments = scanner.feed(chunk)
        return self._events(segments) if segments else []

    def finish(self) -> list[ParseEvent]:
        scanner = self._scanner
        return self._events(scanner.finish()) if scanner.in_candidate else []

    def _names_a_tool(self, text: str) -> bool:
        """Whether broken JSON names a known tool as a value (``"add"``): a call that was
        meant (a cut-off last element of a call list, for one), never silent prose."""
        return self.tools is not None and any(f'"{name}"' in text
                                              for name in self.tools.names())

    def _events(self, segments: list[JsonSegment]) -> list[ParseEvent]:
        events: list[ParseEvent] = []
        for segment in segments:
            if isinstance(segment, Prose):
                events.append(segment)
            elif isinstance(segment, JsonValue):
                found = json_value_events(self, segment.value, segment.raw, explicit=False)
                events.extend(found if found is not None else [TextDelta(segment.raw)])
            elif isinstance(segment, BrokenJson) and (
                    looks_like_call_text(segment.leftover) or self._names_a_tool(segment.raw)):
                what = ("is cut off" if segment.truncated else "is refused"
                        if segment.reason == TOO_DEEP else "is not valid JSON")
                name, call_id = broken_call_identity(segment.call)
                events.append(self.calls.failure(f"the tool call {what}: {segment.reason}",
                                                 segment.raw, name=name, call_id=call_id))
        return events
