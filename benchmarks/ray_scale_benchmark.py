"""Many members on Ray: packed into hosts (``members_per_worker``) against one member per
actor, in the same run on a local Ray cluster.

    pip install 'autobyteus-like[ray]'
    python benchmarks/ray_scale_benchmark.py                        # 1,000 packed, 50 alone
    python benchmarks/ray_scale_benchmark.py --packed 1000 --alone 100 --ring 50

For each layout: the seconds to start the team (``AgentTeam.start``: Ray creates the hosts,
each builds and starts its members), the memory per idle member, and a message ring through
every member (each member's turn on a scripted LLM sends the message to the next one). Memory
is the resident set (RSS, from /proc) of the hosts' processes: with members, less the RSS of
as many hosts without members (started the same way, same imports), divided by the members;
for one member per actor, the whole process is the member's. Then a 50-member ring in ms per
hop, packed and one per actor, against bare Ray actor rings (fire-and-forget and
acknowledged) in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import ray

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, UsageLimits
from autobyteus_like.runtime import RayRuntime
from autobyteus_like.runtime import _portable as portable
from autobyteus_like.runtime._member import Member
from autobyteus_like.runtime._ray_host import host_class
from benchmarks.ray_benchmark import bare_ring

_MIB = 1024 * 1024


def ring_team(size: int, laps: int = 1) -> TeamConfig:
    """``size`` members passing one message round ``laps`` times; the last one answers."""
    def send(to: int) -> str:
        return json.dumps({"name": "send_message_to",
                           "arguments": {"recipient_name": f"m{to}", "content": "hop"}})

    members = []
    for index in range(size):
        script: list[Any] = [send((index + 1) % size), "passed"] * laps
        if index == size - 1:
            script = [*script[:-2], "end of the ring"]
        members.append(AgentConfig(name=f"m{index}", llm=ScriptedLLM(script),
                                   tools=["send_message_to"], tool_format="json"))
    return TeamConfig(name="ring", coordinator="m0", members=members)


def rss_bytes(pid: int) -> int:
    """The process's resident set, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def empty_hosts_rss(count: int) -> int:
    """RSS of ``count`` hosts without members, started like a team's (the host's imports,
    Ray's worker): the hosts' own cost."""
    actor = host_class({"num_cpus": 0, "max_restarts": 0})
    blob = ray.put(portable.dumps((None, [])))
    hosts = [actor.remote(f"empty-{i}", [blob], {}, None, 30.0) for i in range(count)]
    ray.get([host.ready.remote() for host in hosts])
    pids = ray.get([host.pid.remote() for host in hosts])
    total = sum(rss_bytes(pid) for pid in pids)
    for host in hosts:
        ray.kill(host)
    return total


def layout(size: int, members_per_worker: int | str) -> dict[str, float]:
    """Start a ring of ``size`` members, measure it idle, run the ring once, stop it."""
    config = ring_team(size)
    built = time.perf_counter()
    team = AgentTeam(config, runtime=RayRuntime(backend="ray", start_timeout_s=1800,
                                                members_per_worker=members_per_worker))
    start = time.perf_counter()
    team.start()
    started = time.perf_counter() - start
    try:
        members: list[Member] = list(team.agents.values())
        hosts = {member.actor_name: member.handle for member in members}
        pids = ray.get([handle.pid.remote() for handle in hosts.values()])
        idle = sum(rss_bytes(pid) for pid in pids)
        ring_start = time.perf_counter()
        answer = team.run("hop", timeout=1800)
        ring = time.perf_counter() - ring_start
        assert answer == "passed", answer
        busy = sum(rss_bytes(pid) for pid in pids)
        threads = sum(int(next(line.split()[1] for line in
                               Path(f"/proc/{pid}/status").read_text().splitlines()
                               if line.startswith("Threads:"))) for pid in pids)
    finally:
        stop = time.perf_counter()
        team.stop()
        stopped = time.perf_counter() - stop
    base = empty_hosts_rss(len(pids))
    return {"members": size, "hosts": len(pids), "build_s": start - built, "start_s": started,
            "stop_s": stopped, "ring_s": ring, "idle_rss": idle, "busy_rss": busy,
            "empty_rss": base, "threads": threads}


