"""The driver's end of a Ray team's spans, with real SDK providers and no Ray: a span made
in a host's provider comes out of the driver's exporter with the same ids, parent, timing,
attributes, events, links and status, under the driver's resource and the scope a local
member's spans have; a driver provider that is not the SDK's is refused by name."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link, SpanContext, SpanKind, StatusCode, TraceFlags

from autobyteus_like.errors import ConfigError
from autobyteus_like.runtime._ray_span_collector import SpanCollector
from autobyteus_like.runtime._ray_span_export import driver_spans
from autobyteus_like.runtime._ray_spans import SpansFinished
from autobyteus_like.tracing import Tracing


def test_a_host_s_span_is_exported_on_the_driver_as_it_was_made():
    exporter = InMemorySpanExporter()
    driver = TracerProvider(resource=Resource.create({"service.name": "the-driver"}))
    driver.add_span_processor(SimpleSpanProcessor(exporter))
    export = driver_spans(Tracing(provider=driver), "t")
    host = SpanCollector("host-0", export.shipping, lambda _: None)
    made = InMemorySpanExporter()  # the host's own view, to compare with
    host.tracing.provider.add_span_processor(SimpleSpanProcessor(made))
    remote_parent = SpanContext(0x1234, 0x99, is_remote=True, trace_flags=TraceFlags(1))
    linked = SpanContext(0x5678, 0x42, is_remote=False, trace_flags=TraceFlags(1))
    span = host.tracing.tracer().start_span(
        "execute_tool lookup", kind=SpanKind.CLIENT, links=[Link(linked, {"why": "retry"})],
        context=trace.set_span_in_context(trace.NonRecordingSpan(remote_parent)),
        attributes={"gen_ai.tool.name": "lookup", "gen_ai.response.finish_reasons": ["stop"],
                    "autobyteus.turn_id": 3, "ratio": 0.5, "flag": True})
    span.add_event("approval_denied", {"reason": "no"})
    span.set_status(StatusCode.ERROR, "denied")
    span.end()
    export.export(SpansFinished(agent="host-0", spans=tuple(host.take())))
    (original,), (exported,) = made.get_finished_spans(), exporter.get_finished_spans()
    assert exported.context == original.context and exported.parent == original.parent
    assert exported.parent.is_remote
    assert (exported.name, exported.kind) == ("execute_tool lookup", SpanKind.CLIENT)
    assert (exported.start_time, exported.end_time) == (original.start_time, original.end_time)
    assert dict(exported.attributes) == dict(original.attributes)
    assert [(e.name, e.timestamp, dict(e.attributes)) for e in exported.events] == \
        [(e.name, e.timestamp, dict(e.attributes)) for e in original.events]
    assert [(link.context.span_id, dict(link.attributes)) for link in exported.links] == \
        [(0x42, {"why": "retry"})]
    assert (exported.status.status_code, exported.status.description) == \
        (StatusCode.ERROR, "denied")
    assert exported.resource.attributes["service.name"] == "the-driver"
    assert exported.instrumentation_scope.name == "autobyteus_like"
    assert (export.spans, export.records) == (1, 1)
    driver.shutdown()


def test_the_driver_s_sampler_goes_to_the_hosts():
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    export = driver_spans(Tracing(provider=TracerProvider(sampler=ALWAYS_OFF)), "t")
    host = SpanCollector("host-0", export.shipping, lambda _: None)
    host.tracing.tracer().start_span("a root the driver would not sample").end()
    assert host.take() == []


def test_a_provider_that_is_not_the_sdk_s_is_refused_naming_the_team():
    with pytest.raises(ConfigError) as error:
        driver_spans(Tracing(provider=trace.NoOpTracerProvider()), "crew")
    assert "team 'crew'" in str(error.value)
    assert "needs the OpenTelemetry SDK's TracerProvider" in str(error.value)
