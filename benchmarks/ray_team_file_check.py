"""A big Ray team the way a user runs it: a team file written out, run through the CLI, and
nothing of its Ray instance left afterwards.

    pip install 'autobyteus-like[ray]'
    python -m benchmarks.ray_team_file_check                  # 1,000 members, a ring
    python -m benchmarks.ray_team_file_check --members 200 --address auto

The file: ``runtime: {backend: ray, members_per_worker: auto}``, a ring of scripted members
(each passes the message on), two of them with ``resources:`` of their own (so the ring
crosses their hosts too). ``autobyteus-like run FILE -m hop`` runs it (its live view takes
every event); measured: its exit code and answer, its wall time and CPU time (the driver's
process), and, 5 s after it exited, every process still alive whose environment names that
run's raylet (Ray's workers carry ``RAY_RAYLET_PID``), and the raylet itself. ``address:
local`` by default, so another Ray instance on the machine is never joined.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def team_file(size: int, address: str) -> str:
    lines = ["name: big-ring", "coordinator: m0", "runtime:", "  backend: ray",
             "  members_per_worker: auto", f"  address: {address}", "members:"]
    for index in range(size):
        responses = (["end of the ring"] if index == size - 1 else [json.dumps(
            {"name": "send_message_to",
             "arguments": {"recipient_name": f"m{index + 1}", "content": "hop"}}), "passed"])
        lines += [f"  - name: m{index}",
                  f"    llm: {{provider: scripted, responses: {json.dumps(responses)}}}",
                  "    tool_format: json", "    tools: [send_message_to]"]
        if index in (size // 2, size // 4):
            lines.append("    resources: {num_cpus: 0.5, memory: 100000000}")
    return "\n".join(lines) + "\n"


def raylet_of(pid: int) -> int | None:
    """The raylet whose session directory the process ``pid`` has open."""
    try:
        opened = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    except OSError:
        return None
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if not command or not command[0].endswith(b"raylet/raylet"):
            continue
        session = next((part.split(b"session_")[1].split(b"/")[0] for part in command
                        if b"session_" in part), None)
        if session and any(f"session_{session.decode()}" in path for path in opened):
            return int(entry.name)
    return None


def left_of(raylet: int) -> list[str]:
    """Processes still alive that belong to ``raylet``'s Ray instance (and the raylet)."""
    marker = f"RAY_RAYLET_PID={raylet}".encode()
    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            mine = marker in (entry / "environ").read_bytes().split(b"\0")
            if mine or int(entry.name) == raylet:
                left.append((entry / "cmdline").read_bytes().replace(b"\0", b" ")[:100]
                            .decode(errors="replace"))
        except OSError:
            continue
    return left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--address", default="local")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="team-file-"))
    (folder / "team.yaml").write_text(team_file(args.members, args.address))
    load = os.getloadavg()[0]
    began = time.perf_counter()
    run = subprocess.Popen([sys.executable, "-m", "autobyteus_like.cli._main", "run", "team.yaml",
                            "-m", "hop", "--timeout", "1800"], cwd=folder,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           env={**os.environ, "RAY_AUTH_MODE": "disabled"})
    raylet = None
    while raylet is None and run.poll() is None:
        raylet = raylet_of(run.pid)
        time.sleep(0.2)  # the CLI's Ray instance shows only in /proc: looked for now and then
    output, _ = run.communicate()
    wall = time.perf_counter() - began
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    time.sleep(5)
    left = left_of(raylet) if raylet else ["(the run's raylet was not seen)"]
    answer = next((line for line in output.splitlines() if line.startswith("answer:")), "")
    print(f"{args.members} members; load average {load:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end")
    print(f"  exit {run.returncode}; {answer or 'no answer line'}")
    print(f"  wall {wall:.1f} s; the CLI's CPU {used.ru_utime:.1f} s user + "
          f"{used.ru_stime:.1f} s system")
    print(f"  processes of its Ray instance left 5 s after: {len(left)}")
    for line in left:
        print(f"    {line}")


if __name__ == "__main__":
    main()
