"""ORACLE for tests: the XML parser as of commit 5b61efb (before issue 16), unchanged but for
its imports, so property tests can check that the faster parser reads every text the same way.

The ``xml`` format: ``<tool name="..." [id="..."]><arguments><arg name="...">`` calls.

A state machine over regular-expression jumps: outside calls it searches for ``<tool``; inside
a call it stops only at structural tags, CDATA and entities; everything else is literal text
(HTML, ``a<b``, ``vector<int>``, even ``<tool name="x">`` inside an argument). A tag that meets
``<`` before its ``>`` is broken and does not swallow what follows. The same code reads a whole
response and a stream; only an undecided tail (a possible partial tag) waits for the next chunk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from autobyteus_like.parsers._base import FormatParser
from autobyteus_like.parsers._call_builder import without_lone_surrogates
from autobyteus_like.parsers._parse_events import (
    ParseEvent,
    TextDelta,
    ToolCallCompleted,
    ToolCallStarted,
)
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry
from tests.parsers.oracle.old_xml_arguments import ArgumentTree, Frame

__all__ = ["OldXmlToolCallParser"]

class PartialMarker:
    """Knows every proper prefix of a set of markers (case-insensitive)."""

    def __init__(self, markers: Iterable[str]) -> None:
        words = [m.lower() for m in markers]
        self._prefixes = {w[:k] for w in words for k in range(1, len(w))}
        self._starts = "".join(sorted({w[0] for w in words if w}))
        self._longest = max((len(w) for w in words), default=1) - 1

    def hold(self, data: str, start: int) -> int:
        """Length of the longest suffix of ``data[start:]`` that may begin a marker."""
        n = len(data)
        window = max(start, n - self._longest)
        best = 0
        for char in self._starts:
            at = data.find(char, window)
            while at != -1 and n - at > best:
                if data[at:].lower() in self._prefixes:
                    best = n - at
                    break
                at = data.find(char, at + 1)
        return best


_MAX_TAG = 512
"""A tag's ``>`` or the next ``<`` is looked for this far only, so a stream decides a broken tag
exactly as the whole text does (and never scans far ahead for it)."""
_TOOL_OPEN = re.compile(r"<tool(?=[\s>/])")
_TAG_END = re.compile(r"[<>]")
_ATTRIBUTE = re.compile(r"""([A-Za-z_][\w.\-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_TAG = re.compile(r"<(/?)(tool|arguments|arg|item)\b(.*?)(/?)\s*>", re.DOTALL)
_STRUCTURED = re.compile(r"<!\[CDATA\[|</?(?:arg|item|arguments|tool)(?=[\s/>])")
_RAW_ARG = re.compile(r"<!\[CDATA\[|</?arg(?=[\s/>])")
_RAW_ITEM = re.compile(r"<!\[CDATA\[|</?item(?=[\s/>])")
_CDATA_END = re.compile(re.escape("]]>"))
_OPEN_HOLD = PartialMarker(["<tool "])
_INNER_HOLD = PartialMarker(
    ["<![CDATA[", "<arguments>", "</arguments>", "<tool ", "</tool>", "<arg ", "</arg>",
     "<item>", "</item>"]
)
_CDATA_HOLD = PartialMarker(["]]>"])


def _attributes(tag: str) -> dict[str, str]:
    return {m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
            for m in _ATTRIBUTE.finditer(tag)}


@dataclass
class _Call:
    index: int
    name: str
    id: str | None
    tree: ArgumentTree
    raw: list[str] = field(default_factory=list)
    in_cdata: bool = False


class OldXmlToolCallParser(FormatParser):
    """Streams ``<tool>`` calls out of text; see the module docstring for the rules."""

    format_name = "xml"

    def __init__(self, tools: ToolRegistry | None, ids: InvocationIdAllocator) -> None:
        super().__init__(tools, ids)
        self._pending = ""
        self._call: _Call | None = None
        self._step: tuple[str, int] = ("", 0)
        """The data and start index of the current step inside a call, for its raw text."""

    def feed(self, chunk: str) -> list[ParseEvent]:
        if not self._pending and "<" not in chunk:
            if self._call is None:
                return [TextDelta(chunk)]  # the common streaming case: plain prose
            if not self._call.in_cdata:
                self._call.raw.append(chunk)  # plain content of the current argument
                self._text(self._call.tree.top, chunk)
                return []
        data, self._pending = self._pending + chunk, ""
        events: list[ParseEvent] = []
        i, n = 0, len(data)
        while i < n:
            if self._call is None:
                i = self._scan_text(data, i, events)
            else:
                call, self._step = self._call, (data, i)
                i = self._scan_call(data, i, events)
                if self._call is call:
                    call.raw.append(data[self._step[1] : i - len(self._pending)])
        return events

    def finish(self) -> list[ParseEvent]:
        events: list[ParseEvent] = []
        call, pending = self._call, self._pending
        self._pending, self._call = "", None
        if call is not None:
            call.raw.append(pending)
            raw = "".join(call.raw)
            events.append(self.calls.failure(
                f"the call to {call.name!r} is cut off: the response ended before </tool>",
                raw, index=call.index, name=call.name, call_id=call.id,
            ))
            events.append(TextDelta(raw))
        elif pending:
            if pending.startswith("<tool"):
                events.append(self.calls.failure("a <tool> tag is cut off before its '>'", pending))
            events.append(TextDelta(pending))
        return events

    # -- outside calls ---------------------------------------------------------------------

    def _scan_text(self, data: str, i: int, events: list[ParseEvent]) -> int:
        n = len(data)
        match = _TOOL_OPEN.search(data, i)
        if match is None:
            keep = _OPEN_HOLD.hold(data, i)
            if n - keep > i:
                events.append(TextDelta(data[i : n - keep]))
            self._pending = data[n - keep :]
            return n
        start = match.start()
        if start > i:
            events.append(TextDelta(data[i:start]))
        return self._open_tool(data, start, events)

    def _open_tool(self, data: str, start: int, events: list[ParseEvent]) -> int:
        """Read the ``<tool ...>`` tag at ``start``; start a call, or report a broken tag."""
        n = len(data)
        end = _TAG_END.search(data, start + 1, start + _MAX_TAG + 1)
        if end is None or data[end.start()] == "<":
            if end is None and n - start <= _MAX_TAG:
                self._pending = data[start:]
                return n
            stop = end.start() if end is not None and data[end.start()] == "<" else start + 5
            events.append(self.calls.failure(
                "a <tool> tag is not closed with '>' before the next tag", data[start:stop]
            ))
            events.append(TextDelta(data[start:stop]))
            return stop
        tag = data[start : end.end()]
        attributes = _attributes(tag)
        name = without_lone_surrogates((attributes.get("name") or "").strip())
        if not name:
            events.append(self.calls.failure("a <tool> tag has no name attribute", tag))
            events.append(TextDelta(tag))
            return end.end()
        call_id = without_lone_surrogates((attributes.get("id") or "").strip()) or None
        index = self.calls.take_index()
        events.append(ToolCallStarted(index=index, name=name, id=call_id))
        tool = self.tools.find(name) if self.tools is not None else None
        call = _Call(index, name, call_id, ArgumentTree(tool.inline_schema() if tool else None))
        call.raw.append(tag)
        if tag.rstrip(">").rstrip().endswith("/"):
            self._complete(call, events)
        else:
            self._call = call
        return end.end()

    # -- inside a call ---------------------------------------------------------------------

    def _scan_call(self, data: str, i: int, events: list[ParseEvent]) -> int:
        call = self._call
        assert call is not None
        n = len(data)
        tree = call.tree
        if call.in_cdata:
            match = _CDATA_END.search(data, i)
            if match is None:
                keep = _CDATA_HOLD.hold(data, i)
                tree.top.add_cdata(data[i : n - keep])
                self._pending = data[n - keep :]
                return n
            tree.top.text.append(data[i : match.start()])
            tree.top.verbatim.add(len(tree.top.text) - 1)
            call.in_cdata = False
            return match.end()
        top = tree.top
        pattern = (_RAW_ITEM if top.kind == "item" else _RAW_ARG) if top.raw else _STRUCTURED
        match = pattern.search(data, i)
        if match is None:
            keep = _INNER_HOLD.hold(data, i)
            self._text(top, data[i : n - keep])
            self._pending = data[n - keep :]
            return n
        j = match.start()
        self._text(top, data[i:j])
        if match.group(0) == "<![CDATA[":
            call.in_cdata = True
            return match.end()
        end = _TAG_END.search(data, j + 1, j + _MAX_TAG + 1)
        if end is None and n - j <= _MAX_TAG:
            self._pending = data[j:]
            return n
        if end is None or data[end.start()] == "<":
            stop = end.start() if end is not None and data[end.start()] == "<" else j + 1
            if not top.raw:
                shown = data[j : j + 40] if end is None else data[j : min(stop, j + 40)]
                tree.problems.append(f"the tag {shown!r} is not closed with '>'")
            top.text.append(data[j:stop])
            return stop
        tag = data[j : end.end()]
        return self._tag(tag, j, end.end(), events)

    @staticmethod
    def _text(frame: Frame, text: str) -> None:
        """Text inside an element; text between a tool's arguments is ignored."""
        if text and frame.kind != "tool":
            frame.text.append(text)

    def _tag(self, tag: str, start: int, end: int, events: list[ParseEvent]) -> int:
        """Apply one complete tag inside a call; return where scanning continues."""
        call = self._call
        assert call is not None
        tree = call.tree
        top = tree.top
        parsed = _TAG.fullmatch(tag)
        if parsed is None:
            self._text(top, tag)
            return end
        closing, element, attrs, self_closing = (
            parsed.group(1) == "/", parsed.group(2), parsed.group(3), parsed.group(4) == "/"
        )
        if top.raw:
            if element != top.kind:
                top.text.append(tag)
            elif closing and top.depth == 0:
                tree.close()
            else:
                top.depth += 0 if self_closing else (-1 if closing else 1)
                top.text.append(tag)
            return end
        if element == "tool":
            if closing:
                tree.close_to_tool()
                self._complete(call, events, end)
                return end
            if top.kind != "tool":
                self._literal_markup(top, tag)
                return end
            # A new call while this one is still open: this one was never closed.
            self._fail(call, "the call is not closed with </tool> before the next <tool>",
                       events, start)
            return start
        if element == "arguments":
            if top.kind != "tool":
                if closing:
                    tree.close_to_tool()
                else:
                    self._literal_markup(top, tag)
            return end
        if closing:
            if element == "arg" and top.kind == "item":
                tree.close()  # a forgotten </item>
            if tree.top.kind == element:
                tree.close()
            return end  # anything else is a stray closing tag
        if element == "arg":
            tree.open_arg(_attributes(attrs).get("name"))
        else:
            tree.open_item()
        if self_closing:
            tree.close()
        return end

    @staticmethod
    def _literal_markup(frame: Frame, tag: str) -> None:
        """A ``<tool>`` or ``<arguments>`` opening inside an argument is text, and so is the rest
        of that argument (read raw, with balanced ``<arg>``s), so a call quoted inside an
        argument can neither run nor break the call around it."""
        frame.text.append(tag)
        if frame.children is None and frame.items is None:
            frame.raw = True

    def _take_raw(self, call: _Call, upto: int | None) -> None:
        """Add the current step's text, up to ``upto``, to the call's raw text."""
        if upto is not None and self._call is call:
            data, start = self._step
            call.raw.append(data[start:upto])
        self._call = None

    def _complete(self, call: _Call, events: list[ParseEvent], upto: int | None = None) -> None:
        self._take_raw(call, upto)
        if call.tree.problems:
            self._fail(call, "; ".join(call.tree.problems), events)
            return
        invocation = self.calls.build(call.name, call.tree.arguments, call.id)
        events.append(ToolCallCompleted(invocation, call.index))

    def _fail(
        self, call: _Call, message: str, events: list[ParseEvent], upto: int | None = None
    ) -> None:
        self._take_raw(call, upto)
        raw = "".join(call.raw)
        events.append(self.calls.failure(
            f"the call to {call.name!r} is malformed: {message}", raw,
            index=call.index, name=call.name, call_id=call.id,
        ))
        events.append(TextDelta(raw))
