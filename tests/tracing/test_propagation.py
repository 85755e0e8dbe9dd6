"""The W3C trace context a message carries to another process: the same trace, span and
flags come out (as a remote parent), tracestate included; nothing, or headers that do not
parse, give no parent."""

from __future__ import annotations

from opentelemetry.trace import SpanContext, TraceFlags
from opentelemetry.trace.span import TraceState

from autobyteus_like.tracing._propagation import carrier_of, parent_from


def test_a_span_context_crosses_as_w3c_headers_and_comes_back_remote():
    sent = SpanContext(0x0AF7651916CD43DD8448EB211C80319C, 0xB7AD6B7169203331, is_remote=False,
                       trace_flags=TraceFlags(1), trace_state=TraceState([("vendor", "x1")]))
    carrier = carrier_of(sent)
    assert carrier == {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                       "tracestate": "vendor=x1"}
    back = parent_from(carrier)
    assert (back.trace_id, back.span_id, back.trace_flags) == (sent.trace_id, sent.span_id, 1)
    assert back.trace_state == sent.trace_state and back.is_remote


def test_no_parent_and_bad_headers_give_no_parent():
    assert carrier_of(None) is None
    assert parent_from(None) is None and parent_from({}) is None
    assert parent_from({"traceparent": "00-not-a-trace-01"}) is None
    assert parent_from({"traceparent": "00-" + "0" * 32 + "-b7ad6b7169203331-01"}) is None
