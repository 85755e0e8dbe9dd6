"""Teams on Ray, one member per actor (``members_per_worker: 1``; packing is measured by
ray_scale_benchmark.py): a 50-agent ring in hops per second against bare Ray actor rings and
the local backend in the same run, the bytes that cross per hop, and many members started at
once.

    pip install 'autobyteus-like[ray]'
    python benchmarks/ray_benchmark.py                     # 50 agents x 4 laps; 100, 200 members
    python benchmarks/ray_benchmark.py --members 50 100 300

Each team hop is a whole agent turn on a scripted LLM (read the message, call
``send_message_to`` for the next member: one actor-to-actor call acknowledged by the
recipient, get the result, answer), with every event streamed to the driver. The bare rings
are 50 Ray actors forwarding a counter: fire-and-forget (the floor of an actor hop), and
acknowledged (the sender waits for the next actor to take the message, as ``send_message_to``
does).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import time
from pathlib import Path
from typing import Any

import ray

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig
from autobyteus_like.runtime import LocalRuntime, RayRuntime
from autobyteus_like.runtime._ray_records import Delivered, TurnEnded


def ring_config(size: int, laps: int) -> TeamConfig:
    def send(to: int) -> str:
        return json.dumps({"name": "send_message_to",
                           "arguments": {"recipient_name": f"a{to}", "content": "hop"}})

    members = []
    for index in range(size):
        script: list[Any] = [send((index + 1) % size), "passed"] * laps
        if index == size - 1:
            script = [*script[:-2], "end of the ring"]
        members.append(AgentConfig(name=f"a{index}", llm=ScriptedLLM(script),
                                   tools=["send_message_to"], tool_format="json"))
    return TeamConfig(name="ring", coordinator="a0", members=members)


def team_ring(size: int, laps: int, runtime: LocalRuntime | RayRuntime, *,
              subscribed: bool = False) -> tuple[float, int, int]:
    """Seconds for size*laps hops; with ``subscribed``, every event goes to a subscriber on
    the driver: how many, and their bytes pickled."""
    team = AgentTeam(ring_config(size, laps), runtime=runtime)
    with team:
        events = team.events() if subscribed else None
        start = time.perf_counter()
        answer = team.run("hop", timeout=600)
        elapsed = time.perf_counter() - start
        received = []
        while events is not None and (event := events.get(timeout=5)) is not None:
            received.append(event)
            if type(event).__name__ == "TeamQuiescent":
                break
        if events is not None:
            events.close()
    assert answer == "passed", answer
    if isinstance(runtime, LocalRuntime):  # nothing crosses a process: not measured
        return elapsed, len(received), 0
    size_bytes = sum(len(pickle.dumps(event, protocol=5)) for event in received)
    return elapsed, len(received), size_bytes


@ray.remote(num_cpus=0)
class BareHop:
    def __init__(self) -> None:
        self.next: Any = None

    def link(self, next_actor: Any) -> None:
        self.next = next_actor

    def hop(self, left: int, done: Any) -> None:
        if left == 0:
            done.finish.remote()
        else:
            self.next.hop.remote(left - 1, done)

    def hop_acknowledged(self, left: int, done: Any) -> str:
        if left == 0:
            done.finish.remote()
        else:
            ray.get(self.next.take.remote(left - 1, done))
        return "ok"

    def take(self, left: int, done: Any) -> str:
        """Take the message and go on after answering, as a member takes one into its
        mailbox and works on it after ``receive`` returned."""
        ray.get_runtime_context().current_actor.hop_acknowledged.remote(left, done)
        return "taken"


@ray.remote(num_cpus=0)
class Done:
    def __init__(self) -> None:
        import asyncio

        self.event = asyncio.Event()

    async def finish(self) -> None:
        self.event.set()

    async def ready(self) -> None:
        """Answers once the actor runs (its process started)."""

    async def wait(self) -> None:
        await self.event.wait()


def bare_ring(size: int, hops: int, acknowledged: bool) -> float:
    actors = [BareHop.remote() for _ in range(size)]  # type: ignore[attr-defined]
    ray.get([a.link.remote(actors[(i + 1) % size]) for i, a in enumerate(actors)])
    done = Done.remote()  # type: ignore[attr-defined]
    ray.get(done.ready.remote())  # its process's start is not part of the ring
    start = time.perf_counter()
    if acknowledged:
        actors[0].hop_acknowledged.remote(hops, done)
    else:
        actors[0].hop.remote(hops, done)
    ray.get(done.wait.remote())
    elapsed = time.perf_counter() - start
    for actor in [*actors, done]:
        ray.kill(actor)
    return elapsed


def _pss_mib(pid: int) -> float:
    """Proportional set size: shared pages (the interpreter, Ray's libraries) split fairly."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return 0.0


def many_members(count: int) -> tuple[float, float, float]:
    """Start ``count`` members: seconds to start, seconds to stop, PSS MiB per member."""
    from ray.util.state import list_actors

    members = [AgentConfig(name=f"m{i}", llm=ScriptedLLM(["hi"])) for i in range(count)]
    team = AgentTeam(TeamConfig(name="crowd", coordinator="m0", members=members),
                     runtime=RayRuntime(backend="ray", start_timeout_s=1800,
                                         members_per_worker=1))
    start = time.perf_counter()
    team.start()
    started = time.perf_counter() - start
    assert team.run("hello", timeout=60) == "hi"
    pids = [actor.pid for actor in list_actors(filters=[("class_name", "=", "MemberHost"),
                                                        ("state", "=", "ALIVE")], limit=10000)]
    per_member = sum(_pss_mib(pid) for pid in pids if pid) / max(1, len(pids))
    start = time.perf_counter()
    team.stop()
    return started, time.perf_counter() - start, per_member


def message_bytes() -> dict[str, int]:
    """Pickled sizes of what crosses for one hop besides the events."""
    record = Delivered(agent="a0", message_id="0123456789ab:17", recipient="a1",
                       content="hop", incarnation="0123456789ab")
    ended = TurnEnded(agent="a1", message_id="0123456789ab:17", answer="passed")
    return {"receive args": len(pickle.dumps(("a1", "0123456789ab:17", "hop", "a0"),
                                             protocol=5)),
            "Delivered record": len(pickle.dumps(record, protocol=5)),
            "TurnEnded record": len(pickle.dumps(ended, protocol=5))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=50)
    parser.add_argument("--laps", type=int, default=4)
    parser.add_argument("--members", type=int, nargs="*", default=[100, 200])
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=True, log_to_driver=False)
    hops = args.size * args.laps
    print(f"{args.size}-agent ring, {hops} hops, {os.cpu_count()} cores")
    local, _, _ = team_ring(args.size, args.laps, LocalRuntime())
    alone = RayRuntime(backend="ray", members_per_worker=1)
    on_ray, _, _ = team_ring(args.size, args.laps, alone)
    watched, count, size_bytes = team_ring(args.size, args.laps, alone, subscribed=True)
    fire = bare_ring(args.size, hops, acknowledged=False)
    acked = bare_ring(args.size, hops, acknowledged=True)
    per_hop = {"team, local backend": local, "team, ray backend": on_ray,
               "team, ray, events to the driver": watched,
               "bare Ray ring, fire-and-forget": fire, "bare Ray ring, acknowledged": acked}
    for name, seconds in per_hop.items():
        print(f"  {name:32s} {hops / seconds:9.0f} hops/s  {seconds / hops * 1e3:7.2f} ms/hop")
    print(f"  ray team / bare acknowledged: {on_ray / acked:.1f}x per hop; "
          f"/ fire-and-forget: {on_ray / fire:.1f}x; ray / local backend: {on_ray / local:.1f}x")
    print(f"  with every event streamed: {watched / acked:.1f}x bare acknowledged")
    print(f"  events to the driver: {count / hops:.1f} per hop, "
          f"{size_bytes / hops:.0f} bytes per hop (pickled)")
    for name, size in message_bytes().items():
        print(f"  {name}: {size} bytes pickled")
    for count_members in args.members:
        started, stopped, pss = many_members(count_members)
        print(f"{count_members} members: started in {started:.1f} s "
              f"({started / count_members * 1e3:.0f} ms each), stopped in {stopped:.1f} s, "
              f"{pss:.0f} MiB PSS per member")
    ray.shutdown()


if __name__ == "__main__":
    main()
