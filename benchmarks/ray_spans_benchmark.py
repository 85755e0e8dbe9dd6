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
round of each (Ray's first workers start slowly); the ring's time runs from ``team.run`` to
its answer, and every span is exported before the team stops.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence
from typing import Any

import ray
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from autobyteus_like import AgentTeam, Tracing
from autobyteus_like.runtime import RayRuntime
from benchmarks.ray_scale_benchmark import ring_team


class CountingExporter(SpanExporter):
    """Counts the spans it is given, and drops them."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans += len(spans)
        return SpanExportResult.SUCCESS


def ring_ms(size: int, laps: int, members_per_worker: int | str, traced: bool
            ) -> tuple[float, int, int]:
    """ms a hop; with tracing, the spans exported and the poll replies that carried them."""
    provider = exporter = None
    tracing = None
    if traced:
        exporter = CountingExporter()
        provider = TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(exporter))
        tracing = Tracing(provider=provider)
    team = AgentTeam(ring_team(size, laps), tracing=tracing,
                     runtime=RayRuntime(backend="ray", members_per_worker=members_per_worker))
    with team:
        start = time.perf_counter()
        answer = team.run("hop", timeout=600)
        elapsed = time.perf_counter() - start
        shipped: Any = team._backend._spans  # the driver's export, for its counts
    assert answer == "passed", answer
    if provider is None or exporter is None:
        return elapsed / (size * laps) * 1e3, 0, 0
    provider.shutdown()  # flush
    assert exporter.spans == shipped.spans == 4 * size * laps - 2, exporter.spans
    return elapsed / (size * laps) * 1e3, shipped.spans, shipped.records


def compare(name: str, size: int, laps: int, members_per_worker: int | str,
            rounds: int) -> None:
    off: list[float] = []
    on: list[float] = []
    spans = records = 0
    ring_ms(size, laps, members_per_worker, traced=False)  # warm-up, not counted
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
          f"{spans} spans ({spans / hops:.1f} a hop) in {records} poll replies "
          f"({spans / max(records, 1):.1f} spans a reply)")


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
    compare("packed (members_per_worker: auto)", args.size, args.laps, "auto", args.rounds)
    if args.alone_rounds:
        compare("one member per actor", args.size, args.laps, 1, args.alone_rounds)
    ray.shutdown()


if __name__ == "__main__":
    main()
