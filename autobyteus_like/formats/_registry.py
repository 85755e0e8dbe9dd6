"""The one registry of formats. A format is its formatter (how tools are taught and results
written back) and its parser (how calls are read out of a response), tested as one pair.

The built-in formats are listed here once, by where their code lives, and each is imported the
first time it is used (an agent speaking JSON never loads the XML code). ``FormatRegistry()``
holds them all and takes more with ``register``; nothing here is global but the table of
built-in pairs, whose formatters are stateless.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from autobyteus_like.formats._names import ToolCallFormat
from autobyteus_like.formatters._base import ToolFormatter
from autobyteus_like.formatters._manifest import build_manifest, render_results
from autobyteus_like.parsers._base import ParserFactory
from autobyteus_like.parsers._streaming import StreamingToolCallParser, ToolsArg

if TYPE_CHECKING:
    from autobyteus_like.tools._invocation import ToolInvocation, ToolResult
    from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
    from autobyteus_like.tools._registry import ToolLike, ToolRegistry

__all__ = ["FormatRegistry", "ParserFactory", "ToolFormat", "builtin_format"]

_BUILTIN: dict[ToolCallFormat, tuple[str, str, dict[str, Any]]] = {
    ToolCallFormat.OPENAI: ("_openai:OpenAiFormatter", "_json:JsonToolCallParser",
                            {"format": "openai"}),
    ToolCallFormat.GEMINI: ("_gemini:GeminiFormatter", "_json:JsonToolCallParser",
                            {"format": "gemini"}),
    ToolCallFormat.JSON: ("_json:JsonFormatter", "_json:JsonToolCallParser",
                          {"format": "json"}),
    ToolCallFormat.XML: ("_xml:XmlFormatter", "_xml:XmlToolCallParser", {}),
    ToolCallFormat.EXECUTE: ("_execute:ExecuteFormatter",
                             "_execute:ExecuteParser", {}),
    ToolCallFormat.TOOL_CALL: ("_tool_call:ToolCallFormatter",
                               "_tool_call:ToolCallTagParser", {}),
    ToolCallFormat.NATIVE: ("_native:NativeFormatter",
                            "_text_only:TextOnlyParser", {}),
}
"""Each built-in format: its formatter class (in ``formatters``), its parser class (in
``parsers``) and the parser's keyword arguments."""


def _load(package: str, reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(f"autobyteus_like.{package}.{module}"), name)


@dataclass(frozen=True)
class ToolFormat:
    """One format: how tools are taught (formatter) and how calls are read back (parser)."""

    name: str
    formatter: ToolFormatter
    parser_factory: ParserFactory

    def manifest(self, tools: ToolRegistry | Iterable[ToolLike]) -> str:
        """The tool manifest in this format."""
        return build_manifest(tools, self.formatter)

    def parser(self, tools: ToolsArg = None,
               ids: InvocationIdAllocator | None = None) -> StreamingToolCallParser:
        """A new streaming parser for one response in this format."""
        return StreamingToolCallParser(self.name, tools, ids, factory=self.parser_factory)

    def results(self, invocations: list[ToolInvocation], results: Iterable[ToolResult]) -> str:
        """A turn's results in this format, in invocation order."""
        return render_results(invocations, results, self.formatter)


_loaded: dict[ToolCallFormat, ToolFormat] = {}
_loading = threading.Lock()


def builtin_format(format: ToolCallFormat | str) -> ToolFormat:
    """The built-in format of that name (loaded on first use), or a ``ValueError`` listing the
    known ones."""
    member = ToolCallFormat.parse(format)
    found = _loaded.get(member)
    if found is None:
        with _loading:
            found = _loaded.get(member)
            if found is None:
                formatter_ref, parser_ref, options = _BUILTIN[member]
                parser = _load("parsers", parser_ref)
                factory = partial(parser, **options) if options else parser
                if member is not ToolCallFormat.NATIVE:  # escaped markup read as markup,
                    from autobyteus_like.parsers._entity_repair import entity_repairing
                    from autobyteus_like.parsers._open_model_shapes import open_model_shapes

                    factory = entity_repairing(open_model_shapes(factory))  # open models' too
                found = ToolFormat(member.value, _load("formatters", formatter_ref)(), factory)
                _loaded[member] = found
    return found


class FormatRegistry:
    """Formats by name: the built-in ones (loaded when first asked for) and any registered;
    one per agent or team."""

    def __init__(self, formats: Iterable[ToolFormat] | None = None) -> None:
        self._own: dict[str, ToolFormat] = {}
        self._builtins = formats is None
        for tool_format in formats or ():
            self._own[tool_format.name] = tool_format

    def register(
        self, name: str, formatter: ToolFormatter, parser_factory: ParserFactory
    ) -> ToolFormat:
        """Add a format (or replace one of the same name) from its formatter and parser."""
        if not name or not name.strip():
            raise ValueError("a format needs a name")
        tool_format = ToolFormat(name.strip().lower(), formatter, parser_factory)
        self._own[tool_format.name] = tool_format
        return tool_format

    def get(self, name: ToolCallFormat | str) -> ToolFormat:
        """The format of that name, or a ``ValueError`` listing the known ones."""
        key = str(name.value if isinstance(name, ToolCallFormat) else name).strip().lower()
        found = self._own.get(key)
        if found is not None:
            return found
        if self._builtins and key in ToolCallFormat._value2member_map_:
            return builtin_format(key)
        known = ", ".join(self.names())
        raise ValueError(f"unknown tool call format {name!r}; known formats: {known}")

    def names(self) -> list[str]:
        """Registered format names."""
        builtins = [member.value for member in ToolCallFormat] if self._builtins else []
        return builtins + [name for name in self._own if name not in builtins]

    def __iter__(self) -> Iterator[ToolFormat]:
        return (self.get(name) for name in self.names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self.names()
