"""Finds JSON objects and arrays in free text, streamed or whole, in one linear pass.

Text between values is prose. A ``{`` or ``[`` that can begin JSON starts a candidate, which the
incremental ``JsonTracker`` follows to its end; ``json.loads`` then reads exactly that span. (Not
``raw_decode`` on the whole text: each failure there counts the newlines before it, which is
quadratic over a long response.) A candidate that stops being JSON is not retried from each of
its inner brackets (the other quadratic trap): the tracker already knows the maximal containers
that closed inside it, and those are salvaged as values; scanning then resumes at the offending
character. Fenced blocks need no special case: the fence is prose around the value.

Decoding never raises, whatever the text: a value nesting deeper than ``MAX_NESTING_DEPTH`` is
broken (the tracker marks it; ``json`` never sees it) and its calls around the deep one are
salvaged, and an integer too long for Python's ``int`` keeps its digits as text, so validation
reports it against the argument's type instead of the call failing whole.
"""

from __future__ import annotations

import json
import json.scanner
import re
from dataclasses import dataclass
from typing import Any

from autobyteus_like._frozen_values import fast_frozen
from autobyteus_like.parsers._json_tracker import JsonTracker, Status
from autobyteus_like.parsers._limits import MAX_NESTING_DEPTH
from autobyteus_like.parsers._parse_events import TextDelta

__all__ = [
    "CANDIDATE",
    "BrokenJson",
    "JsonSegment",
    "JsonTextScanner",
    "JsonValue",
    "Prose",
    "json_error",
    "load_json",
]

TOO_DEEP = f"it nests deeper than {MAX_NESTING_DEPTH} levels, the limit"
"""The reason given for a value refused for its depth."""

_LEADING_SPACE = re.compile(r"[ \t\n\r]*")
# A bracket that can begin JSON. The lookahead only skips brackets the tracker would reject at
# once (``{ return``, ``a[i]``), with the same outcome; a bracket whose next character is not in
# this chunk yet is always a candidate.
CANDIDATE = re.compile(
    r'\{(?=[ \t\n\r]*["}])|\[(?=[ \t\n\r]*[\[\]{"\-0-9tfnNI])|[\[{](?=[ \t\n\r]*\Z)'
)


Prose = TextDelta
"""Text that is not part of a JSON value: the parsers' own text event, so that prose goes out
as it comes (one object per piece, however many chunks)."""


@fast_frozen
@dataclass(frozen=True, slots=True)
class JsonValue:
    """A complete, valid JSON object or array and the exact text it was read from."""

    value: Any
    raw: str


@fast_frozen
@dataclass(frozen=True, slots=True)
class BrokenJson:
    """A candidate that never became valid JSON. Its text was already given out as Prose and
    salvaged JsonValues; ``leftover`` is the part that was neither (where a broken call would be).
    ``call`` is the text of the object in a call position it broke in, from its ``{`` ('' if
    none): the broken call, whose name and id an error should keep.
    """

    raw: str
    leftover: str
    reason: str
    truncated: bool
    call: str = ""


JsonSegment = Prose | JsonValue | BrokenJson


def json_error(text: str) -> str:
    """What is wrong with ``text`` as JSON, in json's words or ``TOO_DEEP`` ('' if nothing)."""
    return load_json(text)[2]


def load_json(text: str) -> tuple[bool, Any, str]:
    """``(ok, value, what is wrong)`` for any text, never raising: ``json.loads`` after a linear
    check that no container nests deeper than ``MAX_NESTING_DEPTH``."""
    start = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]
    if text[start : start + 1] in ("[", "{"):
        tracker = JsonTracker()
        tracker.feed(text, start)
        if tracker.too_deep:
            return False, None, TOO_DEEP
    return _loads(text)


def _digits_kept(digits: str) -> int | str:
    try:
        return int(digits)
    except ValueError:  # longer than sys.get_int_max_str_digits()
        return digits


def _loads(text: str) -> tuple[bool, Any, str]:
    """``json.loads`` for text whose nesting depth is already checked."""
    try:
        return True, json.loads(text), ""
    except json.JSONDecodeError as exc:
        return False, None, str(exc)
    except ValueError:
        # Only an integer too long to convert raises a plain ValueError; read it again keeping
        # such integers as their digits (rare, so the fast path stays json's own).
        return _loads_keeping_digits(text)
    except RecursionError:
        return False, None, "it nests too deeply"


def _loads_keeping_digits(text: str) -> tuple[bool, Any, str]:
    try:
        return True, json.loads(text, parse_int=_digits_kept), ""
    except (ValueError, RecursionError) as exc:
        return False, None, str(exc) or type(exc).__name__


_JSON_SPACE = " \t\n\r"
_SCAN_ONCE = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # a decoder
# is what it reads its settings from (typeshed asks for a scanner: its stub's TODO)
"""What ``json.loads`` runs for a text that starts with its value and holds nothing else,
without its three Python layers (a third of reading a small call)."""


