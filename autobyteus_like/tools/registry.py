"""ToolRegistry: an ordinary object holding tool definitions by name, in registration order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from autobyteus_like.errors import DuplicateToolError, ToolDeclarationError, UnknownToolError
from autobyteus_like.tools.base_tool import BaseTool
from autobyteus_like.tools.definition import ToolDefinition

__all__ = ["ToolLike", "ToolRegistry", "as_definition"]

ToolLike = ToolDefinition | BaseTool | type[BaseTool]


def as_definition(item: Any) -> ToolDefinition:
    """Accept a ToolDefinition, a BaseTool instance or subclass; anything else is an error."""
    if isinstance(item, ToolDefinition):
        return item
    if isinstance(item, BaseTool):
        return item.definition()
    if isinstance(item, type) and issubclass(item, BaseTool):
        return item().definition()
    if callable(item):
        raise ToolDeclarationError(
            f"{getattr(item, '__name__', item)!r} is a plain callable; decorate it with @tool first"
        )
    raise ToolDeclarationError(f"not a tool: {item!r}")


class ToolRegistry:
    """Tools by name. No global instance: each agent, team or test owns its own."""

    def __init__(self, tools: Iterable[ToolLike] = ()) -> None:
        self._tools: dict[str, ToolDefinition] = {}
        if isinstance(tools, str | bytes | dict) or not isinstance(tools, Iterable):
            raise ToolDeclarationError(
                f"expected a ToolRegistry or an iterable of tools, got {type(tools).__name__}")
        for item in tools:
            self.add(item)

    @classmethod
    def of(cls, tools: ToolRegistry | Iterable[ToolLike] | None) -> ToolRegistry:
        """A registry from a registry (returned as is), an iterable of tools, or None (empty)."""
        if isinstance(tools, ToolRegistry):
            return tools
        return cls(tools or ())

    def add(self, item: ToolLike) -> ToolDefinition:
        """Register a tool; a second tool with the same name is an error."""
        definition = as_definition(item)
        if definition.name in self._tools:
            raise DuplicateToolError(definition.name)
        self._tools[definition.name] = definition
        return definition

    def get(self, name: str) -> ToolDefinition:
        """The tool of that name, or ``UnknownToolError`` listing the available ones."""
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownToolError(name, list(self._tools)) from None

    def find(self, name: str) -> ToolDefinition | None:
        """The tool of that name, or None."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in registration order."""
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[ToolDefinition]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names()!r})"
