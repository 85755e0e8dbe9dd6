"""Call markup that arrives HTML-entity-escaped, read as the markup it stands for.

Some servers render their chat template with HTML autoescaping (llama.cpp's, for one), so the
model sees, and copies, ``&#34;`` for quotes and ``&lt;TOOL_CALL&gt;`` for tags. Every text
format's parser is wrapped by ``EntityRepair``: text passes through untouched until an escaped
call opener appears (an escaped tag of a call, ``&lt;tool``, ``&lt;TOOL_CALL&gt;``,
``&lt;execute&gt;``, ``&lt;function``, or of a known tool's name; or a JSON object or list opening
with an escaped quote); from there on the rest of the reply is unescaped before the format's
parser reads it. Prose before it stays exactly as written.

Streaming equals batch: a chunk that ends inside an entity or inside a possible opener holds
that tail back until the next chunk (or the end) decides it.

The chunk path (every chunk of every streamed reply passes here): while nothing is held or
escaped (``_plain``) a chunk without ``&`` is one test, the escaped-opener tail kept, and a
direct call of the layer inside. Around ``OpenModelShapes`` (every built-in text format) that
call skips its frame: the format's parser is called here and its events go to the shapes'
``read`` only when there are any (measured: see benchmarks/README.md, "The two wrappers' chunk
path").
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable

from autobyteus_like.parsers._base import FormatParser, ParserFactory
from autobyteus_like.parsers._open_model_shapes import OpenModelShapes
from autobyteus_like.parsers._parse_events import ParseEvent
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["EntityRepair", "entity_repairing"]

_CALL_TAGS = ("tool", "tool_call", "tools", "execute", "function", "function_call",
              "functions", "invoke")
_QUOTE = r"&(?:#34|#x22|quot);"
_PARTIAL_ENTITY = re.compile(r"&[#\w]{0,7}\Z")
_PARTIAL_OPENER = re.compile(
    r"(?:&(?:l(?:t)?)?|&lt;[\w.-]{0,40}(?:&(?:g(?:t)?)?)?|[\[{][\s\[{]{0,8}&[#\w]{0,4})\Z")
_TAIL = 16


def _openers(tools: ToolRegistry | None) -> re.Pattern[str]:
    return _openers_for(tuple(tools.names()) if tools else ())


@functools.lru_cache(maxsize=64)
def _openers_for(tool_names: tuple[str, ...]) -> re.Pattern[str]:
    """Built once per set of tool names: a parser is made for every LLM request."""
    names = [*_CALL_TAGS, *(re.escape(name) for name in tool_names)]
    tags = "|".join(sorted(names, key=len, reverse=True))
    return re.compile(rf"&lt;(?:{tags})(?=[\s/=]|&gt;)|[\[{{][\s\[{{]*{_QUOTE}", re.IGNORECASE)


class EntityRepair(FormatParser):
    """``inner`` reading entity-escaped call markup as markup (see the module)."""

    def __init__(self, inner: FormatParser, tools: ToolRegistry | None) -> None:
        self.format_name = inner.format_name
        self.calls = inner.calls
        self.tools = inner.tools
        self._inner = inner
        self._direct: Callable[[str], list[ParseEvent]] = inner.feed
        """What reads a plain chunk: the format's parser itself under ``OpenModelShapes``."""
        self._after: Callable[[list[ParseEvent]], list[ParseEvent]] | None = None
        """What the direct reader's events go through: the shapes' ``read`` (or nothing)."""
        if isinstance(inner, OpenModelShapes):
            self._direct, self._after = inner.format_feed, inner.read
        self._plain = True
        """Nothing held back and not escaped: the one test of a chunk's fast path."""
        self._registry = tools
        self._openers: re.Pattern[str] | None = None
        """Made when the first ``&`` arrives (most replies have none)."""
        self._escaped = False
        self._pending = ""
        self._tail = ""

    def feed(self, chunk: str) -> list[ParseEvent]:
        if self._plain and "&" not in chunk:
            self._tail = chunk[-_TAIL:] if len(chunk) >= _TAIL else (self._tail + chunk)[-_TAIL:]
            events = self._direct(chunk)
            after = self._after
            return after(events) if events and after is not None else events
        events = self._slow(chunk)
        self._plain = not self._pending and not self._escaped
        return events

    def _slow(self, chunk: str) -> list[ParseEvent]:
        """A chunk with an ``&``, or after held or escaped text."""
        data, self._pending = self._pending + chunk, ""
        if self._escaped:
            return self._unescaped(data, final=False)
        window = self._tail + data
        if self._openers is None:
            self._openers = _openers(self._registry)
        found = self._openers.search(window)
        if found is not None:
            split = max(0, found.start() - len(self._tail))
            self._escaped = True
            events = self._inner.feed(data[:split]) if split else []
            return events + self._unescaped(data[split:], final=False)
        held = _PARTIAL_OPENER.search(data)
        keep = len(data) - held.start() if held is not None and "&" in held.group(0) else 0
        if keep == 0 and (partial := _PARTIAL_ENTITY.search(data)) is not None:
            keep = len(data) - partial.start()
        raw, self._pending = data[: len(data) - keep], data[len(data) - keep :]
        self._tail = (self._tail + raw)[-_TAIL:]
        return self._inner.feed(raw) if raw else []

    def finish(self) -> list[ParseEvent]:
        if not self._pending:
            return self._inner.finish()
        events: list[ParseEvent] = []
        if self._pending:
            pending, self._pending = self._pending, ""
            events = (self._unescaped(pending, final=True) if self._escaped
                      else self._inner.feed(pending))
        return events + self._inner.finish()

    def _unescaped(self, data: str, *, final: bool) -> list[ParseEvent]:
        keep = 0
        if not final and (partial := _PARTIAL_ENTITY.search(data)) is not None:
            keep = len(data) - partial.start()
        text, self._pending = data[: len(data) - keep], data[len(data) - keep :]
        return self._inner.feed(html.unescape(text)) if text else []


def entity_repairing(factory: ParserFactory) -> ParserFactory:
    """``factory``'s parsers, each reading escaped call markup as markup."""

    def make(tools: ToolRegistry | None, ids: InvocationIdAllocator) -> FormatParser:
        return EntityRepair(factory(tools, ids), tools)

    return make
