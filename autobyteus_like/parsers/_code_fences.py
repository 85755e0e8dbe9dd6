"""Where a reply's prose is inside a Markdown code fence, followed chunk by chunk.

A fence opens on a line whose first non-blank characters are three or more backticks or tildes
(a backtick fence's info string holds no backtick) and closes on a line of the same character, at
least as many, and nothing else but blanks; one left open runs to the end of the reply. Any
indentation counts (a fence inside a list item is indented; four spaces would make the line code
anyway). The marker lines themselves count as inside. A call of the format in the middle of a
line means that line is no fence line.

The state is kept per line in a few counters, never the line's text, so any chunking of the same
prose gives the same answers at the same places, and a long line costs nothing to hold.
"""

from __future__ import annotations

import re

__all__ = ["CodeFences"]

_BLANKS = re.compile(r"[ \t]*")
_RUNS = {"`": re.compile(r"`*"), "~": re.compile(r"~*")}
_INDENT, _RUN, _REST, _PLAIN = range(4)
"""Where the current line is: in its leading blanks, in a run of fence characters, after the
run, or known to be no fence line."""


class CodeFences:
    """Fed a reply's prose in order; ``inside`` says whether the next character is fenced."""

    __slots__ = ("_char", "_fence", "_phase", "_rest_blank", "_rest_tick", "_run")

    def __init__(self) -> None:
        self._fence: tuple[str, int] | None = None
        """The open fence's character and length, or None outside a fence."""
        self._phase = _INDENT
        self._char = ""
        self._run = 0
        self._rest_blank = True
        self._rest_tick = False

    def inside(self) -> bool:
        """Whether text at the current place is fenced (a marker line counts as inside)."""
        return self._fence is not None or (self._phase >= _RUN and self._phase != _PLAIN
                                           and self._run >= 3)

    def interrupt(self) -> None:
        """Something that is not prose (a call) stands here: this line is no fence line."""
        self._phase = _PLAIN

    def feed(self, text: str) -> None:
        """Follow ``text``, the prose after what was fed so far."""
        start, newline = 0, text.find("\n")
        while newline >= 0:
            if self._phase != _PLAIN:
                self._line(text, start, newline)
                if self._phase != _INDENT and self._phase != _PLAIN:
                    self._end_marker_line()
            self._phase = _INDENT
            start, newline = newline + 1, text.find("\n", newline + 1)
        if self._phase != _PLAIN and start < len(text):
            self._line(text, start, len(text))

    def _line(self, text: str, i: int, end: int) -> None:
        """More of the current line: ``text[i:end]`` (no newline in it)."""
        if i == end:
            return
        if self._phase == _INDENT:
            i = _BLANKS.match(text, i, end).end()  # type: ignore[union-attr]
            if i == end:
                return
            if text[i] not in "`~":
                self._phase = _PLAIN
                return
            self._phase, self._char, self._run = _RUN, text[i], 0
            self._rest_blank, self._rest_tick = True, False
        if self._phase == _RUN:
            stop = _RUNS[self._char].match(text, i, end).end()  # type: ignore[union-attr]
            self._run += stop - i
            if stop == end:
                return
            if self._run < 3:
                self._phase = _PLAIN
                return
            self._phase, i = _REST, stop
        rest = text[i:end]
        if self._rest_blank and rest.strip(" \t\r"):
            self._rest_blank = False
        if "`" in rest:
            self._rest_tick = True

    def _end_marker_line(self) -> None:
        """The end of a line that began with a run of fence characters."""
        if self._run >= 3:
            fence = self._fence
            if fence is None:
                if not (self._char == "`" and self._rest_tick):
                    self._fence = (self._char, self._run)
            elif self._char == fence[0] and self._run >= fence[1] and self._rest_blank:
                self._fence = None
