"""Building an agent with one tool, by Agno's published method, ours beside Agno's in one run.

    python benchmarks/instantiation_benchmark.py          # about 10-20 s
    pip install -e '.[bench]'                             # brings agno (a bench-only dependency)

Agno's method (its ``PerformanceEval``, cookbook ``evals/performance/instantiate_agent_with_tool``):
10 warm-up builds, then 1,000 timed builds (mean and median), then 1,000 builds each measured
alone with ``tracemalloc`` (peak of the build, after ``gc.collect()``, minus the peak of an
empty function), averaged; ``gc.freeze()`` first, so that each ``gc.collect()`` skips the
objects that were there before (with agno imported a full collection takes ~0.3 s; the peaks
are the same). The build is ``Agent(model=OpenAIChat(id="gpt-4o"), tools=[fn])``
with a module-level function; ours is the same agent: an OpenAI model described as data (no
key or SDK needed until it starts) and one ``@tool`` declared at module level. Three builds of
ours are measured: the config and the agent each time (Agno's shape: its model object is
made in every build), the agent from one shared config (a web application's shape: one
config, an agent per request), and the config alone. Without agno installed the script says
so and prints ours alone.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any, Literal

from autobyteus_like import Agent, AgentConfig, tool

ITERATIONS = 1000
WARMUP = 10


@tool
def get_weather(city: Literal["nyc", "sf"]) -> str:
    """Use this to get weather information."""
    return "It might be cloudy in nyc" if city == "nyc" else "It's always sunny in sf"


_LLM = {"provider": "openai", "model": "gpt-4o"}
_SHARED = AgentConfig(name="weather", llm=_LLM, tools=[get_weather])


def ours_config_and_agent() -> Any:
    return Agent(AgentConfig(name="weather", llm=_LLM, tools=[get_weather]))


def ours_shared_config() -> Any:
    return Agent(_SHARED)


def ours_config_alone() -> Any:
    return AgentConfig(name="weather", llm=_LLM, tools=[get_weather])


def _agno() -> Callable[[], Any] | None:
    try:
        from agno.agent import Agent as AgnoAgent
        from agno.models.openai import OpenAIChat
    except ImportError:
        return None

    def agno_get_weather(city: Literal["nyc", "sf"]) -> str:
        """Use this to get weather information."""
        return "It might be cloudy in nyc" if city == "nyc" else "It's always sunny in sf"

    tools = [agno_get_weather]

    def agno_agent() -> Any:
        return AgnoAgent(model=OpenAIChat(id="gpt-4o"), tools=tools)

    return agno_agent


def _baseline() -> float:
    peaks = []
    for _ in range(3):
        gc.collect()
        tracemalloc.start()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        peaks.append(peak)
    return statistics.mean(peaks)


def measure(build: Callable[[], Any]) -> tuple[float, float, float]:
    """Mean and median seconds per build, and mean peak bytes per build (Agno's method)."""
    for _ in range(WARMUP):
        build()
    times = []
    for _ in range(ITERATIONS):
        start = time.perf_counter()
        build()
        times.append(time.perf_counter() - start)
    gc.collect()
    gc.freeze()  # what exists now is not garbage: each gc.collect() below need not walk it
    baseline = _baseline()
    peaks = []
    for _ in range(ITERATIONS):
        gc.collect()
        tracemalloc.start()
        build()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        peaks.append(max(0.0, peak - baseline))
    gc.unfreeze()
    return statistics.mean(times), statistics.median(times), statistics.mean(peaks)


def main() -> None:
    rows: list[tuple[str, Callable[[], Any] | None]] = [("agno: Agent(model, tools)", _agno())]
    rows += [("ours: AgentConfig + Agent", ours_config_and_agent),
             ("ours: Agent(shared config)", ours_shared_config),
             ("ours: AgentConfig alone", ours_config_alone)]
    print(f"{'build':30} {'mean us':>9} {'median us':>10} {'memory KiB':>11}")
    for label, build in rows:
        if build is None:
            print(f"{label:30} agno not installed (pip install -e '.[bench]'): skipped")
            continue
        mean, median, peak = measure(build)
        print(f"{label:30} {mean * 1e6:9.1f} {median * 1e6:10.1f} {peak / 1024:11.2f}")


if __name__ == "__main__":
    main()
