"""The public parsing API: ``StreamingToolCallParser`` and ``parse_tool_calls``.

A whole response is parsed by the same state machine as a stream, fed in one chunk, so the two
can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable

from autobyteus_like.parsers.base import FormatParser, ParserFactory
from autobyteus_like.parsers.events import ParseEvent, ParseResult
from autobyteus_like.tool_call_format import ToolCallFormat
from autobyteus_like.tools.invocation_ids import InvocationIdAllocator
from autobyteus_like.tools.registry import ToolLike, ToolRegistry

__all__ = ["StreamingToolCallParser", "parse_tool_calls"]

ToolsArg = ToolRegistry | Iterable[ToolLike] | None


class StreamingToolCallParser:
    """Reads one LLM response chunk by chunk and emits events as soon as they are decided.

    ``tools`` (a registry or list of definitions) tells the XML parser which arguments are
    plain text; values are kept as written (validation converts them). ``ids`` is the agent
    session's allocator; without one, ids are unique within this response only. ``factory``
    runs the parser of a format registered in a ``FormatRegistry``; ``format`` is then only
    that format's name.

    Raises ``TypeError`` for a chunk that is not a string and ``RuntimeError`` when fed after
    ``finish``; nothing else escapes, whatever the text.
    """

    def __init__(
        self,
        format: ToolCallFormat | str,
        tools: ToolsArg = None,
        ids: InvocationIdAllocator | None = None,
        *,
        factory: ParserFactory | None = None,
    ) -> None:
        self.format: ToolCallFormat | str = format if factory else ToolCallFormat.parse(format)
        registry = ToolRegistry.of(tools) if tools is not None else None
        if factory is None:
            from autobyteus_like.formats import builtin_format  # the registry sits above parsers

            factory = builtin_format(format).parser_factory
        make = factory
        self._parser: FormatParser = make(registry, ids or InvocationIdAllocator())
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


def parse_tool_calls(
    text: str,
    format: ToolCallFormat | str,
    tools: ToolsArg = None,
    ids: InvocationIdAllocator | None = None,
) -> ParseResult:
    """Every call in a whole response, in document order, with errors and the prose around."""
    parser = StreamingToolCallParser(format, tools, ids)
    return ParseResult.from_events(parser.feed(text) + parser.finish())
