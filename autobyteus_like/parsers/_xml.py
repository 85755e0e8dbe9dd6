"""The ``xml`` format: ``<tool name="..." [id="..."]><arguments><arg name="...">`` calls.

A state machine over regular-expression jumps: outside calls it searches for ``<tool``; inside
a call it stops only at structural tags and CDATA; everything else is literal text (HTML, ``a<b``,
``vector<int>``, even ``<tool name="x">`` inside an argument), and entities are decoded once per
finished value. A tag that meets ``<`` before its ``>`` is broken and does not swallow what
follows. The same code reads a whole response and a stream; only an undecided tail (a possible
partial tag) waits for the next chunk.

Python runs once per structural tag at most: a whole simple call and a run of leaf elements are
each read by one regular expression (``xml_shortcuts``), and one search finds the next tag with
its ``>`` (the patterns searched with are ``xml_tag_patterns``'). A call's raw text (for its
error) is sliced once per chunk, not per tag. A stream holds a short call body back until it
ends, to read it as a whole text does (``_xml_call``).
"""

from __future__ import annotations

from typing import Any

from autobyteus_like.parsers._base import FormatParser
from autobyteus_like.parsers._call_builder import without_lone_surrogates
from autobyteus_like.parsers._parse_events import (
    ParseEvent,
    TextDelta,
    ToolCallCompleted,
    ToolCallStarted,
)
from autobyteus_like.parsers._xml_arguments import ArgumentTree, Frame
from autobyteus_like.parsers._xml_call import CALL_END, CALL_END_REACH, HOLD_BODY, OpenCall
from autobyteus_like.parsers._xml_shortcuts import apply_item_run, call_head, simple_body
from autobyteus_like.parsers._xml_tag_patterns import (
    CDATA_HOLD,
    INNER_HOLD,
    MAX_TAG,
    OPEN_HOLD,
    RAW_ARG,
    RAW_ITEM,
    STRUCTURED,
    TAG_AT,
    TAG_END,
    TOOL_OPEN,
    tag_attributes,
)
from autobyteus_like.parsers._xml_tag_stretch import apply_simple_tags
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["XmlToolCallParser"]

_UNKNOWN: Any = object()


