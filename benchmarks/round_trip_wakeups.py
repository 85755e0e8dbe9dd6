"""Thread wake-ups per tool round trip, per thread, against the bare pykka pipeline's.

    taskset -c 0 python benchmarks/round_trip_wakeups.py   # one core: the figure to compare
    python benchmarks/round_trip_wakeups.py --turns 500

Counts each thread's voluntary context switches (``/proc/self/task/<tid>/status``, Linux only)
over the turns of ``runtime_benchmark.round_trips`` (ScriptedLLM -> one no-op tool call -> its
result -> the final answer) and of the floor (three bare pykka actors, the 4 asks such a turn
needs). A voluntary switch is a thread going to sleep: on its mailbox, on a future, or waiting
for the interpreter lock another thread holds; each one is a thread hand-off the turn pays for.
Unlike wall time these counts hardly depend on the machine's load, so they can be compared
between two versions of the code on a busy machine. Each thread's time on a CPU per turn
(``/proc/self/task/<tid>/schedstat``) is printed beside it, the kernel's side of its switches
included; on a virtual machine it also counts time the host took away, so like wall time it is
worth reading only on a quiet machine.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import pykka

from benchmarks.runtime_benchmark import CALL, _Echo

Sample = dict[str, tuple[int, int]]
"""Per thread name: voluntary context switches so far, and nanoseconds on a CPU so far."""


def switches() -> Sample:
    """Voluntary context switches and CPU time so far of every live Python thread."""
    counts: Sample = {}
    for thread in threading.enumerate():
        task = f"/proc/self/task/{thread.native_id}"
        try:
            with open(f"{task}/status") as status:
                voluntary = next(int(line.split()[1]) for line in status
                                 if line.startswith("voluntary_ctxt_switches:"))
            with open(f"{task}/schedstat") as schedstat:
                on_cpu = int(schedstat.read().split()[0])
        except (OSError, StopIteration):  # the thread ended meanwhile
            continue
        counts[thread.name] = (voluntary, on_cpu)
    return counts


def per_turn(before: Sample, after: Sample, turns: int) -> dict[str, tuple[float, float]]:
    """Switches and CPU microseconds per turn of each thread alive at the end (a thread
    started meanwhile counts from 0)."""
    return {name: ((count - before.get(name, (0, 0))[0]) / turns,
                   (cpu - before.get(name, (0, 0))[1]) / turns / 1e3)
            for name, (count, cpu) in after.items()}


def agent_wakeups(turns: int, chunk_size: int | None = None
                  ) -> tuple[dict[str, tuple[float, float]], int]:
    """Per-turn switches of each thread of one agent doing ``turns`` round trips (its replies
    streamed in pieces of ``chunk_size`` characters if given), and how many threads the agent
    has after them."""
    from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool

    @tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    llm = ScriptedLLM([CALL, "done"] * (turns + 10), chunk_size=chunk_size)
    others = set(threading.enumerate())
    with Agent(AgentConfig(name="bench", llm=llm, tools=[noop], tool_format="json")) as agent:
        for _ in range(5):  # warm up: every thread the turn uses is started
            agent.run("warm up", timeout=10)
        before = switches()
        for _ in range(turns):
            agent.run("go", timeout=10)
        after = switches()
        threads = len(set(threading.enumerate()) - others)
    return per_turn(before, after, turns), threads


def floor_wakeups(turns: int) -> dict[str, tuple[float, float]]:
    """Per-turn switches of the bare pipeline: 3 echo actors, 4 asks a turn."""
    refs = [_Echo.start() for _ in range(3)]
    agent, llm, tool = refs
    asks: list[tuple[pykka.ActorRef[_Echo], str]] = [
        (agent, "user message"), (llm, "request 1"), (tool, "noop"), (llm, "request 2")]
    names = {ref.actor_class.__name__ for ref in refs}
    try:
        for target, message in asks * 5:
            target.ask(message)
        before = switches()
        for _ in range(turns):
            for target, message in asks:
                target.ask(message)
        after = switches()
    finally:
        for ref in refs:
            ref.stop()
    counts = per_turn(before, after, turns)
    return {name: count for name, count in counts.items()
            if name == "MainThread" or any(name.startswith(f"{n}") for n in names)}


def show(title: str, counts: dict[str, tuple[float, float]],
         extra: Callable[[], str] = lambda: "") -> None:
    wakeups = sum(count for count, _ in counts.values())
    cpu = sum(us for _, us in counts.values())
    print(f"{title}: {wakeups:.1f} wake-ups, {cpu:.0f} us on a CPU per turn {extra()}")
    for name, (count, us) in sorted(counts.items(), key=lambda item: -item[1][0]):
        if count >= 0.05:
            print(f"    {name:<28} {count:5.2f} wake-ups {us:7.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--chunk-size", type=int, default=None,
                        help="stream the replies in pieces of this many characters")
    arguments = parser.parse_args()
    turns = arguments.turns
    show("bare pykka pipeline (3 actors, 4 asks)", floor_wakeups(turns))
    counts, threads = agent_wakeups(turns, arguments.chunk_size)
    show("agent tool round trip", counts, lambda: f"({threads} threads after its turns)")


if __name__ == "__main__":
    main()
