"""Many concurrent conversations in one process (issue 40, goal 2: what it costs today).

    python benchmarks/conversations_benchmark.py                 # 1,000 conversations, both ways
    python benchmarks/conversations_benchmark.py --n 100 --mode team

N conversations each do 5 tool round trips (6 model requests: 5 that call a tool, one that
answers) against a scripted model that waits ``--latency`` (50 ms) per request, as a real
model's latency would, on the LLM worker's thread (a synchronous stream, as the providers'
SDKs give today). Two ways:

- ``agents``: one ``Agent`` per conversation, all sent their message at once (``send``: no
  caller thread), each answer read from its own future;
- ``team``: one team of one member holding N conversations (``team.arun(..., conversation=ID)``
  for every conversation at once, in one asyncio loop).

Each answer must be the one to its own conversation's message (the model's final answer names
the message it was given and the 5 results it saw). Reported: the wall time against the ideal
(the latency floor of one conversation, 6 x latency, plus N x 5 times the work of one tool
round trip of one agent alone, measured first in the same run), threads at the peak and where
they go (by thread name), RSS (the peak, and the growth over the run), and the framework's
overhead per round trip (a conversation's time less its model waits, over its requests) at the
median and the 99th percentile.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import re
import resource
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autobyteus_like import Agent, AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.llm import LLMRequest

ROUND_TRIPS = 5
REQUESTS = ROUND_TRIPS + 1


@tool
def step(n: int) -> str:
    """One step of the work."""
    return f"step {n} done"


QUESTION = re.compile(r"^(message \d+|m\d+|warm up)$")
DONE = re.compile(r"step (\d+) done")


def model(latency: float) -> Callable[[LLMRequest], str]:
    """The scripted model: it waits ``latency`` seconds, then calls ``step`` until it saw
    ``ROUND_TRIPS`` results since its conversation's last message, then answers naming that
    message."""

    def reply(request: LLMRequest) -> str:
        if latency:
            time.sleep(latency)
        asked = next(m.content for m in reversed(request.messages)
                     if m.role == "user" and QUESTION.match(m.content))
        seen = DONE.findall(request.messages[-1].content)
        done = int(seen[-1]) if seen else 0
        if done < ROUND_TRIPS:
            return json.dumps({"name": "step", "arguments": {"n": done + 1}})
        return f"finished {asked} after {done} steps"

    return reply


def config(name: str, llm: ScriptedLLM) -> AgentConfig:
    return AgentConfig(name=name, llm=llm, tools=[step], tool_format="json")


def expected(message: str) -> str:
    return f"finished {message} after {ROUND_TRIPS} steps"


@dataclass
class Sampler:
    """Threads at the peak (and by name then), sampled every 5 ms on a thread of its own."""

    peak: int = 0
    by_name: dict[str, int] | None = None

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sampler", daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.005):
            count = threading.active_count()
            if count > self.peak:
                self.peak = count
                self.by_name = dict(collections.Counter(
                    _kind(t.name) for t in threading.enumerate()))


def _kind(thread: str) -> str:
    """A thread's kind, from its name: an agent's LLM worker or tool thread, an actor, ..."""
    name = re.sub(r"[-_ ]?\d+(_\d+)?$", "", re.sub(r" \(.*\)$", "", thread))
    return re.sub(r"^.*-(llm|tool)$", r"agent \1 thread", name) or "?"


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def one_round_trip_work(turns: int = 20, batches: int = 5) -> float:
    """Seconds of one tool round trip of one agent alone (no model latency): the best of
    ``batches`` means over ``turns`` conversations run one after another (the best, since
    a shared machine only ever adds to it)."""
    llm = ScriptedLLM([model(0.0)] * (REQUESTS * (turns * batches + 1)))
    best = float("inf")
    with Agent(config("solo", llm)) as agent:
        agent.run("warm up", timeout=60)
        for batch in range(batches):
            start = time.perf_counter()
            for index in range(turns):
                assert agent.run(f"m{batch * turns + index}", timeout=60).startswith("finished")
            best = min(best, (time.perf_counter() - start) / (turns * ROUND_TRIPS))
    return best


def run_agents(n: int, latency: float) -> tuple[list[str], list[float], float]:
    """N agents, each sent its message at once: the answers (in order), each conversation's
    seconds, and the wall time."""
    agents = [Agent(config(f"a{i}", ScriptedLLM([model(latency)] * REQUESTS)))
              for i in range(n)]
    for agent in agents:
        agent.start()
    try:
        durations = [0.0] * n
        start = time.perf_counter()
        futures = []

        def timed(index: int) -> Callable[[object], None]:
            def done(_: object) -> None:
                durations[index] = time.perf_counter() - start
            return done

        for index, agent in enumerate(agents):
            future = agent.send(f"message {index}")
            future.add_done_callback(timed(index))
            futures.append(future)
        answers = [future.result(timeout=600) for future in futures]
        wall = time.perf_counter() - start
    finally:
        for agent in agents:
            agent.stop()
    return answers, durations, wall


def run_team(n: int, latency: float) -> tuple[list[str], list[float], float]:
    """One team holding N conversations, every conversation's ``arun`` at once."""
    llm = ScriptedLLM([model(latency)] * (REQUESTS * n))
    team = AgentTeam(TeamConfig(name="served", coordinator="lead",
                                members=[config("lead", llm)]), tools=[step])

    async def everyone() -> tuple[list[str], list[float], float]:
        durations = [0.0] * n
        start = time.perf_counter()

        async def one(index: int) -> str:
            answer = await team.arun(f"message {index}", timeout=600,
                                     conversation=f"c{index}")
            durations[index] = time.perf_counter() - start
            return str(answer)

        answers = await asyncio.gather(*(one(index) for index in range(n)))
        return list(answers), durations, time.perf_counter() - start

    with team:
        return asyncio.run(everyone())


def measure(mode: str, n: int, latency: float, work: float | None = None) -> dict[str, Any]:
    """One run of ``mode`` with ``n`` conversations: its figures (raises if any caller got
    an answer not its own)."""
    work = one_round_trip_work() if work is None else work
    rss_before = _rss_mib()
    with Sampler() as sampler:
        answers, durations, wall = (run_agents if mode == "agents" else run_team)(n, latency)
    wrong = [(index, answer) for index, answer in enumerate(answers)
             if answer != expected(f"message {index}")]
    assert not wrong, f"{len(wrong)} callers got an answer not their own: {wrong[:3]}"
    overheads = sorted((d - REQUESTS * latency) / REQUESTS for d in durations)
    ideal = REQUESTS * latency + n * ROUND_TRIPS * work
    return {
        "mode": mode, "conversations": n, "wall_s": wall, "ideal_s": ideal,
        "ratio": wall / ideal, "round_trip_work_us": work * 1e6,
        "threads_peak": sampler.peak, "threads_by_name": sampler.by_name or {},
        "rss_peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_growth_mib": _rss_mib() - rss_before,
        "overhead_p50_ms": statistics.median(overheads) * 1e3,
        "overhead_p99_ms": overheads[min(len(overheads) - 1, int(len(overheads) * 0.99))] * 1e3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--mode", choices=["agents", "team", "both"], default="both")
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    work = one_round_trip_work()
    for mode in (["agents", "team"] if args.mode == "both" else [args.mode]):
        figures = measure(mode, args.n, args.latency, work)
        top = sorted(figures.pop("threads_by_name").items(), key=lambda kv: -kv[1])[:6]
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v
                          for k, v in figures.items()}))
        print("  threads at the peak by name:", ", ".join(f"{k} {v}" for k, v in top))


if __name__ == "__main__":
    main()
