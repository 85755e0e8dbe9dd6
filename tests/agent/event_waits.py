"""Waiting on an agent's events in simulation tests (real actors, ScriptedLLM, no mocks)."""

from __future__ import annotations

from autobyteus_like.agent import EventSubscription
from autobyteus_like.events import AgentEvent


def wait_for(events: EventSubscription, kind: type[AgentEvent], count: int = 1,
             timeout: float = 5) -> list[AgentEvent]:
    """Read events until ``count`` of type ``kind`` arrived; return those."""
    found: list[AgentEvent] = []
    while len(found) < count:
        event = events.get(timeout=timeout)
        assert event is not None, f"the agent stopped before {count} {kind.__name__} event(s)"
        if isinstance(event, kind):
            found.append(event)
    return found