def _depth_below_limit(value: Any) -> bool:
    """Whether no container of ``value`` nests ``MAX_NESTING_DEPTH`` deep (walked without
    recursion; json has just built it, so it is finite)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth >= MAX_NESTING_DEPTH:
            return False
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list))
    return True


def _whole_value(data: str) -> list[JsonSegment] | None:
    """The segments of a chunk that is one JSON object or array with only whitespace around
    it, read by json's C parser alone (the common case of a model answering with just a call);
    None sends the chunk through the tracker, which gives the same segments for such a chunk.
    One attempt per chunk, linear in it."""
    end = len(data.rstrip(_JSON_SPACE))
    start = len(data) - len(data.lstrip(_JSON_SPACE))
    if end - start < 2 or data[start] not in "[{" or data[end - 1] not in "]}":
        return None
    raw = data[start:end]
    try:
        value, stop = _SCAN_ONCE(raw, 0)  # json.loads(raw): it starts with its bracket
    except (ValueError, RecursionError, StopIteration):  # not one value, or too much for
        return None                                          # json: the tracker
    if stop != len(raw) or not isinstance(value, dict | list):  # more after the value
        return None
    # Each level takes two brackets, so a short text cannot nest to the limit.
    if len(raw) >= 2 * MAX_NESTING_DEPTH - 2 and not _depth_below_limit(value):
        return None
    out: list[JsonSegment] = [Prose(data[:start])] if start else []
    out.append(JsonValue(value, raw))
    if end < len(data):
        out.append(Prose(data[end:]))
    return out


class JsonTextScanner:
    """Streams text in, JSON values and prose out; ``finish`` closes what the text left open."""

    def __init__(self) -> None:
        self._made: JsonTracker | None = None
        """Made when the first value opens that json alone cannot read (most responses have
        none: one call alone is read by json), then reset for each next one."""
        self.in_candidate = False
        """Whether a JSON value is open (text is held until it is decided)."""
        self._parts: list[str] = []

    def feed(self, data: str) -> list[JsonSegment]:
        """Scan one chunk; return the segments it decided."""
        tracker = self._made
        if not self.in_candidate:
            whole = _whole_value(data)
            if whole is not None:
                return whole
        elif tracker is not None and tracker.in_string and tracker.absorbs_plainly(data):
            self._parts.append(data)  # string content inside the open value (a long argument)
            return []
        out: list[JsonSegment] = []
        i, n = 0, len(data)
        while i < n:
            if not self.in_candidate:
                match = CANDIDATE.search(data, i)
                if match is None:
                    out.append(Prose(data[i:]))
                    break
                start = match.start()
                if start > i:
                    out.append(Prose(data[i:start]))
                if tracker is None:
                    tracker = self._made = JsonTracker()
                else:
                    tracker.reset()
                self._parts = []
                self.in_candidate = True
                i = start
            assert tracker is not None  # a value is open
            status, index = tracker.feed(data, i)
            self._parts.append(data[i:index])
            i = index
            if status is Status.MORE:
                break
            self.in_candidate = False
            raw = "".join(self._parts)
            self._parts = []
            if status is Status.COMPLETE and not tracker.too_deep:
                ok, value, reason = _loads(raw)
                if ok:
                    out.append(JsonValue(value, raw))
                    continue
                # Valid syntax that json still refused (a thread near the recursion limit):
                # nothing inside to save.
                out.extend(self._salvage(raw, [], reason, truncated=False))
            else:
                reason = TOO_DEEP if tracker.too_deep else _loads(raw)[2]
                call_start = self._broken_call_start()
                out.extend(self._salvage(raw, tracker.spans, reason, False, call_start))
        return out

    @property
    def _tracker(self) -> JsonTracker:
        """The tracker of the value open now (there is one once a value opened)."""
        assert self._made is not None
        return self._made

    @staticmethod
    def may_start_value(data: str) -> bool:
        """Whether ``data`` has a bracket that can begin JSON; if not, and no value is open,
        ``feed`` would give it all back as one Prose (the streaming fast path for prose)."""
        return CANDIDATE.search(data) is not None

    def finish(self) -> list[JsonSegment]:
        """End of text: a candidate still open is broken (truncated); its pieces are salvaged."""
        if not self.in_candidate:
            return []
        self.in_candidate = False
        raw = "".join(self._parts)
        self._parts = []
        return self._salvage(
            raw, self._tracker.spans, "the text ended before this JSON was complete", True,
            self._broken_call_start(),
        )

    def _broken_call_start(self) -> int | None:
        """Where the call the value broke in starts (its ``{``), if it is in a call position."""
        tracker = self._tracker
        return tracker.deep_call_start if tracker.too_deep else tracker.open_call_start

    @staticmethod
    def _salvage(
        raw: str,
        spans: list[tuple[int, int]],
        reason: str,
        truncated: bool,
        call_start: int | None = None,
    ) -> list[JsonSegment]:
        """Prose and the salvaged values in document order; the BrokenJson goes after them, or
        just before the first value after the broken call when it is known."""
        out: list[JsonSegment] = []
        leftover: list[str] = []
        previous = 0
        broken_at: int | None = None
        for start, end in spans:
            gap = raw[previous:start]
            if gap:
                out.append(Prose(gap))
                leftover.append(gap)
            if broken_at is None and call_start is not None and start > call_start:
                broken_at = len(out)
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
        call = "" if call_start is None else raw[call_start:]
        broken = BrokenJson(raw, "".join(leftover), reason, truncated, call)
        out.insert(len(out) if broken_at is None else broken_at, broken)
        return out
