"""Finds JSON objects and arrays in free text, streamed or whole, in one linear pass.

Text between values is prose. A ``{`` or ``[`` that can begin JSON starts a candidate. json's C
scanner alone reads a candidate that is one value within ``HOLD_VALUE`` characters (in a stream,
the candidate is held until a chunk brings a closing bracket); any other is followed to its end
by the incremental ``JsonTracker``, and ``json.loads`` then reads exactly that span. (Not
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


HOLD_VALUE = 1024
"""The longest value json's C scanner alone is tried on (``_short_value``), and the longest a
stream holds back to try so; longer ones are followed by the tracker."""


_UNFINISHED = (None, -1)
"""What ``_short_value`` says of a text json read to its end without a fault: a value that may
still be completed by the text to come (the tracker would say "more" too)."""


def _short_value(data: str, start: int) -> tuple[Any, int] | None:
    """The JSON object or array that starts at ``data[start]`` and ends within ``HOLD_VALUE``
    characters, and where it ends, as json reads it; ``_UNFINISHED`` when json found no fault
    before the data's end; None sends the value to the tracker, which reads such a value the
    same (json's grammar) and everything else (too long, broken, too deep, an integer too long
    for ``int``) as before. Linear: json reads at most ``HOLD_VALUE`` characters of a copy
    that long, so that a failure's line count stays short too."""
    window = data[start : start + HOLD_VALUE]
    try:
        value, stop = _SCAN_ONCE(window, 0)
    except json.JSONDecodeError as error:
        return _UNFINISHED if error.pos == len(data) - start else None
    except StopIteration as error:
        return _UNFINISHED if error.value == len(data) - start else None
    except (ValueError, RecursionError):
        return None
    if stop >= 2 * MAX_NESTING_DEPTH - 2 and not _depth_below_limit(value):
        return None
    return value, start + stop


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
    """Streams text in, JSON values and prose out; ``finish`` closes what the text left open.

    A value is first tried by json's C scanner alone on its first ``HOLD_VALUE`` characters
    (``_short_value``); only a value it cannot read there (longer, broken, too deep for it) is
    followed by the tracker, from its bracket. In a stream, a value that opens in a chunk
    without its end is held back while it is short, and tried when a chunk brings a closing
    bracket: a small call streamed in small chunks is read by json once, as in a whole text,
    instead of by the tracker chunk after chunk.
    """

    def __init__(self) -> None:
        self._made: JsonTracker | None = None
        """Made when the first value opens that json alone cannot read (most responses have
        none: one call alone is read by json), then reset for each next one."""
        self.in_candidate = False
        """Whether a JSON value is open (text is held until it is decided)."""
        self._parts: list[str] = []
        self._held = -1
        """While the open value is held for json (not yet followed by the tracker): the
        length of its text so far (in ``_parts``); -1 otherwise."""

    def feed(self, data: str) -> list[JsonSegment]:
        """Scan one chunk; return the segments it decided."""
        if not self.in_candidate:
            whole = _whole_value(data)
            if whole is not None:
                return whole
            return self._scan(data, 0, [])
        if self._held >= 0:
            self._parts.append(data)
            self._held += len(data)
            if self._held <= HOLD_VALUE and "}" not in data and "]" not in data:
                return []  # it cannot have ended: hold on
            return self._decide_held()
        tracker = self._made
        if tracker is not None and tracker.in_string and tracker.absorbs_plainly(data):
            self._parts.append(data)  # string content inside the open value (a long argument)
            return []
        return self._scan(data, 0, [])

    def _decide_held(self, final: bool = False) -> list[JsonSegment]:
        """Read the held value now: by json if it is whole, on holding if json saw no fault
        (and the text goes on), else by the tracker from its bracket (which goes on from there
        chunk by chunk)."""
        text = "".join(self._parts)
        self._parts, self._held = [], -1
        out: list[JsonSegment] = []
        read = _short_value(text, 0)
        if read is _UNFINISHED and not final:  # (only within HOLD_VALUE: see _short_value)
            self._parts, self._held = [text], len(text)
            return []
        if read is not None and read is not _UNFINISHED:
            self.in_candidate = False
            out.append(JsonValue(read[0], text[: read[1]]))
            return self._scan(text, read[1], out)
        self._track()
        return self._scan(text, 0, out)

    def _track(self) -> None:
        """The tracker follows the value that opens where the scan is (from its bracket)."""
        tracker = self._made
        if tracker is None:
            self._made = JsonTracker()
        else:
            tracker.reset()
        self._parts = []
        self.in_candidate = True

    def _scan(self, data: str, i: int, out: list[JsonSegment]) -> list[JsonSegment]:
        """Scan ``data`` from ``i`` (inside the value the tracker follows, if one is open)."""
        n = len(data)
        while i < n:
            if not self.in_candidate:
                match = CANDIDATE.search(data, i)
                if match is None:
                    out.append(Prose(data[i:]))
                    break
                start = match.start()
                if start > i:
                    out.append(Prose(data[i:start]))
                if n - start <= HOLD_VALUE and data.find("}", start) < 0 \
                        and data.find("]", start) < 0:
                    self.in_candidate = True  # it cannot end in this chunk: hold it
                    self._parts, self._held = [data[start:]], n - start
                    break
                read = _short_value(data, start)
                if read is _UNFINISHED:
                    self.in_candidate = True  # it may still end: hold it
                    self._parts, self._held = [data[start:]], n - start
                    break
                if read is not None:
                    out.append(JsonValue(read[0], data[start : read[1]]))
                    i = read[1]
                    continue
                self._track()
                i = start
            tracker = self._made
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

    def finish(self) -> list[JsonSegment]:
        """End of text: a candidate still open is broken (truncated); its pieces are salvaged."""
        if not self.in_candidate:
            return []
        out: list[JsonSegment] = []
        while self._held >= 0:  # the tracker reads it now, and says where it breaks
            out += self._decide_held(final=True)  # (a later value may open, held in turn)
        if not self.in_candidate:
            return out
        self.in_candidate = False
        raw = "".join(self._parts)
        self._parts = []
        return out + self._salvage(
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
