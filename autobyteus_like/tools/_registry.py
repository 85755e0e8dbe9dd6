"""ToolRegistry: an ordinary object holding tool definitions by name, in registration order.

Tools may also come from a ``ToolSource`` (an MCP server's toolset): something that runs, is
started by the agent or team that uses it, and whose tools can change while it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any, Protocol, runtime_checkable

from autobyteus_like.errors import (
    ConfigError,
    DuplicateToolError,
    ToolDeclarationError,
    UnknownToolError,
)
from autobyteus_like.tools._base import BaseTool
from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["ToolLike", "ToolRegistry", "ToolSource", "acquire_all", "as_definition",
           "split_tool_sources"]

ToolLike = ToolDefinition | BaseTool | type[BaseTool]


@runtime_checkable
class ToolSource(Protocol):
    """Tools served by something that runs, such as an MCP server (``MCPToolset``).

    ``acquire`` takes it into use: the first one starts it, and the future completes once its
    tools are known (or fails with a ``ConfigError`` saying why it could not start).
    ``release`` ends one use and the last one stops it; every ``acquire`` is matched by one
    ``release``, even one whose start failed. ``tools()`` are the current tools, each named
    ``<namespace>.<tool>``; ``watch(callback)`` calls back, from any thread, when they change,
    and returns the function that stops watching.
    """

    @property
    def namespace(self) -> str: ...

    def acquire(self) -> Future[None]: ...

    def release(self) -> None: ...

    def tools(self) -> list[ToolDefinition]: ...

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]: ...


def split_tool_sources(
    items: ToolRegistry | Iterable[ToolLike | ToolSource] | ToolSource | None,
) -> tuple[ToolRegistry, tuple[ToolSource, ...]]:
    """Separate tool sources from plain tools: ``tools=[add, fs_toolset]``."""
    if items is None or isinstance(items, ToolRegistry):
        return ToolRegistry.of(items), ()
    if isinstance(items, ToolSource):
        return ToolRegistry(), (items,)
    if isinstance(items, str | bytes | dict) or not isinstance(items, Iterable):
        raise ToolDeclarationError(
            f"expected a ToolRegistry or an iterable of tools, got {type(items).__name__}")
    items = list(items)
    sources = tuple(item for item in items if isinstance(item, ToolSource))
    return ToolRegistry([item for item in items if not isinstance(item, ToolSource)]), sources


def acquire_all(sources: Iterable[ToolSource], what: str) -> None:
    """Start every source at once and wait for all; if any fails, release them all and raise
    one ``ConfigError`` for ``what`` with a line per failure."""
    sources = list(sources)
    futures = [source.acquire() for source in sources]
    problems: list[str] = []
    for source, future in zip(sources, futures, strict=True):
        try:
            future.result()
        except ConfigError as exc:
            problems.extend(str(exc).splitlines())
        except Exception as exc:
            problems.append(f"{source.namespace}: {type(exc).__name__}: {exc}")
    if problems:
        for source in sources:
            source.release()
        raise ConfigError(what, problems)


def as_definition(item: Any) -> ToolDefinition:
    """Accept a ToolDefinition, a BaseTool instance or subclass; anything else is an error."""
    if isinstance(item, ToolDefinition):
        return item
    if isinstance(item, BaseTool):
        return item.definition()
    if isinstance(item, type) and issubclass(item, BaseTool):
        return item().definition()
    if isinstance(item, ToolSource):
        raise ToolDeclarationError(
            f"{item!r} is a tool source, not a tool: pass it in an Agent's or AgentTeam's "
            "tools=..., which start it and take its tools")
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