def show(name: str, figures: dict[str, float]) -> None:
    members = figures["members"]
    beyond_idle = (figures["idle_rss"] - figures["empty_rss"]) / members / _MIB
    beyond_busy = (figures["busy_rss"] - figures["empty_rss"]) / members / _MIB
    print(f"{name}: {members:.0f} members in {figures['hosts']:.0f} hosts")
    print(f"  team built on the driver in {figures['build_s']:.1f} s; started in "
          f"{figures['start_s']:.1f} s ({figures['start_s'] / members * 1e3:.1f} ms a member); "
          f"stopped in {figures['stop_s']:.1f} s")
    print(f"  RSS of the hosts: idle {figures['idle_rss'] / _MIB:.0f} MiB, after the ring "
          f"{figures['busy_rss'] / _MIB:.0f} MiB, as many empty hosts "
          f"{figures['empty_rss'] / _MIB:.0f} MiB")
    print(f"  per member beyond the hosts' own: {beyond_idle:.2f} MiB idle, "
          f"{beyond_busy:.2f} MiB after its turn; whole RSS per member "
          f"{figures['idle_rss'] / members / _MIB:.2f} MiB idle")
    print(f"  ring through every member: {figures['ring_s']:.2f} s "
          f"({figures['ring_s'] / members * 1e3:.2f} ms a hop); "
          f"{figures['threads'] / members:.1f} threads a member after it")


def hop_ms(size: int, laps: int, members_per_worker: int | str,
           limits: UsageLimits | None = None) -> float:
    """ms per hop of a ``size``-member ring, ``laps`` times round (the team with ``limits``)."""
    config = ring_team(size, laps)
    if limits is not None:
        config = config.model_copy(update={"limits": limits})
    team = AgentTeam(config,
                     runtime=RayRuntime(backend="ray", members_per_worker=members_per_worker))
    with team:
        start = time.perf_counter()
        assert team.run("hop", timeout=600) == "passed"
        return (time.perf_counter() - start) / (size * laps) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packed", type=int, default=1000)
    parser.add_argument("--alone", type=int, default=50)
    parser.add_argument("--ring", type=int, default=50)
    parser.add_argument("--laps", type=int, default=4)
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)
    print(f"{os.cpu_count()} cores; Ray {ray.__version__}")
    packed = layout(args.packed, "auto")
    show("packed (members_per_worker: auto)", packed)
    alone = layout(args.alone, 1)
    show("one member per actor (members_per_worker: 1)", alone)
    per_member = {"start": (packed["start_s"] / packed["members"],
                            alone["start_s"] / alone["members"]),
                  "idle RSS": (packed["idle_rss"] / packed["members"],
                               alone["idle_rss"] / alone["members"])}
    for name, (one, other) in per_member.items():
        print(f"  per member, packed / one per actor: {name} {one / other:.3f}x")
    hops = args.ring * args.laps
    figures = {"team ring, packed (auto)": hop_ms(args.ring, args.laps, "auto"),
               "team ring, one member per actor": hop_ms(args.ring, args.laps, 1),
               "bare Ray ring, fire-and-forget": bare_ring(args.ring, hops, False) / hops * 1e3,
               "bare Ray ring, acknowledged": bare_ring(args.ring, hops, True) / hops * 1e3}
    print(f"{args.ring}-member ring, {hops} hops:")
    for name, ms in figures.items():
        print(f"  {name:34s} {ms:7.2f} ms a hop")
    fire = figures["bare Ray ring, fire-and-forget"]
    for name in ("team ring, packed (auto)", "team ring, one member per actor"):
        print(f"  {name} / bare fire-and-forget: {figures[name] / fire:.2f}x")
    ray.shutdown()


if __name__ == "__main__":
    main()
