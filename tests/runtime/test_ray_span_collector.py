"""A host's span collector, with a real SDK tracer and no Ray: spans kept wake the host's
stream once (at once before its loop runs, after a linger on it, and not when a reply took
them); a poll's reply carries every span kept as one record, first; a member's stop holds
the spans for its own answer."""

from __future__ import annotations

import asyncio

from opentelemetry.trace import StatusCode

from autobyteus_like.events import AgentEvent
from autobyteus_like.runtime._ray_records import TurnEnded
from autobyteus_like.runtime._ray_span_collector import LINGER_S, SpanCollector
from autobyteus_like.runtime._ray_spans import WAKE, SpansFinished, SpanShipping


def collector() -> tuple[SpanCollector, list[AgentEvent]]:
    stream: list[AgentEvent] = []
    return SpanCollector("host-0", SpanShipping(content=False), stream.append), stream


def test_spans_wake_the_stream_once_and_go_as_one_record_first_in_the_reply():
    spans, stream = collector()
    tracer = spans.tracing.tracer()
    for number in range(5):
        tracer.start_span(f"span {number}").end()
    assert stream == [WAKE]  # one wake-up, however many spans
    ended = TurnEnded(agent="m0", message_id="1", answer="done")
    reply = spans.drain([*stream, ended])
    assert [type(item) for item in reply] == [SpansFinished, TurnEnded]
    assert reply[0].agent == "host-0"
    assert [span.name for span in reply[0].spans] == [f"span {n}" for n in range(5)]
    assert spans.drain([ended]) == [ended]  # nothing kept: no record
    assert (spans.shipped, spans.replies) == (5, 1)
    tracer.start_span("later").end()
    assert stream == [WAKE, WAKE]  # kept again after the drain: woken again


def test_a_stopping_member_s_spans_go_with_its_stop_not_with_a_poll():
    spans, stream = collector()
    spans.hold()
    spans.tracing.tracer().start_span("cut short").end()
    assert spans.drain(list(stream)) == []  # the wake-up is dropped, the span stays
    record = spans.release()
    assert record is not None and [span.name for span in record.spans] == ["cut short"]
    spans.hold()
    assert spans.release() is None  # nothing ended meanwhile: nothing to answer
    spans.tracing.tracer().start_span("after the stop").end()
    assert len(spans.drain([WAKE])[0].spans) == 1  # polls take spans again


def test_content_and_status_are_as_the_driver_said():
    spans, _ = collector()
    assert spans.tracing.content is False
    with_content = SpanCollector("h", SpanShipping(content=True), lambda _: None)
    assert with_content.tracing.content is True
    span = spans.tracing.tracer().start_span("failed")
    span.set_status(StatusCode.ERROR, "boom")
    span.end()
    (kept,) = spans.take()
    assert (kept.status, kept.description) == (StatusCode.ERROR.value, "boom")


def test_on_the_host_s_loop_spans_wait_for_a_reply_and_wake_it_only_after_the_linger():
    """Spans taken by a reply sent anyway make no wake-up; spans no reply took wake the
    stream once, ``LINGER_S`` after the first of them ended."""

    async def run() -> tuple[list[AgentEvent], float]:
        loop = asyncio.get_running_loop()
        woken = loop.create_future()
        stream: list[AgentEvent] = []

        def report(item: AgentEvent) -> None:
            stream.append(item)
            if not woken.done():
                woken.set_result(loop.time())

        spans = SpanCollector("host-0", SpanShipping(content=False), report)
        spans.use_loop(loop)
        tracer = spans.tracing.tracer()
        tracer.start_span("taken by a reply sent anyway").end()
        await asyncio.sleep(0)  # its wake-up is scheduled, not due
        assert len(spans.drain([])[0].spans) == 1
        ended = loop.time()
        tracer.start_span("no reply took it").end()
        tracer.start_span("nor this one").end()
        at = await asyncio.wait_for(woken, timeout=10)  # the first one's came due before
        return stream, at - ended

    stream, waited = asyncio.run(run())
    assert stream == [WAKE]  # one, for the two spans no reply took
    assert waited >= LINGER_S * 0.9
