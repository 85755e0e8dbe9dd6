"""A span's place in its trace as a small value that crosses processes: the W3C trace context
(``traceparent``, and ``tracestate`` when there is one), by OpenTelemetry's own propagator. A
message to a member in another process carries it, so that member's turn is a child of the
sender's span and the run stays one trace."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["carrier_of", "parent_from"]


def carrier_of(span_context: Any) -> dict[str, str] | None:
    """The W3C headers of ``span_context`` (an OpenTelemetry ``SpanContext``; None: none)."""
    if span_context is None:
        return None
    from opentelemetry import trace
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(
        carrier, context=trace.set_span_in_context(trace.NonRecordingSpan(span_context)))
    return carrier or None


def parent_from(carrier: Mapping[str, str] | None) -> Any:
    """The ``SpanContext`` (remote) the headers name; None for none, or for headers that do
    not parse (a turn without a parent, as the propagator itself treats them)."""
    if not carrier:
        return None
    from opentelemetry import trace
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    context = TraceContextTextMapPropagator().extract(dict(carrier))
    span_context = trace.get_current_span(context).get_span_context()
    return span_context if span_context.is_valid else None
