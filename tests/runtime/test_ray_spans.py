"""Spans of members on Ray, on a real local cluster, read back from an in-memory exporter on
the driver: the same tree, names and attributes as the local runtime makes for the same team,
one trace under the caller's span whether a message crosses hosts or stays in one; spans sent
to the driver in batches; nothing made or sent when the team does not trace; a host killed
mid-turn loses only the spans it had not finished, and nothing hangs."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest
import ray
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from autobyteus_like import AgentTeam, TeamConfig
from autobyteus_like.errors import ConfigError
from autobyteus_like.events import ApprovalRequested, ToolStarted
from autobyteus_like.runtime import LocalRuntime, RayRuntime
from autobyteus_like.tracing import Tracing
from tests.runtime.scripted_teams import call, member, ray_runtime
from tests.runtime.test_ray_faults import block
from tests.runtime.test_ray_host import ring
from tests.stress_rounds import in_the_deep_run
from tests.tracing.test_spans import lookup, team_config, tree


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    yield InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> Iterator[TracerProvider]:
    """The driver's provider: a service name of its own, spans to memory."""
    provider = TracerProvider(resource=Resource.create({"service.name": "the-driver"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider
    provider.shutdown()


def run_under_a_span(provider: TracerProvider, exporter: InMemorySpanExporter,
                     runtime: Any) -> list[ReadableSpan]:
    """The tracing test's team, run inside a span of the caller's."""
    exporter.clear()
    team = AgentTeam(team_config(), tools=[lookup], tracing=Tracing(provider=provider),
                     runtime=runtime)
    with team, provider.get_tracer("the-user").start_as_current_span("the user's run"):
        assert team.run("go", timeout=60) == "coder finished"
    return list(exporter.get_finished_spans())


def shape(spans: list[ReadableSpan]) -> list[tuple[str, str, tuple[str, ...], str]]:
    """Each span's name, scope, attribute names and status, in a stable order."""
    return sorted((span.name, span.instrumentation_scope.name if span.instrumentation_scope
                   else "", tuple(sorted(span.attributes or {})), span.status.status_code.name)
                  for span in spans)


@pytest.mark.parametrize("kind", ["ray", pytest.param("ray-packed", marks=in_the_deep_run(
    "the [ray] case (a host of one or of two: the same sending of spans)"))])
def test_a_ray_team_run_is_one_trace_under_the_caller_s_span_as_locally(ray_cluster, provider,
                                                                         exporter, kind):
    """``ray``: lead and coder in hosts of their own (every message crosses hosts);
    ``ray-packed``: both in one host (messages stay in its process)."""
    local = run_under_a_span(provider, exporter, LocalRuntime())
    spans = run_under_a_span(provider, exporter, ray_runtime(kind))
    assert tree(spans) == tree(local)
    assert tree(spans)[0][0] == "the user's run" and len(tree(spans)) == 1
    assert len({span.context.trace_id for span in spans}) == 1
    assert shape(spans) == shape(local)
    by_id = {span.context.span_id: span for span in spans}
    for span in spans:  # every parent is exported, in the same trace
        assert span.parent is None or span.parent.span_id in by_id
        assert span.resource.attributes["service.name"] == "the-driver"
        assert span.end_time is not None and span.start_time is not None
        assert span.start_time <= span.end_time
    coder_turn = next(s for s in spans if s.name == "invoke_agent coder")
    parent = by_id[coder_turn.parent.span_id]  # the lead's call, in the lead's process
    assert parent.name == "execute_tool send_message_to"
    assert parent.attributes["gen_ai.agent.name"] == "lead"
    assert coder_turn.parent.is_remote is (kind == "ray")  # crossed a process, or not
    lookup_span = next(s for s in spans if s.name == "execute_tool lookup")
    assert by_id[lookup_span.parent.span_id] is coder_turn
    assert lookup_span.start_time >= coder_turn.start_time
    assert lookup_span.end_time <= coder_turn.end_time


@in_the_deep_run("failures and content on spans: tests/tracing/test_spans.py locally; spans "
                 "crossing from the hosts: the one-trace case")
def test_a_failed_call_s_status_and_the_content_switch_reach_the_driver(ray_cluster, exporter):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    worker = member("worker", [call("lookup", query="fail", api_key="sk-secret-0123456789"),
                               "nothing"], tools=["lookup"])
    config = TeamConfig(name="t", coordinator="worker", members=[worker])
    tracing = Tracing(provider=provider, capture_content=True)
    with AgentTeam(config, tools=[lookup], tracing=tracing,
                   runtime=RayRuntime(backend="ray")) as team:
        assert team.run("look", timeout=60) == "nothing"
    provider.shutdown()
    (failed,) = [s for s in exporter.get_finished_spans() if s.name == "execute_tool lookup"]
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.status.description == "nothing found"
    assert failed.attributes["error.type"] == "NOT_FOUND"
    assert "sk-secret" not in failed.attributes["gen_ai.tool.call.arguments"]  # redacted there
    (turn,) = [s for s in exporter.get_finished_spans() if s.name == "invoke_agent worker"]
    assert "look" in turn.attributes["gen_ai.input.messages"]


@in_the_deep_run("spans sent across the process boundary into one trace: "
                 "test_a_ray_team_run_is_one_trace_under_the_caller_s_span_as_locally")
def test_many_members_send_their_spans_in_batches_in_one_trace(ray_cluster, provider,
                                                                exporter):
    """A ring of 20 members, ten to a host: every span arrives, in one trace, and the hosts'
    polls carried them in fewer replies than spans."""
    config = TeamConfig(name="t", coordinator="m0", members=ring(20))
    runtime = RayRuntime(backend="ray", members_per_worker=10)
    with AgentTeam(config, tracing=Tracing(provider=provider), runtime=runtime) as team:
        assert team.run("go", timeout=60) == "passed"
        shipped = [ray.get(team.agents[m].handle.spans_shipped.remote()) for m in ("m0", "m10")]
    spans = exporter.get_finished_spans()
    # 20 turns, 39 LLM requests (one each, and an answer after each hop), 19 hops
    assert len([s for s in spans if s.name.startswith("invoke_agent")]) == 20
    assert len([s for s in spans if s.name.startswith("chat")]) == 39
    assert len([s for s in spans if s.name == "execute_tool send_message_to"]) == 19
    assert len({span.context.trace_id for span in spans}) == 1
    assert sum(count for count, _ in shipped) == len(spans) == 78
    assert all(replies < count for count, replies in shipped)  # batched, not one per span
    depth, span = 0, next(s for s in spans if s.name == "invoke_agent m19")
    by_id = {s.context.span_id: s for s in spans}
    while span.parent is not None:
        depth, span = depth + 1, by_id[span.parent.span_id]
    assert (span.name, depth) == ("invoke_agent m0", 38)  # the whole ring, one chain


@in_the_deep_run("nothing of tracing without an SDK: tests/tracing/test_spans.py locally "
                 "(hosts left without a collector: checked here only, a saving, not a result)")
def test_a_team_that_does_not_trace_makes_and_sends_no_span_on_ray(ray_cluster, exporter):
    """No provider and no SDK configured globally: the hosts build no collector."""
    config = TeamConfig(name="t", coordinator="m0", members=ring(3))
    with AgentTeam(config, runtime=RayRuntime(backend="ray", members_per_worker=2)) as team:
        assert team.run("go", timeout=60) == "passed"
        assert [ray.get(team.agents[m].handle.spans_shipped.remote())
                for m in ("m0", "m2")] == [None, None]


def test_a_killed_host_keeps_the_spans_it_had_sent_and_nothing_hangs(ray_cluster, provider,
                                                                      exporter):
    """The worker's first LLM request ended (its span sent) before its tool blocks; kill -9
    of its host: that span is on the driver, in the caller's trace, under the turn's span
    that never ended; the driver's reply fails and the team stops."""
    worker = member("worker", [call("block"), "never"], tools=["block"])
    config = TeamConfig(name="t", coordinator="worker", members=[worker])
    with AgentTeam(config, tools=[block], tracing=Tracing(provider=provider),
                   runtime=RayRuntime(backend="ray", max_restarts=0)) as team:
        events = team.events()
        with provider.get_tracer("the-user").start_as_current_span("the user's run") as mine:
            reply = team.agents["worker"].send("work")
        while not isinstance(events.get(timeout=60), ToolStarted):
            pass
        sent = exporter.get_finished_spans()  # in the stream before the tool's start
        os.kill(ray.get(team.agents["worker"].handle.pid.remote()), signal.SIGKILL)
        with pytest.raises(Exception, match="its worker process died mid-turn"):
            reply.result(timeout=60)
        events.close()
    (chat,) = [s for s in sent if s.name.startswith("chat")]
    assert chat.context.trace_id == mine.get_span_context().trace_id
    names = {s.name for s in exporter.get_finished_spans()}
    assert "invoke_agent worker" not in names and "execute_tool block" not in names


@pytest.mark.parametrize("kind", ["ray"])  # a host of one or of two: the same stop
@in_the_deep_run("spans a host had sent surviving its end: the killed host's case; a stop "
                 "ending open spans: tests/tracing/test_spans.py locally")
def test_a_member_stopped_mid_turn_sends_the_spans_its_stop_ended(ray_cluster, provider,
                                                                   exporter, kind):
    """As locally (test_spans.py): a stop ends the open spans, marked as cut short; on Ray
    they come back with the stop's answer (the host ends right after, before any poll)."""
    waiting = member("waiting", [call("lookup", query="x", api_key="k")], tools=["lookup"],
                     auto_execute_tools=False)
    config = TeamConfig(name="t", coordinator="waiting", members=[waiting, member("idle", [])])
    with AgentTeam(config, tools=[lookup], tracing=Tracing(provider=provider),
                   runtime=ray_runtime(kind)) as team:
        events = team.events()
        team.send("go")
        while not isinstance(events.get(timeout=60), ApprovalRequested):
            pass
        events.close()
    spans = exporter.get_finished_spans()
    assert tree(spans) == [("invoke_agent waiting", [("chat scripted", []),
                                                     ("execute_tool lookup", [])])]
    statuses = {span.name: span.status for span in spans}
    assert statuses["execute_tool lookup"].status_code is StatusCode.ERROR
    assert statuses["invoke_agent waiting"].description == "the agent stopped"


def test_a_driver_provider_that_is_not_the_sdk_s_is_a_config_error_before_any_host(
        ray_cluster):
    from ray.util.state import list_actors

    config = TeamConfig(name="crew", coordinator="m0", members=ring(2))
    team = AgentTeam(config, tracing=Tracing(provider=trace.NoOpTracerProvider()),
                     runtime=RayRuntime(backend="ray"))
    with pytest.raises(ConfigError, match=r"team 'crew'.*OpenTelemetry SDK's TracerProvider"):
        team.__enter__()
    assert not [a for a in list_actors() if a.name.startswith("crew-") and a.state == "ALIVE"]


def test_a_host_without_the_sdk_says_which_extra_tracing_needs(monkeypatch):
    """A host whose node lacks the SDK fails its start with one line (the driver names the
    member it was starting, as for any host that cannot start: ray_link.py)."""
    import sys

    from autobyteus_like.errors import MissingExtraError
    from autobyteus_like.runtime._ray_host import _collector
    from autobyteus_like.runtime._ray_spans import SpanShipping

    monkeypatch.setitem(sys.modules, "opentelemetry.sdk", None)
    with pytest.raises(MissingExtraError, match=r"autobyteus-like\[otel\]"):
        _collector("host-0", SpanShipping(content=False), lambda _: None)
    assert _collector("host-0", None, lambda _: None) is None  # not tracing: nothing needed
