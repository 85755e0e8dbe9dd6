"""The interface every format's streaming parser implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from autobyteus_like.parsers._call_builder import CallBuilder
from autobyteus_like.parsers._parse_events import ParseEvent
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["FormatParser", "ParserFactory"]


class FormatParser(ABC):
    """Reads one response of one format, chunk by chunk. One instance per response."""

    format_name: str = ""

    def __init__(self, tools: ToolRegistry | None, ids: InvocationIdAllocator) -> None:
        self.calls = CallBuilder(self.format_name, tools, ids)
        self.tools = tools

    @abstractmethod
    def feed(self, chunk: str) -> list[ParseEvent]:
        """Read the next chunk; return the events it completed."""

    @abstractmethod
    def finish(self) -> list[ParseEvent]:
        """The response ended; return the events that closes (cut-off calls become errors)."""


ParserFactory = Callable[[ToolRegistry | None, InvocationIdAllocator], FormatParser]
"""Makes a format's parser for one response (``FormatParser`` subclasses are such factories)."""
