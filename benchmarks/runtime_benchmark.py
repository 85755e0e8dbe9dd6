"""Agent runtime cost, next to a hand-written pykka floor measured in the same process.

    python benchmarks/runtime_benchmark.py              # all measurements (about 30 s)
    taskset -c 0 python benchmarks/runtime_benchmark.py # the same on one core

A round trip is one user turn: scripted LLM -> one no-op tool call -> result -> next LLM call ->
final answer. The floor is three bare pykka actors (agent, LLM, tool) doing the 4 asks such a
turn needs, with no parsing, validation or rendering. Memory and import time are measured in
fresh subprocesses so that nothing else is loaded.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

import pykka

TURNS = 200
CALL = json.dumps({"name": "noop", "arguments": {}})


def round_trips(grow: bool) -> list[float]:
    """Seconds per turn for ``TURNS`` turns of one agent. A fresh conversation is started
    every 20 turns (outside the timing) unless ``grow``, when the history grows throughout."""
    from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool

    @tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    llm = ScriptedLLM([CALL, "done"] * (2 * TURNS + 10))
    times: list[float] = []
    with Agent(AgentConfig(name="bench", llm=llm, tools=[noop], tool_format="json")) as agent:
        for _ in range(5):  # warm up: threads, caches
            agent.run("warm up", timeout=10)
        agent.reset()
        for index in range(TURNS):
            if not grow and index % 20 == 0:
                agent.reset()
                agent.run("start", timeout=10)  # the reset is applied here, untimed
            start = time.perf_counter()
            agent.run("go", timeout=10)
            times.append(time.perf_counter() - start)
    if grow:
        assert len(llm.requests[-1].messages) == 4 * TURNS - 1, "history did not grow"
    return times


class _Echo(pykka.ThreadingActor):
    def on_receive(self, message: Any) -> Any:
        return message


class _QuietEcho(_Echo):
    """An echo actor whose thread runs the agent's own thread policy (``SCHED_BATCH``)."""

    def on_start(self) -> None:
        from autobyteus_like.agent._quiet_wakeup import wake_quietly

        wake_quietly()


def floor_round_trips(quiet: bool = False) -> list[float]:
    """Seconds per turn for 3 bare pykka actors doing 4 asks per turn; with ``quiet`` the
    actors' threads take the policy an agent's threads take, to show what that alone buys."""
    kind = _QuietEcho if quiet else _Echo
    agent, llm, tool = kind.start(), kind.start(), kind.start()
    times: list[float] = []
    try:
        for index in range(TURNS + 5):
            start = time.perf_counter()
            agent.ask("user message")
            llm.ask("request 1")
            tool.ask("noop")
            llm.ask("request 2")
            if index >= 5:
                times.append(time.perf_counter() - start)
    finally:
        for ref in (agent, llm, tool):
            ref.stop()
    return times


CHILD_RSS = """
import resource
from benchmarks.runtime_benchmark import round_trips
round_trips(grow=True)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

CHILD_IDLE = """
import resource, time
from autobyteus_like import Agent, AgentConfig, ScriptedLLM
agents = [Agent(AgentConfig(name=f"a{i}", llm=ScriptedLLM([]))) for i in range(1000)]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for agent in agents:
    agent.start()
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for agent in agents:
    agent.stop()
print(before, after)
"""

CHILD_IMPORT = """
import time
start = time.perf_counter()
from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
@tool
def noop() -> str:
    "Do nothing."
    return "ok"
agent = Agent(AgentConfig(name="a", llm=ScriptedLLM(["hi"]), tools=[noop])).start()
ready = time.perf_counter()
agent.run("hello", timeout=10)
agent.stop()
print(ready - start)
"""


CHILD_DEPS = """
import time
start = time.perf_counter()
import loguru, lxml.etree, pykka
from pydantic import BaseModel
class Model(BaseModel):
    value: int
Model(value=1)
print(time.perf_counter() - start)
"""
"""The dependencies' own import (and pydantic's first model), the floor for import time."""


def child(code: str) -> str:
    """Run ``code`` in a fresh interpreter from the project root; return its output."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


ROUNDS = 5


def main() -> None:
    """Measure and print the figures.

    The machine's thread wake-up latency drifts, so floor and agent are measured in
    alternating rounds and each round gives its own ratio; the medians are reported.
    """
    rows = []
    for _ in range(ROUNDS):
        floor = statistics.mean(floor_round_trips())
        fresh = statistics.mean(round_trips(grow=False))
        grown_turns = round_trips(grow=True)
        grown = statistics.mean(grown_turns)
        rows.append((floor, fresh, grown, statistics.mean(grown_turns[150:200]) / grown))
    floor_us = statistics.median(r[0] for r in rows) * 1e6
    fresh_us = statistics.median(r[1] for r in rows) * 1e6
    grown_us = statistics.median(r[2] for r in rows) * 1e6
    print(f"pykka floor (3 actors, 4 asks):  {floor_us:7.1f} us per turn (median of {ROUNDS})")
    print(f"round trip, fresh conversation:  {fresh_us:7.1f} us per turn "
          f"({statistics.median(r[1] / r[0] for r in rows):.2f}x floor)")
    print(f"round trip, growing chat:        {grown_us:7.1f} us per turn "
          f"({statistics.median(r[2] / r[0] for r in rows):.2f}x floor; 800 messages at the end)")
    print(f"turns 151-200 / all 200:         {statistics.median(r[3] for r in rows):.2f}x")
    print("per round (floor, fresh, growing us): "
          + "; ".join(f"{r[0] * 1e6:.0f}, {r[1] * 1e6:.0f}, {r[2] * 1e6:.0f}" for r in rows))
    rss_kib = int(child(CHILD_RSS))
    print(f"peak RSS, one-agent process:     {rss_kib / 1024:7.1f} MiB")
    before, after = (int(x) for x in child(CHILD_IDLE).split())
    print(f"memory per idle agent (1000):    {(after - before) / 1000:7.1f} KiB")
    pairs = [(float(child(CHILD_DEPS)), float(child(CHILD_IMPORT))) for _ in range(7)]
    deps = statistics.median(d for d, _ in pairs)
    ready = statistics.median(r for _, r in pairs)
    print(f"dependencies' import:            {deps * 1e3:7.1f} ms (pykka, pydantic, loguru, lxml)")
    print(f"import to agent-ready:           {ready * 1e3:7.1f} ms "
          f"({statistics.median(r / d for d, r in pairs):.2f}x the dependencies; median of 7)")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(this benchmark process peaked at {own:.1f} MiB)")


if __name__ == "__main__":
    main()
