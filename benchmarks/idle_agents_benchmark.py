"""10,000 started, idle agents in one process: resident memory, start time, threads.

    python benchmarks/idle_agents_benchmark.py            # 10,000 agents (minutes on a busy VM)
    python benchmarks/idle_agents_benchmark.py 1000       # another count

Each side runs in a fresh interpreter (the child below), so nothing else is resident and no
freed memory of one side is reused by the other. The reference, measured just before, is the
same number of bare pykka actors (one thread each, as an idle agent should have): it says how
much of the cost is the actor runtime itself. RSS is VmRSS from /proc; threads are counted with
``threading.active_count()``. The agents are built from one config (a ScriptedLLM, one tool).
"""

from __future__ import annotations

import subprocess
import sys

CHILD = r'''
import gc, sys, threading, time
import pykka
from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool

def rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

@tool
def noop() -> str:
    """Do nothing."""
    return "ok"

class Bare(pykka.ThreadingActor):
    def on_receive(self, message):
        return message

count, mode = int(sys.argv[1]), sys.argv[2]
config = AgentConfig(name="idle", llm=ScriptedLLM(["done"]), tools=[noop], tool_format="json")
Agent(config).start().stop()  # warm: imports, caches
Bare.start().stop()
gc.collect()
before = rss_kib()
threads_before = threading.active_count()
start = time.perf_counter()
if mode == "bare":
    started = [Bare.start() for _ in range(count)]
else:
    started = [Agent(config).start() for _ in range(count)]
start_s = time.perf_counter() - start
gc.collect()
after = rss_kib()
threads = threading.active_count() - threads_before
print(start_s, before, after, threads)
start = time.perf_counter()
if mode == "bare":
    for ref in started:
        ref.stop()
else:
    assert started[0].run("hi", timeout=30) == "done"
    for agent in started:
        agent.stop()
print(time.perf_counter() - start)
'''


def run(count: int, mode: str) -> tuple[float, int, int, int, float]:
    """Start ``count`` agents (or bare actors) in a fresh interpreter: start seconds, RSS
    before and after (KiB), threads added, stop seconds."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(count), mode], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    fields = out[0].split()
    return float(fields[0]), int(fields[1]), int(fields[2]), int(fields[3]), float(out[1])


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    bare = run(count, "bare")
    agents = run(count, "agents")
    for label, (start_s, before, after, threads, stop_s) in (("bare pykka actors", bare),
                                                             ("idle agents", agents)):
        print(f"{label}: {count} started in {start_s:.2f} s ({start_s / bare[0]:.2f}x the "
              f"bare actors), RSS {before / 1024:.0f} MiB before, {after / 1024:.0f} MiB after "
              f"({(after - before) / count:.1f} KiB each), {threads / count:.2f} threads "
              f"each, stopped in {stop_s:.2f} s")


if __name__ == "__main__":
    main()
