"""Spans on the move between a Ray host and the driver: the settings a host traces with, a
finished span as plain values, and the record that carries a host's finished spans to the
driver in the stream it already polls. Nothing of OpenTelemetry is imported here: a team
without tracing never loads it (the host's collector is ``ray_span_collector``, the driver's
exporter ``ray_span_export``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autobyteus_like.events import AgentEvent

__all__ = ["ShippedSpan", "SpanShipping", "SpansFinished"]


@dataclass(frozen=True, slots=True)
class SpanShipping:
    """How a host traces its members: ``content`` as the driver's ``Tracing`` says (decided
    there, env variable included), ``sampler`` the driver provider's own (for a turn without
    a parent; a turn with one follows its parent's sampling decision)."""

    content: bool
    sampler: Any = None


@dataclass(frozen=True, slots=True)
class ShippedSpan:
    """One finished span, as plain values: the ids, timing, attributes, events, links and
    status the driver rebuilds it from (its resource and scope are the driver's)."""

    name: str
    trace_id: int
    span_id: int
    trace_flags: int
    trace_state: tuple[tuple[str, str], ...]
    parent_id: int | None
    parent_remote: bool
    kind: int
    start: int
    end: int
    attributes: dict[str, Any]
    events: tuple[tuple[str, int, dict[str, Any]], ...]
    links: tuple[tuple[int, int, int, dict[str, Any]], ...]
    status: int
    description: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SpansFinished(AgentEvent):
    """Every span the members of host ``agent`` (the host's actor name) finished since its
    last poll: one record per poll reply, however many spans, never a call of its own."""

    spans: tuple[ShippedSpan, ...]


WAKE = SpansFinished(agent="", spans=())
"""Put in a host's stream when finished spans found no poll reply to ride (so a poll
answers); the poll replaces it with the spans themselves (``SpanCollector.drain``)."""
