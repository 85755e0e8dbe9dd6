"""FormatRegistry: pairs each format's formatter with its parser; one per agent or team.

A format is its formatter and its parser, tested as one. Adding a format means writing both and
registering the pair; everything that takes a format name then works with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from autobyteus_like.formatters.base import ToolFormatter
from autobyteus_like.formatters.manifest import build_manifest, render_results
from autobyteus_like.formatters.registry import BUILTIN_FORMATTERS
from autobyteus_like.parsers.registry import BUILTIN_PARSERS, ParserFactory
from autobyteus_like.parsers.streaming import StreamingToolCallParser
from autobyteus_like.tool_call_format import ToolCallFormat
from autobyteus_like.tools.invocation import ToolInvocation, ToolResult
from autobyteus_like.tools.invocation_ids import InvocationIdAllocator
from autobyteus_like.tools.registry import ToolLike, ToolRegistry

__all__ = ["NATIVE", "FormatRegistry", "ToolFormat"]

NATIVE = ToolCallFormat.NATIVE.value
"""Native tool calling: tools in the provider's ``tools`` parameter, calls as structured data."""


@dataclass(frozen=True)
class ToolFormat:
    """One format: how tools are taught (formatter) and how calls are read back (parser)."""

    name: str
    formatter: ToolFormatter
    parser_factory: ParserFactory

    def manifest(self, tools: ToolRegistry | Iterable[ToolLike]) -> str:
        """The tool manifest in this format."""
        return build_manifest(tools, self.formatter)

    def parser(
        self, tools: ToolRegistry | None = None, ids: InvocationIdAllocator | None = None
    ) -> StreamingToolCallParser:
        """A new streaming parser for one response in this format."""
        return StreamingToolCallParser(self.name, tools, ids, factory=self.parser_factory)

    def results(self, invocations: list[ToolInvocation], results: Iterable[ToolResult]) -> str:
        """A turn's results in this format, in invocation order."""
        return render_results(invocations, results, self.formatter)


class FormatRegistry:
    """Formats by name. ``FormatRegistry()`` holds the six built-in ones; nothing is global."""

    def __init__(self, formats: Iterable[ToolFormat] | None = None) -> None:
        self._formats: dict[str, ToolFormat] = {}
        builtins = [
            ToolFormat(fmt.value, BUILTIN_FORMATTERS[fmt], BUILTIN_PARSERS[fmt])
            for fmt in ToolCallFormat
        ]
        for tool_format in builtins if formats is None else formats:
            self._formats[tool_format.name] = tool_format

    def register(
        self, name: str, formatter: ToolFormatter, parser_factory: ParserFactory
    ) -> ToolFormat:
        """Add a format (or replace one of the same name) from its formatter and parser."""
        if not name or not name.strip():
            raise ValueError("a format needs a name")
        tool_format = ToolFormat(name.strip().lower(), formatter, parser_factory)
        self._formats[tool_format.name] = tool_format
        return tool_format

    def get(self, name: ToolCallFormat | str) -> ToolFormat:
        """The format of that name, or a ``ValueError`` listing the known ones."""
        key = str(name.value if isinstance(name, ToolCallFormat) else name).strip().lower()
        try:
            return self._formats[key]
        except KeyError:
            known = ", ".join(self._formats)
            raise ValueError(f"unknown tool call format {name!r}; known formats: {known}") from None

    def names(self) -> list[str]:
        """Registered format names."""
        return list(self._formats)

    def __iter__(self) -> Iterator[ToolFormat]:
        return iter(self._formats.values())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self._formats