class XmlToolCallParser(FormatParser):
    """Streams ``<tool>`` calls out of text; see the module docstring for the rules."""

    format_name = "xml"

    def __init__(self, tools: ToolRegistry | None, ids: InvocationIdAllocator) -> None:
        super().__init__(tools, ids)
        self._pending = ""
        self._call: OpenCall | None = None
        self._raw_from = 0
        """Where the open call's text not yet in its ``raw`` starts, in the data being read."""
        self._schemas: dict[str, dict[str, Any] | None] = {}

    def feed(self, chunk: str) -> list[ParseEvent]:
        call = self._call
        if call is not None and call.held_after is not None:
            held = self._pending + chunk  # (a negative start searches from 0)
            if len(held) <= HOLD_BODY and CALL_END.search(
                    held, len(self._pending) - CALL_END_REACH) is None:
                self._pending = held  # the body is still short and open: hold it
                return []
        elif not self._pending:  # the common streaming cases: one test and an append
            if call is None:
                if "<" not in chunk:
                    return [TextDelta(chunk)]  # plain prose
            elif call.in_cdata:
                if "]" not in chunk:
                    call.raw.append(chunk)
                    call.tree.frames[-1].add_cdata(chunk)
                    return []
            elif "<" not in chunk:
                call.raw.append(chunk)  # plain content of the current argument
                self._text(call.tree.frames[-1], chunk)
                return []
        data, self._pending = self._pending + chunk, ""
        events: list[ParseEvent] = []
        i, n = 0, len(data)
        while i < n:
            if self._call is None:
                i = self._scan_text(data, i, events)
            else:
                i = self._scan_call(data, i, events)
        call = self._call
        if call is not None:
            call.raw.append(data[self._raw_from : n - len(self._pending)])
            self._raw_from = 0
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
        match = TOOL_OPEN.search(data, i)
        if match is None:
            keep = OPEN_HOLD.hold(data, i)
            if n - keep > i:
                events.append(TextDelta(data[i : n - keep]))
            self._pending = data[n - keep :]
            return n
        start = match.start()
        if start > i:
            events.append(TextDelta(data[i:start]))
        head = call_head(data, start)
        if head is not None:
            written_name, written_id, end, after = head
            name = without_lone_surrogates(written_name.strip())
            if name:  # else the tag-by-tag reading reports the missing name
                call_id = without_lone_surrogates(written_id.strip()) if written_id else None
                return self._start_call(data, start, end, after, name, call_id or None, events)
        return self._open_tool(data, start, events)

    def _start_call(
        self, data: str, start: int, end: int, after: str, name: str, call_id: str | None,
        events: list[ParseEvent],
    ) -> int:
        """A call whose head (``<tool ...>``, and ``<arguments>`` when ``after`` says so) spans
        ``data[start:end]``: the whole call at once if it is simple, else the call opened after
        its head."""
        index = self.calls.take_index()
        events.append(ToolCallStarted(index, name, call_id))
        simple = simple_body(data, end, after)
        if simple is not None:
            arguments, end = simple
            events.append(ToolCallCompleted(self.calls.build(name, arguments, call_id), index))
            return end
        call = OpenCall(index, name, call_id, ArgumentTree(self._schema(name)))
        self._call, self._raw_from = call, start
        return self._hold_body(call, data, end, after)

    def _hold_body(self, call: OpenCall, data: str, i: int, after: str) -> int:
        """Hold the new call's body (from ``i``, after its ``after`` tag) while it is short and
        cannot have ended (see ``_xml_call``); else read it from ``i`` tag by tag."""
        if len(data) - i > HOLD_BODY or CALL_END.search(data, i) is not None:
            return i
        call.held_after, self._pending = after, data[i:]
        return len(data)

    def _open_tool(self, data: str, start: int, events: list[ParseEvent]) -> int:
        """Read the ``<tool ...>`` tag at ``start``; start a call, or report a broken tag."""
        n = len(data)
        end = TAG_END.search(data, start + 1, start + MAX_TAG + 1)
        if end is None or data[end.start()] == "<":
            if end is None and n - start <= MAX_TAG:
                self._pending = data[start:]
                return n
            stop = end.start() if end is not None and data[end.start()] == "<" else start + 5
            events.append(self.calls.failure(
                "a <tool> tag is not closed with '>' before the next tag", data[start:stop]
            ))
            events.append(TextDelta(data[start:stop]))
            return stop
        tag = data[start : end.end()]
        attributes = tag_attributes(tag)
        name = without_lone_surrogates((attributes.get("name") or "").strip())
        if not name:
            events.append(self.calls.failure("a <tool> tag has no name attribute", tag))
            events.append(TextDelta(tag))
            return end.end()
        call_id = without_lone_surrogates((attributes.get("id") or "").strip()) or None
        index = self.calls.take_index()
        events.append(ToolCallStarted(index=index, name=name, id=call_id))
        call = OpenCall(index, name, call_id, ArgumentTree(self._schema(name)))
        if tag.rstrip(">").rstrip().endswith("/"):
            call.raw.append(tag)
            self._complete(call, events)
            return end.end()
        self._call, self._raw_from = call, start
        return self._hold_body(call, data, end.end(), "tool")

    def _schema(self, name: str) -> dict[str, Any] | None:
        """The tool's inlined schema (read-only here), copied once per response."""
        schema = self._schemas.get(name, _UNKNOWN)
        if schema is _UNKNOWN:
            tool = self.tools.find(name) if self.tools is not None else None
            schema = self._schemas[name] = tool.shared_inline_schema if tool else None
        return schema  # type: ignore[no-any-return]

    # -- inside a call ---------------------------------------------------------------------

    def _scan_call(self, data: str, i: int, events: list[ParseEvent]) -> int:
        """Read the open call from ``i`` until it ends or the data does; return where."""
        call = self._call
        assert call is not None
        if call.held_after is not None:  # a held body, complete or long now: read it
            after, call.held_after = call.held_after, None
            simple = simple_body(data, i, after)
            if simple is not None:
                arguments, end = simple
                self._call = None
                events.append(ToolCallCompleted(
                    self.calls.build(call.name, arguments, call.id), call.index))
                return end
        tree = call.tree
        frames = tree.frames
        n = len(data)
        while i < n:
            if call.in_cdata:
                i = self._scan_cdata(call, data, i)
                continue
            top = frames[-1]
            raw = top.raw
            pattern = (RAW_ITEM if top.kind == "item" else RAW_ARG) if raw else STRUCTURED
            match = pattern.search(data, i)
            if match is None:
                keep = INNER_HOLD.hold(data, i)
                self._text(top, data[i : n - keep])
                self._pending = data[n - keep :]
                return n
            j, end = match.span()
            if j > i and top.kind != "tool":
                top.text.append(data[i:j])
            if raw:
                if end - j == 9:  # "<![CDATA["
                    call.in_cdata = True
                    i = end
                    continue
                match = TAG_AT.match(data, j)
                assert match is not None  # the search saw its start
                end = match.end()
            elif match.group(1) is not None:
                apply_item_run(tree, data, j, end)
                i = end
                continue
            elif match.group(2) is not None:
                i = apply_simple_tags(tree, data, j, end)
                continue
            elif match.group(3) is not None:  # </arguments></tool>: as its two tags would
                tree.close_to_tool()
                self._complete(call, events, data, end)
                return end
            slash, element, inner = match.group(4, 5, 6)
            if element is None:  # <![CDATA[
                call.in_cdata = True
                i = end
                continue
            if inner is None or end - j > MAX_TAG + 1:
                i = self._broken_tag(tree, data, j)
                continue
            i = self._tag(data, slash == "/", element, inner, j, end, events)
            if self._call is not call:
                break
        return i

    def _scan_cdata(self, call: OpenCall, data: str, i: int) -> int:
        top = call.tree.frames[-1]
        at = data.find("]]>", i)
        if at < 0:
            n = len(data)
            keep = CDATA_HOLD.hold(data, i)
            top.add_cdata(data[i : n - keep])
            self._pending = data[n - keep :]
            return n
        top.add_cdata(data[i:at])
        call.in_cdata = False
        return at + 3

    def _broken_tag(self, tree: ArgumentTree, data: str, j: int) -> int:
        """A tag at ``j`` whose ``>`` is not within reach before a ``<``: hold it if the data may
        still bring its ``>``, else keep it as text (a problem, outside a raw value)."""
        n = len(data)
        end = TAG_END.search(data, j + 1, j + MAX_TAG + 1)
        if end is None and n - j <= MAX_TAG:
            self._pending = data[j:]
            return n
        stop = end.start() if end is not None else j + 1  # end is a '<' here
        top = tree.frames[-1]
        if not top.raw:
            shown = data[j : j + 40] if end is None else data[j : min(stop, j + 40)]
            tree.problems.append(f"the tag {shown!r} is not closed with '>'")
        top.text.append(data[j:stop])
        return stop

    @staticmethod
    def _text(frame: Frame, text: str) -> None:
        """Text inside an element; text between a tool's arguments is ignored."""
        if text and frame.kind != "tool":
            frame.text.append(text)

    def _tag(
        self, data: str, closing: bool, element: str, inner: str, start: int, end: int,
        events: list[ParseEvent],
    ) -> int:
        """Apply the complete tag ``data[start:end]`` inside a call; return where scanning
        continues. ``inner`` is the tag's text after its element name, up to its ``>``."""
        call = self._call
        assert call is not None
        tree = call.tree
        top = tree.frames[-1]
        body = inner.rstrip()
        self_closing = body.endswith("/")
        if top.raw:
            if element != top.kind:
                top.text.append(data[start:end])
            elif closing and top.depth == 0:
                tree.close()
            else:
                top.depth += 0 if self_closing else (-1 if closing else 1)
                top.text.append(data[start:end])
            return end
        if element == "tool":
            if closing:
                tree.close_to_tool()
                self._complete(call, events, data, end)
                return end
            if top.kind != "tool":
                self._literal_markup(top, data[start:end])
                return end
            # A new call while this one is still open: this one was never closed.
            self._fail(call, "the call is not closed with </tool> before the next <tool>",
                       events, data, start)
            return start
        if element == "arguments":
            if top.kind != "tool":
                if closing:
                    tree.close_to_tool()
                else:
                    self._literal_markup(top, data[start:end])
            return end
        if closing:
            if element == "arg" and top.kind == "item":
                tree.close()  # a forgotten </item>
            if tree.frames[-1].kind == element:
                tree.close()
            return end  # anything else is a stray closing tag
        if element == "arg":
            tree.open_arg(tag_attributes(body[:-1] if self_closing else body).get("name"))
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

    def _take_raw(self, call: OpenCall, data: str | None, upto: int) -> None:
        """End the open call at ``data[upto]``, adding its text up to there to its raw text."""
        if data is not None and self._call is call:
            call.raw.append(data[self._raw_from : upto])
        self._call = None

    def _complete(
        self, call: OpenCall, events: list[ParseEvent], data: str | None = None, upto: int = 0
    ) -> None:
        self._take_raw(call, data, upto)
        if call.tree.problems:
            self._fail(call, "; ".join(call.tree.problems), events)
            return
        invocation = self.calls.build(call.name, call.tree.arguments, call.id)
        events.append(ToolCallCompleted(invocation, call.index))

    def _fail(
        self, call: OpenCall, message: str, events: list[ParseEvent], data: str | None = None,
        upto: int = 0,
    ) -> None:
        self._take_raw(call, data, upto)
        raw = "".join(call.raw)
        events.append(self.calls.failure(
            f"the call to {call.name!r} is malformed: {message}", raw,
            index=call.index, name=call.name, call_id=call.id,
        ))
        events.append(TextDelta(raw))
