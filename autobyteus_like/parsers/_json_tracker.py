"""An incremental JSON syntax tracker: where does a JSON value end, or where does it break?

It validates without building values, chunk by chunk, carrying its state across chunks, so a
value split over any number of stream chunks is read exactly once. Its grammar is that of Python's
``json`` (NaN and Infinity included), so "complete" here means ``json.loads`` will accept the text
(up to nesting depth). Strings and whitespace are skipped with regular expressions, not per
character in Python.

It also records the spans of the containers that closed inside the value, keeping only the
maximal ones in a call position: when a value breaks, those are the pieces worth salvaging (valid
calls next to a broken one are never lost). A call position is where ``call_shapes`` looks for
calls: the value itself, an element of an array in a call position, and the list under
``"tool_calls"`` or ``"tools"`` of an object in a call position. Anything else (the ``"function"``
inside a call wrapper, the arguments, an object's data) is part of a call, never one: salvaging it
would run the inside of a broken call.

A value nesting deeper than ``MAX_NESTING_DEPTH`` is followed to its end all the same (the stack
here is a list, not recursion) but marked ``too_deep``: it must not reach ``json``, which recurses.
The containers open at that moment are not salvaged; the calls closed around them are.
"""

from __future__ import annotations

import re
from enum import Enum

from autobyteus_like.parsers._call_shapes import LIST_KEYS
from autobyteus_like.parsers._limits import MAX_NESTING_DEPTH

__all__ = ["JsonTracker", "Status"]


class Status(Enum):
    """What a ``feed`` found."""

    MORE = "more"  # the value continues past this data
    COMPLETE = "complete"  # the value ended; the index is just past its closing bracket
    DEAD = "dead"  # the text stopped being JSON; the index is the first offending character


# What comes next at the current level.
_VALUE, _VALUE_OR_CLOSE, _KEY, _KEY_OR_CLOSE, _COLON, _COMMA_OR_CLOSE = range(6)

_WS = re.compile(r"[ \t\n\r]*")
# A string's body up to its closing quote, valid escapes included; it stops early only at a
# backslash it cannot judge yet (cut by the chunk's end, or invalid) or a raw control character.
_STRING_BODY = re.compile(
    r'[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*'
)
_TOKEN = re.compile(r"[A-Za-z0-9.+\-]*")
_VALID_TOKEN = re.compile(
    r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|NaN|-?Infinity"
)
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = frozenset('"\\/bfnrt')
_TOKEN_START = frozenset("-0123456789tfnNI")
_KEY_CAP = max(len(key) for key in LIST_KEYS) + 1  # enough to tell a list key from a longer one


