"""Finds JSON objects and arrays in free text, streamed or whole, in one linear pass.

Text between values is prose. A ``{`` or ``[`` that can begin JSON starts a candidate, which the
incremental ``JsonTracker`` follows to its end; ``json.loads`` then reads exactly that span. (Not
``raw_decode`` on the whole text: each failure there counts the newlines before it, which is
quadratic over a long response.) A candidate that stops being JSON is not retried from each of
its inner brackets (the other quadratic trap): the tracker already knows the maximal containers
that closed inside it, and those are salvaged as values; scanning then resumes at the offending
character. Fenced blocks need no special case: the fence is prose around the value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from autobyteus_like.parsers.json_tracker import JsonTracker, Status

__all__ = ["BrokenJson", "JsonSegment", "JsonTextScanner", "JsonValue", "Prose"]

# A bracket that can begin JSON. The lookahead only skips brackets the tracker would reject at
# once (``{ return``, ``a[i]``), with the same outcome; a bracket whose next character is not in
# this chunk yet is always a candidate.
_CANDIDATE = re.compile(
    r'\{(?=[ \t\n\r]*["}])|\[(?=[ \t\n\r]*[\[\]{"\-0-9tfnNI])|[\[{](?=[ \t\n\r]*\Z)'
)


@dataclass(frozen=True, slots=True)
class Prose:
    """Text that is not part of a JSON value."""

    text: str


@dataclass(frozen=True, slots=True)
class JsonValue:
    """A complete, valid JSON object or array and the exact text it was read from."""

    value: Any
    raw: str


@dataclass(frozen=True, slots=True)
class BrokenJson:
    """A candidate that never became valid JSON. Its text was already given out as Prose and
    salvaged JsonValues; ``leftover`` is the part that was neither (where a broken call would be).
    """

    raw: str
    leftover: str
    reason: str
    truncated: bool


JsonSegment = Prose | JsonValue | BrokenJson


def json_error(text: str) -> str:
    """json's own description of what is wrong with ``text`` ('' if it is valid JSON)."""
    return _loads(text)[2]


def _loads(text: str) -> tuple[bool, Any, str]:
    try:
        return True, json.loads(text), ""
    except RecursionError:
        return False, None, "nested too deeply"
    except ValueError as exc:
        return False, None, str(exc)


class JsonTextScanner:
    """Streams text in, JSON values and prose out; ``finish`` closes what the text left open."""

    def __init__(self) -> None:
        self._tracker = JsonTracker()
        self._in_candidate = False
        self._parts: list[str] = []

    def feed(self, data: str) -> list[JsonSegment]:
        """Scan one chunk; return the segments it decided."""
        out: list[JsonSegment] = []
        i, n = 0, len(data)
        while i < n:
            if not self._in_candidate:
                match = _CANDIDATE.search(data, i)
                if match is None:
                    out.append(Prose(data[i:]))
                    break
                start = match.start()
                if start > i:
                    out.append(Prose(data[i:start]))
                self._tracker.reset()
                self._parts = []
                self._in_candidate = True
                i = start
            status, index = self._tracker.feed(data, i)
            self._parts.append(data[i:index])
            i = index
            if status is Status.MORE:
                break
            self._in_candidate = False
            raw = "".join(self._parts)
            self._parts = []
            if status is Status.COMPLETE:
                ok, value, reason = _loads(raw)
                if ok:
                    out.append(JsonValue(value, raw))
                    continue
                # Valid syntax that json still refused (nesting depth): nothing inside to save.
                out.extend(self._salvage(raw, [], reason, truncated=False))
            else:
                reason = json_error(raw)
                out.extend(self._salvage(raw, self._tracker.spans, reason, truncated=False))
        return out

    @property
    def in_candidate(self) -> bool:
        """Whether a JSON value is open (text is held until it is decided)."""
        return self._in_candidate

    def absorbs(self, data: str) -> bool:
        """Take ``data`` whole if it is plain content in the middle of an open string value
        (the streaming fast path for long arguments); False means call ``feed``."""
        if self._tracker.absorbs_plainly(data):
            self._parts.append(data)
            return True
        return False

    def finish(self) -> list[JsonSegment]:
        """End of text: a candidate still open is broken (truncated); its pieces are salvaged."""
        if not self._in_candidate:
            return []
        self._in_candidate = False
        raw = "".join(self._parts)
        self._parts = []
        return self._salvage(
            raw, self._tracker.spans, "the text ended before this JSON was complete", True
        )

    @staticmethod
    def _salvage(
        raw: str, spans: list[tuple[int, int]], reason: str, truncated: bool
    ) -> list[JsonSegment]:
        out: list[JsonSegment] = []
        leftover: list[str] = []
        previous = 0
        for start, end in spans:
            gap = raw[previous:start]
            if gap:
                out.append(Prose(gap))
                leftover.append(gap)
            piece = raw[start:end]
            ok, value, _ = _loads(piece)
            if ok:
                out.append(JsonValue(value, piece))
            else:
                out.append(Prose(piece))
                leftover.append(piece)
            previous = end
        tail = raw[previous:]
        if tail:
            out.append(Prose(tail))
            leftover.append(tail)
        out.append(BrokenJson(raw, "".join(leftover), reason, truncated))
        return out
