"""``StreamingToolCallParser``: one response read chunk by chunk by the parser of the format it
is given (formats by name, and ``parse_tool_calls`` for a whole response, are
``autobyteus_like.formats``, the layer above).
"""

from __future__ import annotations

from collections.abc import Iterable

from autobyteus_like.parsers._base import FormatParser, ParserFactory
from autobyteus_like.parsers._parse_events import ParseEvent
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolLike, ToolRegistry

__all__ = ["StreamingToolCallParser"]

ToolsArg = ToolRegistry | Iterable[ToolLike] | None


class StreamingToolCallParser:
    """Reads one LLM response chunk by chunk and emits events as soon as they are decided.

    ``tools`` (a registry or list of definitions) tells the XML parser which arguments are
    plain text; values are kept as written (validation converts them). ``ids`` is the agent
    session's allocator; without one, ids are unique within this response only. ``factory``
    makes the parser of the format named ``format`` (``ToolFormat.parser`` passes both).

    Raises ``TypeError`` for a chunk that is not a string and ``RuntimeError`` when fed after
    ``finish``; nothing else escapes, whatever the text.
    """

    def __init__(
        self,
        format: str,
        tools: ToolsArg = None,
        ids: InvocationIdAllocator | None = None,
        *,
        factory: ParserFactory,
    ) -> None:
        self.format = format
        registry = ToolRegistry.of(tools) if tools is not None else None
        self._parser: FormatParser = factory(registry, ids or InvocationIdAllocator())
        self._feed = self._parser.feed
        self._finished = False

    def feed(self, chunk: str) -> list[ParseEvent]:
        """Read the next chunk; return the events it completed."""
        if type(chunk) is not str and not isinstance(chunk, str):
            raise TypeError(f"feed() takes text, got {type(chunk).__name__}")
        if self._finished:
            raise RuntimeError("this parser has finished; start a new one for a new response")
        return self._feed(chunk) if chunk else []

    def finish(self) -> list[ParseEvent]:
        """The response ended: flush held text; a call left open becomes an error."""
        if self._finished:
            return []
        self._finished = True
        return self._parser.finish()

