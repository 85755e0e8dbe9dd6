"""HandlerRegistry: which handler runs for which event type. One per agent, extendable."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from autobyteus_like.events import AgentEvent
from autobyteus_like.handlers._context import AgentContext
from autobyteus_like.handlers._effects import Effect

__all__ = ["EventHandler", "HandlerRegistry"]


class EventHandler(Protocol):
    """Reacts to one kind of event: may change the context, and returns the effects it asks
    the actor for (events to emit, work to start: ``effects``), or None."""

    def handle(self, event: AgentEvent, ctx: AgentContext) -> Iterable[Effect] | None:
        """Handle ``event`` on the agent's actor thread."""


class HandlerRegistry:
    """Handlers by exact event type; an event with no handler is only published."""

    def __init__(self, handlers: Mapping[type[AgentEvent], EventHandler] | None = None) -> None:
        self._handlers: dict[type[AgentEvent], EventHandler] = dict(handlers or {})

    def register(self, event_type: type[AgentEvent], handler: EventHandler) -> None:
        """Handle ``event_type`` with ``handler`` (replacing any earlier one)."""
        if not (isinstance(event_type, type) and issubclass(event_type, AgentEvent)):
            raise TypeError(f"{event_type!r} is not an AgentEvent type")
        if not callable(getattr(handler, "handle", None)):
            raise TypeError(f"{handler!r} has no handle(event, ctx) method")
        self._handlers[event_type] = handler

    def find(self, event_type: type[AgentEvent]) -> EventHandler | None:
        """The handler for that event type, if any."""
        return self._handlers.get(event_type)

    def table(self) -> dict[type[AgentEvent], EventHandler]:
        """A snapshot of every handler by event type (the agent dispatches from it)."""
        return dict(self._handlers)
