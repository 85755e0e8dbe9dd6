"""What tracing costs on the hot path.

    python benchmarks/tracing_benchmark.py            # about two minutes
    python benchmarks/tracing_benchmark.py --quick

1. A tool round trip (ScriptedLLM -> one tool call -> result -> answer) with tracing off (the
   OpenTelemetry API installed, no SDK configured; usage metering on, as always) against the
   same round trip in a checkout without any of the tracing and usage code (``--baseline``:
   a tree, or by default a temporary ``git worktree`` of ``BASELINE_REF``), in alternating
   rounds of fresh interpreters, as ``hot_path_benchmark.py`` does. Goal: under 2%.
2. The same round trip with the SDK on (a ``BatchSpanProcessor`` and an exporter that drops
   what it gets, so the figure is the cost of making and queueing spans), against tracing off:
   the difference divided by the spans of a round trip is the cost per span.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
BASELINE_REF = "642e0af"
"""The last commit before tracing and usage (issue 14)."""
SPANS_PER_ROUND_TRIP = 4
"""invoke_agent, chat (the call), execute_tool, chat (the answer)."""

CHILD = """
import statistics, sys
sys.path.insert(0, {tree!r})
import autobyteus_like
assert autobyteus_like.__file__.startswith({tree!r}), autobyteus_like.__file__
if {sdk!r}:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Drop(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Drop()))
    trace.set_tracer_provider(provider)
from benchmarks import runtime_benchmark
runtime_benchmark.TURNS = {turns}
print(statistics.mean(runtime_benchmark.round_trips(grow=False)))
if {sdk!r}:
    provider.shutdown()
"""


def child(tree: Path, sdk: bool, turns: int) -> float:
    code = CHILD.format(tree=str(tree), sdk=sdk, turns=turns)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=tree)
    return float(done.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def baseline_tree(given: str | None) -> Iterator[Path]:
    if given:
        yield Path(given).resolve()
        return
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), BASELINE_REF],
                       cwd=HERE, check=True, capture_output=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=HERE,
                           check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns and rounds")
    parser.add_argument("--baseline", help="a checkout without tracing (default: a temporary "
                                           f"worktree of {BASELINE_REF})")
    args = parser.parse_args()
    rounds, turns = (3, 300) if args.quick else (9, 1000)
    with baseline_tree(args.baseline) as baseline:
        base, off, sdk = [], [], []
        for _ in range(rounds):
            base.append(child(baseline, False, turns))
            off.append(child(HERE, False, turns))
            sdk.append(child(HERE, True, turns))
    ratios = [o / b for o, b in zip(off, base, strict=True)]
    per_span = [(s - o) / SPANS_PER_ROUND_TRIP for s, o in zip(sdk, off, strict=True)]
    print("## Tracing: tool round trip\n")
    print("| figure | value |\n| --- | --- |")
    print(f"| no tracing code ({BASELINE_REF}) | {statistics.median(base) * 1e6:.0f} us |")
    print(f"| tracing off (API only, no SDK) | {statistics.median(off) * 1e6:.0f} us |")
    print(f"| off / no tracing code (median of {rounds} rounds) | "
          f"{(statistics.median(ratios) - 1) * 100:+.1f}% (goal < 2%) |")
    print(f"| SDK on, batch exporter | {statistics.median(sdk) * 1e6:.0f} us |")
    print(f"| cost per span (SDK on - off) / {SPANS_PER_ROUND_TRIP} | "
          f"{statistics.median(per_span) * 1e6:.1f} us |")


if __name__ == "__main__":
    main()
