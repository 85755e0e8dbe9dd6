"""SpanCollector: a Ray host's tracer provider and the span processor that keeps its members'
finished spans until the driver's next poll takes them (imported by a host only when the
team traces: it needs the OpenTelemetry SDK there, as the driver does).

A member on a host traces as a local one does (the same ``AgentSpans`` hooks, names and
attributes), into a provider of the host's own; nothing is exported from the host. A span
that ends is kept as plain values (``ShippedSpan``); the next poll reply carries every span
kept by then as one record, first in the reply (so the driver exports a turn's spans before
it settles the turn). Spans ride the replies the host sends anyway (a delivery, a turn's
end, events): only when none is sent within ``LINGER_S`` of the first span kept does a
wake-up in the host's stream make one, as a batch span processor's delay does.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable

from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider

from autobyteus_like.events import AgentEvent
from autobyteus_like.runtime._ray_spans import WAKE, ShippedSpan, SpansFinished, SpanShipping
from autobyteus_like.tracing._settings import Tracing

__all__ = ["LINGER_S", "SpanCollector", "shipped"]

LINGER_S = 0.25
"""How long finished spans wait for a poll reply the host sends anyway."""


class SpanCollector(SpanProcessor):
    """Keeps finished spans for the host's next poll (``drain``); ``report`` puts a record in
    the host's stream (from any thread)."""

    def __init__(self, host: str, shipping: SpanShipping,
                 report: Callable[[AgentEvent], None]) -> None:
        self._host = host
        self._report = report
        self._lock = threading.Lock()
        self._kept: list[ShippedSpan] = []
        self._held = 0  # members stopping: their last spans go with the stop's answer
        self._takes = 0  # how often the kept spans were taken (a wake-up due is not then)
        self._loop: asyncio.AbstractEventLoop | None = None
        self.shipped = 0
        """Spans handed to polls so far; ``replies``: the poll replies that carried them."""
        self.replies = 0
        provider = TracerProvider(sampler=shipping.sampler, resource=Resource.get_empty(),
                                  shutdown_on_exit=False)
        provider.add_span_processor(self)
        self.tracing = Tracing(provider=provider, capture_content=shipping.content)
        """What every member of the host traces with (one span directory for them all)."""

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        return None

    def use_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The host's loop runs: from now on a wake-up waits ``LINGER_S`` (before, at once)."""
        self._loop = loop

    def on_end(self, span: ReadableSpan) -> None:
        kept = shipped(span)
        with self._lock:
            self._kept.append(kept)
            first = len(self._kept) == 1
            takes = self._takes
        if not first:
            return
        loop = self._loop
        if loop is None:
            self._report(WAKE)
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: the host is ending
            loop.call_soon_threadsafe(loop.call_later, LINGER_S, self._wake, takes)

    def _wake(self, takes: int) -> None:
        """A poll reply, unless one took the spans since (``takes``) or none are kept."""
        with self._lock:
            due = bool(self._kept) and self._takes == takes
        if due:
            self._report(WAKE)

    def drain(self, batch: list[AgentEvent]) -> list[AgentEvent]:
        """A poll's reply: ``batch`` without wake-ups, after one record of every span kept."""
        kept = [] if self._held else self.take()
        rest = [item for item in batch if item is not WAKE]
        if not kept:
            return rest
        self.shipped += len(kept)
        self.replies += 1
        return [SpansFinished(agent=self._host, spans=tuple(kept)), *rest]

    def take(self) -> list[ShippedSpan]:
        """Every span kept, now (and no more kept)."""
        with self._lock:
            kept, self._kept = self._kept, []
            self._takes += 1
        return kept

    def hold(self) -> None:
        """A member is stopping: polls leave the spans kept, its stop takes them."""
        with self._lock:
            self._held += 1

    def release(self) -> SpansFinished | None:
        """The member stopped: the spans kept meanwhile (those its stop ended among them)."""
        with self._lock:
            self._held -= 1
        kept = self.take()
        if not kept:
            return None
        self.shipped += len(kept)
        self.replies += 1
        return SpansFinished(agent=self._host, spans=tuple(kept))

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def shipped(span: ReadableSpan) -> ShippedSpan:
    """A finished span as plain values."""
    context = span.context
    assert context is not None  # an SDK span always has one
    parent = span.parent
    return ShippedSpan(
        name=span.name, trace_id=context.trace_id, span_id=context.span_id,
        trace_flags=int(context.trace_flags), trace_state=tuple(context.trace_state.items()),
        parent_id=None if parent is None else parent.span_id,
        parent_remote=parent is not None and parent.is_remote,
        kind=span.kind.value, start=span.start_time or 0, end=span.end_time or 0,
        attributes=dict(span.attributes or {}),
        events=tuple((event.name, event.timestamp, dict(event.attributes or {}))
                     for event in span.events),
        links=tuple((link.context.trace_id, link.context.span_id, int(link.context.trace_flags),
                     dict(link.attributes or {})) for link in span.links),
        status=span.status.status_code.value, description=span.status.description)