class JsonTracker:
    """Follows one JSON object or array from its opening bracket. Reset it for the next one."""

    __slots__ = (
        "_escape",
        "_expect",
        "_is_key",
        "_key",
        "_offset",
        "_stack",
        "_tainted",
        "_token",
        "deep_call_start",
        "in_string",
        "spans",
        "too_deep",
    )

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything; the next ``feed`` starts at an opening bracket."""
        self._stack: list[tuple[str, int, bool]] = []
        """Open containers: bracket, start offset, whether in a call position."""
        self._expect = _VALUE
        self.in_string = False
        """Whether the value is inside a string now (where ``absorbs_plainly`` may take a chunk)."""
        self._is_key = False
        self._key: str | None = None
        """The current key of an object in a call position (at most ``_KEY_CAP`` characters);
        None when the key is not tracked (other objects, or a key with an escape)."""
        self._escape = ""
        self._token = ""
        self._offset = 0
        self.spans: list[tuple[int, int]] = []
        """Maximal closed containers in a call position so far, as (start, end) offsets from
        the value's start."""
        self.too_deep = False
        """Whether the value nests deeper than ``MAX_NESTING_DEPTH`` somewhere."""
        self.deep_call_start: int | None = None
        """Where the object in a call position that first nested too deep starts, if known."""
        self._tainted = 0
        """The outermost open containers that hold too-deep nesting (never salvaged)."""

    @property
    def open_call_start(self) -> int | None:
        """Where the innermost open object in a call position starts (the call a broken value
        broke in), or None."""
        for bracket, start, call_position in reversed(self._stack):
            if call_position and bracket == "{":
                return start
        return None

    def absorbs_plainly(self, data: str) -> bool:
        """Take ``data`` whole if it is string content (complete, valid escapes included)
        continuing a string: exactly what ``feed`` would do with it, without the state machine
        (the streaming fast path for long values)."""
        if not self.in_string or self._escape or _STRING_BODY.fullmatch(data) is None:
            return False
        self._offset += len(data)
        if self._is_key and self._key is not None:
            self._add_key(data[:_KEY_CAP])
        return True

    def feed(self, data: str, pos: int) -> tuple[Status, int]:
        """Read ``data`` from ``pos``; return the status and an index into ``data``."""
        base = self._offset - pos  # offset of data[0] relative to the value's start
        status, index = self._run(data, pos, base)
        self._offset = base + index
        return status, index

    def _run(self, data: str, i: int, base: int) -> tuple[Status, int]:
        n = len(data)
        if self._escape:
            i = self._continue_escape(data, i)
            if i < 0:
                return Status.DEAD, -i - 1
            if self._escape:
                return Status.MORE, n
        if self._token:
            match = _TOKEN.match(data, i)
            end = match.end() if match else i
            self._token += data[i:end]
            if end >= n:
                return Status.MORE, n
            if not _VALID_TOKEN.fullmatch(self._token):
                return Status.DEAD, end
            self._token = ""
            self._after_value()
            i = end
        stack = self._stack
        while i < n:
            if self.in_string:
                start = i
                i = _STRING_BODY.match(data, i).end()  # type: ignore[union-attr]
                if self._is_key and self._key is not None:
                    self._add_key(data[start : min(i, start + _KEY_CAP)])
                if i >= n:
                    return Status.MORE, n
                char = data[i]
                if char == '"':
                    self.in_string = False
                    i += 1
                    if self._is_key:
                        self._expect = _COLON
                    else:
                        self._after_value()
                    continue
                if char != "\\":
                    return Status.DEAD, i  # a raw control character inside a string
                if self._is_key:
                    self._key = None  # an escaped key is never a list key
                self._escape = "\\"
                i = self._continue_escape(data, i + 1)
                if i < 0:
                    return Status.DEAD, -i - 1
                if self._escape:
                    return Status.MORE, n
                continue
            i = _WS.match(data, i).end()  # type: ignore[union-attr]
            if i >= n:
                return Status.MORE, n
            char = data[i]
            expect = self._expect
            if expect == _COMMA_OR_CLOSE:
                kind = stack[-1][0]
                if char == ",":
                    self._expect = _KEY if kind == "{" else _VALUE
                    i += 1
                elif (char == "}" and kind == "{") or (char == "]" and kind == "["):
                    i += 1
                    if self._close(base + i):
                        return Status.COMPLETE, i
                else:
                    return Status.DEAD, i
            elif expect == _COLON:
                if char != ":":
                    return Status.DEAD, i
                self._expect = _VALUE
                i += 1
            elif expect in (_KEY, _KEY_OR_CLOSE):
                if char == '"':
                    self.in_string, self._is_key = True, True
                    self._key = "" if stack[-1][2] else None
                    i += 1
                elif char == "}" and expect == _KEY_OR_CLOSE:
                    i += 1
                    if self._close(base + i):
                        return Status.COMPLETE, i
                else:
                    return Status.DEAD, i
            else:  # _VALUE or _VALUE_OR_CLOSE
                if char == "{" or char == "[":
                    if not stack:
                        call_position = True
                    else:  # in a call position: an element of such an array, or a call list
                        parent = stack[-1]
                        call_position = parent[2] and (
                            parent[0] == "[" or (char == "[" and self._key in LIST_KEYS)
                        )
                        if len(stack) == MAX_NESTING_DEPTH:
                            self._too_deep()
                    stack.append((char, base + i, call_position))
                    self._expect = _KEY_OR_CLOSE if char == "{" else _VALUE_OR_CLOSE
                    i += 1
                elif not stack:
                    return Status.DEAD, i  # a tracked value starts with a bracket
                elif char == "]" and expect == _VALUE_OR_CLOSE:
                    i += 1
                    if self._close(base + i):
                        return Status.COMPLETE, i
                elif char == '"':
                    self.in_string, self._is_key = True, False
                    i += 1
                elif char in _TOKEN_START:
                    end = _TOKEN.match(data, i).end()  # type: ignore[union-attr]
                    if end >= n:
                        self._token = data[i:end]
                        return Status.MORE, n
                    if not _VALID_TOKEN.fullmatch(data, i, end):
                        return Status.DEAD, end
                    self._after_value()
                    i = end
                else:
                    return Status.DEAD, i
        return Status.MORE, n

    def _after_value(self) -> None:
        self._expect = _COMMA_OR_CLOSE

    def _too_deep(self) -> None:
        if not self.too_deep:
            self.too_deep = True
            self.deep_call_start = self.open_call_start
        self._tainted = len(self._stack)

    def _add_key(self, text: str) -> None:
        assert self._key is not None
        if len(self._key) < _KEY_CAP:
            self._key = (self._key + text)[:_KEY_CAP]

    def _close(self, end: int) -> bool:
        """Pop a container ending at ``end``; True when it was the outermost one."""
        _, start, call_position = self._stack.pop()
        depth = len(self._stack)
        if depth < self._tainted:  # it held too-deep nesting: never salvaged
            self._tainted = depth
            call_position = False
        if call_position:
            spans = self.spans
            while spans and spans[-1][0] > start:
                spans.pop()
            spans.append((start, end))
        if not self._stack:
            return True
        self._after_value()
        return False

    def _continue_escape(self, data: str, i: int) -> int:
        """Consume the rest of a backslash escape; return the next index, or -(index+1) if bad.

        Hex digits are checked one at a time so the breaking point is the same however the
        text was chunked.
        """
        n = len(data)
        escape = self._escape
        if escape == "\\":
            if i >= n:
                return i
            char = data[i]
            if char in _SIMPLE_ESCAPES:
                self._escape = ""
                return i + 1
            if char != "u":
                return -(i + 1)
            escape, i = "\\u", i + 1
        while len(escape) < 6:
            if i >= n:
                self._escape = escape
                return i
            if data[i] not in _HEX_DIGITS:
                return -(i + 1)
            escape += data[i]
            i += 1
        self._escape = ""
        return i
