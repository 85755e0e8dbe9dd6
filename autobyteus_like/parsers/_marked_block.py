"""Formats whose calls are JSON inside marker tags: ``<execute>`` (seed 000), ``<TOOL_CALL>`` (004).

The closing marker is searched for outside JSON strings only, so ``</execute>`` inside an
argument is content. Blocks of ignored text (``<think>``) are skipped whole, calls included.
"""

from __future__ import annotations

import re

from autobyteus_like.parsers._base import FormatParser
from autobyteus_like.parsers._call_shapes import broken_call_identity
from autobyteus_like.parsers._json import json_value_events
from autobyteus_like.parsers._json_scanner import (
    BrokenJson,
    JsonTextScanner,
    JsonValue,
    json_error,
)
from autobyteus_like.parsers._parse_events import ParseEvent, TextDelta, ToolCallCompleted
from autobyteus_like.parsers._partial_marker import PartialMarker
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["MarkedBlockParser"]

_TEXT, _BLOCK, _IGNORED = range(3)
# The rest of a JSON string up to its closing quote (or the end of the data, or a backslash that
# ends it), escapes included: a block's strings are crossed at C speed, whatever they escape.
_STRING_REST = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+', re.DOTALL)


class MarkedBlockParser(FormatParser):
    """Subclasses set the markers and whether a block must hold an array."""

    open_marker: str = ""
    close_marker: str = ""
    ignored_open: str | None = None
    ignored_close: str | None = None
    require_array: bool = False

    def __init__(self, tools: ToolRegistry | None, ids: InvocationIdAllocator) -> None:
        super().__init__(tools, ids)
        opens = [self.open_marker] + ([self.ignored_open] if self.ignored_open else [])
        self._open = re.compile("|".join(re.escape(m) for m in opens), re.IGNORECASE)
        self._outside = re.compile(r'"|' + re.escape(self.close_marker), re.IGNORECASE)
        self._ignored_end = re.compile(re.escape(self.ignored_close or "\x00"), re.IGNORECASE)
        self._open_hold = PartialMarker(opens)
        self._close_hold = PartialMarker([self.close_marker])
        self._ignored_hold = PartialMarker([self.ignored_close or "\x00"])
        self._state = _TEXT
        self._pending = ""
        self._parts: list[str] = []
        self._in_string = False
        self._escaped = False

    def feed(self, chunk: str) -> list[ParseEvent]:
        if not self._pending:
            if self._state == _TEXT and "<" not in chunk:
                return [TextDelta(chunk)]  # the common streaming case: plain prose
            if (self._state == _BLOCK and self._in_string and not self._escaped
                    and _STRING_REST.fullmatch(chunk)):
                self._parts.append(chunk)  # the middle of a long string value
                return []
        data, self._pending = self._pending + chunk, ""
        events: list[ParseEvent] = []
        i, n = 0, len(data)
        while i < n:
            if self._state == _TEXT:
                match = self._open.search(data, i)
                if match is None:
                    keep = self._open_hold.hold(data, i)
                    if n - keep > i:
                        events.append(TextDelta(data[i : n - keep]))
                    self._pending = data[n - keep :]
                    break
                if match.start() > i:
                    events.append(TextDelta(data[i : match.start()]))
                i = match.end()
                if match.group(0).lower() == self.open_marker.lower():
                    self._state, self._parts = _BLOCK, []
                    self._in_string = self._escaped = False
                else:
                    self._state = _IGNORED
            elif self._state == _IGNORED:
                match = self._ignored_end.search(data, i)
                if match is None:
                    keep = self._ignored_hold.hold(data, i)
                    self._pending = data[n - keep :]
                    break
                self._state, i = _TEXT, match.end()
            else:
                i = self._scan_block(data, i, events)
        return events

    def _scan_block(self, data: str, i: int, events: list[ParseEvent]) -> int:
        """Advance through a block body; on its closing marker, emit the block's events."""
        n = len(data)
        parts = self._parts
        while i < n:
            if self._escaped:
                parts.append(data[i])
                self._escaped = False
                i += 1
            elif self._in_string:
                j = _STRING_REST.match(data, i).end()  # type: ignore[union-attr]
                if j == n:
                    parts.append(data[i:])
                    return n
                parts.append(data[i : j + 1])  # up to a closing quote, or a backslash at the end
                i = j + 1
                if data[j] == "\\":
                    self._escaped = True
                else:
                    self._in_string = False
            else:
                match = self._outside.search(data, i)
                if match is None:
                    keep = self._close_hold.hold(data, i)
                    parts.append(data[i : n - keep])
                    self._pending = data[n - keep :]
                    return n
                if match.group(0) == '"':
                    parts.append(data[i : match.end()])
                    self._in_string = True
                    i = match.end()
                    continue
                parts.append(data[i : match.start()])
                self._state = _TEXT
                events.extend(self._block("".join(parts)))
                self._parts = []
                return match.end()
        return n

    def finish(self) -> list[ParseEvent]:
        events: list[ParseEvent] = []
        if self._state == _TEXT and self._pending:
            events.append(TextDelta(self._pending))
        elif self._state == _BLOCK:
            body = "".join(self._parts) + self._pending
            self._parts, self._state = [], _TEXT
            # An unbalanced quote hides the closing marker from the string-aware scan; a plain
            # marker still ends the block, so the text after it is not lost.
            plain = re.search(re.escape(self.close_marker), body, re.IGNORECASE)
            if plain is not None:
                self._pending = ""
                events.extend(self._block(body[: plain.start()]))
                events.extend(self.feed(body[plain.end() :]))
                return events + self.finish()
            raw = self.open_marker + body
            events.append(self.calls.failure(
                f"the {self.open_marker} block is cut off: no closing {self.close_marker}", raw
            ))
            events.append(TextDelta(raw))
        self._pending = ""
        return events

    def _block(self, body: str) -> list[ParseEvent]:
        """The events of one complete block body."""
        raw = f"{self.open_marker}{body}{self.close_marker}"
        scanner = JsonTextScanner()
        segments = scanner.feed(body) + scanner.finish()
        values = [s for s in segments if isinstance(s, JsonValue)]
        broken = [s for s in segments if isinstance(s, BrokenJson)]
        events: list[ParseEvent] = []
        if len(values) == 1 and not broken and values[0].raw.strip() == body.strip():
            value = values[0].value
            if self.require_array and not isinstance(value, list):
                events.append(self.calls.failure(
                    f"an {self.open_marker} block must hold a JSON array of calls", raw
                ))
            else:
                events.extend(json_value_events(self, value, body, explicit=True) or [])
        else:
            # Not one valid JSON value: keep every valid call inside and report the block once,
            # in the place of its first broken part, with json's own diagnosis of the body.
            reason = json_error(body.strip()) or "more than one JSON value"
            message = f"invalid JSON in the {self.open_marker} block: {reason}"
            reported = False
            for segment in segments:
                if isinstance(segment, JsonValue):
                    events.extend(json_value_events(self, segment.value, segment.raw, True) or [])
                elif isinstance(segment, BrokenJson) and not reported:
                    name, call_id = broken_call_identity(segment.call)
                    events.append(self.calls.failure(message, raw, name=name, call_id=call_id))
                    reported = True
            if not reported:
                events.append(self.calls.failure(message, raw))
        if not any(isinstance(event, ToolCallCompleted) for event in events):
            events.append(TextDelta(raw))
        return events
