"""DriverSpans: the driver's end of a Ray team's spans. Hosts send their members' finished
spans in the poll replies the backend's pump already takes (``SpansFinished``); each is
rebuilt with its own ids, timing, attributes, events and status, under the driver provider's
resource and the same instrumentation scope a local member's spans have, and handed to that
provider's span processors: the user's exporter sees one trace for the team run, whichever
runtime ran it. Imported only when the team traces (it needs the OpenTelemetry SDK)."""

from __future__ import annotations

import pickle
import threading
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import Event, ReadableSpan, SpanProcessor
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceFlags
from opentelemetry.trace.span import TraceState

from autobyteus_like.errors import ConfigError
from autobyteus_like.runtime._ray_spans import ShippedSpan, SpansFinished, SpanShipping
from autobyteus_like.tracing._settings import Tracing

__all__ = ["DriverSpans", "driver_spans"]

SCOPE = InstrumentationScope("autobyteus_like")
"""The scope of every member's spans (``Tracing.tracer`` asks for this tracer name)."""


def driver_spans(settings: Tracing, team: str) -> DriverSpans:
    """The span export of a team that traces (``settings.tracer()`` is not None; a team that
    does not never imports this module, and nothing of its spans crosses from the hosts)."""
    provider: Any = settings.provider or trace.get_tracer_provider()
    processor = getattr(provider, "_active_span_processor", None)
    if not isinstance(processor, SpanProcessor):
        raise ConfigError(f"team {team!r}", [
            f"tracing on Ray needs the OpenTelemetry SDK's TracerProvider on the driver "
            f"(the members' spans are exported through its processors); got "
            f"{type(provider).__name__}"])
    return DriverSpans(processor, provider.resource, _portable_sampler(provider),
                       settings.content)


class DriverSpans:
    """Exports what hosts send through the driver provider's ``processor``."""

    def __init__(self, processor: SpanProcessor, resource: Any, sampler: Any,
                 content: bool) -> None:
        self._processor = processor
        self._resource = resource
        self.shipping = SpanShipping(content=content, sampler=sampler)
        """What every host traces with."""
        self._lock = threading.Lock()
        self.spans = 0
        """Spans exported so far; ``records``: the poll replies that carried them."""
        self.records = 0

    def export(self, record: SpansFinished) -> None:
        """Every span of one poll reply, to the driver's processors (its exporters)."""
        for span in record.spans:
            self._processor.on_end(self.rebuilt(span))
        with self._lock:
            self.spans += len(record.spans)
            self.records += 1

    def rebuilt(self, span: ShippedSpan) -> ReadableSpan:
        """The span as the SDK's own finished span, under the driver's resource."""
        state = TraceState(list(span.trace_state))
        context = SpanContext(span.trace_id, span.span_id, is_remote=False,
                              trace_flags=TraceFlags(span.trace_flags), trace_state=state)
        parent = None if span.parent_id is None else SpanContext(
            span.trace_id, span.parent_id, is_remote=span.parent_remote,
            trace_flags=TraceFlags(span.trace_flags), trace_state=state)
        return ReadableSpan(
            span.name, context=context, parent=parent, resource=self._resource,
            attributes=span.attributes,
            events=[Event(name, attributes, timestamp)
                    for name, timestamp, attributes in span.events],
            links=[Link(SpanContext(trace_id, span_id, is_remote=True,
                                    trace_flags=TraceFlags(flags)), attributes)
                   for trace_id, span_id, flags, attributes in span.links],
            kind=SpanKind(span.kind), status=Status(StatusCode(span.status), span.description),
            start_time=span.start, end_time=span.end, instrumentation_scope=SCOPE)


def _portable_sampler(provider: Any) -> Any:
    """The driver's sampler, for the hosts; None (the SDK's default, parent-based) when it
    cannot be sent to another process."""
    sampler = getattr(provider, "sampler", None)
    try:
        pickle.dumps(sampler)
    except Exception:  # a sampler closing over a lock or a client: the default there
        return None
    return sampler
