"""``--trace console|otlp``: an SDK tracer provider with a batch exporter, for the command line
and for programs that want the same in one call. Needs ``autobyteus-like[otel]``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Literal

from autobyteus_like.errors import UsageError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

__all__ = ["configure_tracing"]


def configure_tracing(exporter: Literal["console", "otlp"],
                      service_name: str = "autobyteus-like") -> TracerProvider:
    """A provider exporting in batches to the console (stderr, JSON per span) or to OTLP over
    HTTP (endpoint, headers and timeout from the standard ``OTEL_EXPORTER_OTLP_*`` variables).
    Pass it as ``Tracing(provider=...)``; ``shutdown()`` it at the end to flush."""
    try:
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SpanExporter,
        )
    except ImportError as exc:
        raise UsageError(f"tracing needs the OpenTelemetry SDK ({exc.name} is missing): "
                         "pip install 'autobyteus-like[otel]'") from None
    chosen: SpanExporter
    if exporter == "console":
        chosen = ConsoleSpanExporter(out=sys.stderr)
    elif exporter == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise UsageError(f"--trace otlp needs the OTLP exporter ({exc.name} is missing): "
                             "pip install 'autobyteus-like[otel]'") from None
        chosen = OTLPSpanExporter()
    else:
        raise UsageError(f"unknown trace exporter {exporter!r}; use console or otlp")
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service_name}))
    provider.add_span_processor(BatchSpanProcessor(chosen))
    return provider
