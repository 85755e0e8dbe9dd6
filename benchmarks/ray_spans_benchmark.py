"""What sending members' spans to the driver costs on Ray: the 50-member ring (4 laps, 200
hops) with and without tracing, in the same run on a local Ray cluster.

    pip install 'autobyteus-like[ray,otel]'
    python -m benchmarks.ray_spans_benchmark                  # packed x5 rounds, alone x1
    python -m benchmarks.ray_spans_benchmark --rounds 5 --alone-rounds 0

Each hop is a whole member turn on a scripted LLM (four spans: the turn, two LLM requests,
the ``send_message_to`` call). "Tracing" is the driver's own ``TracerProvider`` with a
``BatchSpanProcessor`` to an exporter that counts what it is given (a collector's cost is not
ours): the hosts trace their members, keep the finished spans and send them in the poll
replies the driver already takes, and the driver rebuilds and exports them. Rounds alternate
off and on, each a freshly started team (tracing is decided at start), after one untimed
round of each (Ray's first workers start slowly; not for one member per actor, whose
every start is 50 fresh processes); the ring's time runs from ``team.run`` to
its answer, and every span is exported before the team stops.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import time
from collections.abc import Sequence
from typing import Any

import ray
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from autobyteus_like import AgentTeam, Tracing
from autobyteus_like.runtime import LocalRuntime, RayRuntime
from benchmarks.ray_scale_benchmark import ring_team


class CountingExporter(SpanExporter):
    """Counts the spans it is given, and drops them."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans += len(spans)
        return SpanExportResult.SUCCESS


def ring_ms(size: int, laps: int, members_per_worker: int | str | None, traced: bool
            ) -> tuple[float, int, int]:
    """ms a hop; with tracing, the spans exported and the poll replies that carried them."""
    provider = exporter = None
    tracing = None
    if traced:
        exporter = CountingExporter()
        provider = TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(exporter))
        tracing = Tracing(provider=provider)
    runtime = (LocalRuntime() if members_per_worker is None else
               RayRuntime(backend="ray", members_per_worker=members_per_worker,
                          start_timeout_s=1800))  # 50 processes on a loaded machine: slow
    team = AgentTeam(ring_team(size, laps), tracing=tracing, runtime=runtime)
    with team:
        start = time.perf_counter()
        answer = team.run("hop", timeout=600)
        elapsed = time.perf_counter() - start
        shipped: Any = getattr(team._backend, "_spans", None)  # Ray: the driver's export
    assert answer == "passed", answer
    if provider is None or exporter is None:
        return elapsed / (size * laps) * 1e3, 0, 0
    provider.shutdown()  # flush
    assert exporter.spans == 4 * size * laps - 2, exporter.spans
    if shipped is None:
        return elapsed / (size * laps) * 1e3, exporter.spans, 0
    assert shipped.spans == exporter.spans, shipped.spans
    return elapsed / (size * laps) * 1e3, shipped.spans, shipped.records


def compare(name: str, size: int, laps: int, members_per_worker: int | str | None,
            rounds: int, *, warm_up: bool = True) -> None:
    off: list[float] = []
    on: list[float] = []
    spans = records = 0
    if warm_up:  # not counted
        ring_ms(size, laps, members_per_worker, traced=False)
        ring_ms(size, laps, members_per_worker, traced=True)
    for _ in range(rounds):
        off.append(ring_ms(size, laps, members_per_worker, traced=False)[0])
        ms, spans, records = ring_ms(size, laps, members_per_worker, traced=True)
        on.append(ms)
    hops = size * laps
    print(f"{name}: {rounds} round(s), ms a hop (median; each round)")
    print(f"  tracing off  {statistics.median(off):6.2f}  "
          + " ".join(f"{ms:.2f}" for ms in off))
    print(f"  tracing on   {statistics.median(on):6.2f}  " + " ".join(f"{ms:.2f}" for ms in on))
    ratios = sorted(b / a for a, b in zip(off, on, strict=True))
    print(f"  on / off     {statistics.median(on) / statistics.median(off):.2f}x of the medians, "
          f"{statistics.median(ratios):.2f}x the median round; "
          f"+{statistics.median(on) - statistics.median(off):.2f} ms a hop; "
          f"{spans} spans ({spans / hops:.1f} a hop)"
          + (f" in {records} poll replies ({spans / records:.1f} spans a reply)"
             if records else ""))


def shipping_cost(count: int = 4000) -> None:
    """The CPU of sending spans, without Ray and without the ring's noise: a span made into
    a host's collector against one made into a provider that drops it, then the records
    pickled and unpickled (what Ray does with a poll reply) and exported on the driver."""
    from opentelemetry.sdk.trace import SpanProcessor

    from autobyteus_like.runtime._ray_span_collector import SpanCollector
    from autobyteus_like.runtime._ray_span_export import driver_spans

    attributes = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                  "gen_ai.request.model": "gpt-4o-mini", "gen_ai.agent.name": "m17",
                  "gen_ai.usage.input_tokens": 1200, "gen_ai.usage.output_tokens": 80,
                  "gen_ai.response.finish_reasons": ("stop",)}
    plain = TracerProvider()
    plain.add_span_processor(SpanProcessor())  # the SDK's own base: does nothing
    exporter = CountingExporter()
    driver = TracerProvider()
    driver.add_span_processor(BatchSpanProcessor(exporter))
    export = driver_spans(Tracing(provider=driver), "bench")
    host = SpanCollector("host-0", export.shipping, lambda _: None)

    def make(provider: Any) -> float:
        tracer = provider.get_tracer("autobyteus_like")
        start = time.perf_counter()
        for _ in range(count):
            tracer.start_span("chat gpt-4o-mini", attributes=attributes).end()
        return (time.perf_counter() - start) / count * 1e6

    made_plain = min(make(plain) for _ in range(3))
    made_kept = min(make(host.tracing.provider) for _ in range(3))
    reply = host.drain([])  # one poll reply of every span kept
    payload = pickle.dumps(reply, protocol=5)
    start = time.perf_counter()
    for record in pickle.loads(payload):
        export.export(record)
    exported = (time.perf_counter() - start) / (3 * count) * 1e6
    driver.shutdown()
    print(f"shipping, per span ({3 * count} spans, no Ray): made into a provider that drops "
          f"it {made_plain:.1f} us, into a host's collector {made_kept:.1f} us "
          f"(+{made_kept - made_plain:.1f} us); {len(payload) / (3 * count):.0f} bytes "
          f"pickled; unpickled and exported on the driver {exported:.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=50)
    parser.add_argument("--laps", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5, help="packed (auto), off and on")
    parser.add_argument("--alone-rounds", type=int, default=1, help="one member per actor")
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)
    print(f"{args.size}-member ring, {args.size * args.laps} hops, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    shipping_cost()
    if args.rounds:
        compare("local backend", args.size, args.laps, None, args.rounds)
        compare("packed (members_per_worker: auto)", args.size, args.laps, "auto", args.rounds)
    if args.alone_rounds:  # every start is 50 fresh processes: no warm-up round
        compare("one member per actor", args.size, args.laps, 1, args.alone_rounds,
                warm_up=False)
    ray.shutdown()


if __name__ == "__main__":
    main()
