"""A 50-agent team passing a message around a ring, next to a bare pykka ring in the same run.

    python benchmarks/team_benchmark.py            # 50 agents, 10 laps (500 hops)

Each hop is a whole agent turn on a scripted LLM: read the message, call ``send_message_to`` for
the next member (a real delivery), get the result, answer. The reference is 50 bare pykka
actors forwarding a message around the same ring with ``tell``.
"""

from __future__ import annotations

import argparse
import json
import resource
import threading
import time
from typing import Any

import pykka

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def team_ring(size: int, laps: int) -> tuple[float, float, float]:
    """Seconds for size*laps hops, RSS (MiB) once started, and peak RSS (MiB)."""
    hops = size * laps

    def send(to: int) -> str:
        return json.dumps({"name": "send_message_to",
                           "arguments": {"recipient_name": f"a{to}", "content": "hop"}})

    members = []
    for index in range(size):
        script = [send((index + 1) % size), "passed"] * laps
        if index == size - 1:
            script = [*script[:-2], "end of the ring"]
        members.append(AgentConfig(name=f"a{index}", llm=ScriptedLLM(script),
                                   tools=["send_message_to"], tool_format="json"))
    team = AgentTeam(TeamConfig(name="ring", coordinator="a0", members=members))
    with team:
        started_rss = _rss_mib()
        start = time.perf_counter()
        answer = team.run("hop", timeout=300)
        elapsed = time.perf_counter() - start
        llm_calls = sum(len(m.llm.requests) for m in members if isinstance(m.llm, ScriptedLLM))
    assert answer == "passed" and llm_calls == 2 * hops - 1, (answer, llm_calls)
    return elapsed, started_rss, _rss_mib()


class _Hop(pykka.ThreadingActor):
    def __init__(self, done: threading.Event) -> None:
        super().__init__()
        self.next: pykka.ActorRef[Any] | None = None
        self.done = done

    def on_receive(self, message: Any) -> None:
        if isinstance(message, pykka.ActorRef):
            self.next = message
        elif message <= 1:
            self.done.set()
        else:
            assert self.next is not None
            self.next.tell(message - 1)


def pykka_ring(size: int, laps: int) -> float:
    """Seconds for a bare pykka ring of ``size`` actors to forward size*laps messages."""
    done = threading.Event()
    refs = [_Hop.start(done) for _ in range(size)]
    for index, ref in enumerate(refs):
        ref.tell(refs[(index + 1) % size])
    start = time.perf_counter()
    refs[0].tell(size * laps)
    done.wait(300)
    elapsed = time.perf_counter() - start
    for ref in refs:
        ref.stop()
    return elapsed


def main() -> None:
    """Measure and print the figures."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--agents", type=int, default=50)
    args.add_argument("--laps", type=int, default=10)
    options = args.parse_args()
    size, laps = options.agents, options.laps
    hops = size * laps
    base_rss = _rss_mib()
    bare = min(pykka_ring(size, laps) for _ in range(3))
    runs = [team_ring(size, laps) for _ in range(3)]
    elapsed = min(run[0] for run in runs)
    print(f"bare pykka ring:  {hops / bare:9.0f} messages/s ({size} actors, {hops} hops)")
    print(f"agent team ring:  {hops / elapsed:9.0f} messages/s ({size} agents, {hops} hops; "
          f"each hop a full turn: 2 LLM calls and a tool call)")
    print(f"per hop:          {elapsed / hops * 1e6:9.0f} us (bare pykka: {bare / hops * 1e6:.0f} "
          f"us, {elapsed / bare:.0f}x)")
    print(f"memory:           {base_rss:.1f} MiB before, {runs[0][1]:.1f} MiB with the team "
          f"started, {max(run[2] for run in runs):.1f} MiB peak")


if __name__ == "__main__":
    main()
