"""Instructions per tool round trip, per thread, against the bare pykka pipeline's.

    python benchmarks/round_trip_instructions.py            # agent and floor
    python benchmarks/round_trip_instructions.py --only agent --turns 100 400

Runs the benchmark's turn (``runtime_benchmark``: ScriptedLLM -> one no-op tool call -> its
result -> the final answer) and the floor (three bare pykka actors, the 4 asks such a turn
needs) under valgrind's callgrind, once for each of two turn counts, and prints the slope: the
instructions one more turn costs, so start-up and imports drop out. Unlike wall time the count
hardly depends on the machine's load (repeatable within about 0.5%), so two versions of the
code can be compared on a busy machine; what it does not see is the cost of thread switches
(valgrind runs one thread at a time), which ``round_trip_wakeups.py`` counts. Needs valgrind
(Debian: ``apt-get install valgrind``); each run takes about a minute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

AGENT = """
import sys
sys.path.insert(0, {root!r})
from benchmarks.runtime_benchmark import CALL
from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool

@tool
def noop() -> str:
    "Do nothing."
    return "ok"

turns = int(sys.argv[1])
llm = ScriptedLLM([CALL, "done"] * (turns + 20))
with Agent(AgentConfig(name="bench", llm=llm, tools=[noop], tool_format="json")) as agent:
    for index in range(turns):
        if index % 20 == 0:
            agent.reset()
        agent.run("go", timeout=600)
"""

FLOOR = """
import sys
sys.path.insert(0, {root!r})
from benchmarks.runtime_benchmark import _Echo

turns = int(sys.argv[1])
agent, llm, tool = _Echo.start(), _Echo.start(), _Echo.start()
for _ in range(turns):
    agent.ask("user message")
    llm.ask("request 1")
    tool.ask("noop")
    llm.ask("request 2")
for ref in (agent, llm, tool):
    ref.stop()
"""


def counted(code: str, turns: int, workdir: Path) -> dict[str, int]:
    """Instructions of a run of ``code`` with ``turns`` turns: the whole process under
    ``"total"`` and each thread under ``"thread N"`` (in the order threads started)."""
    out = workdir / f"cg.{turns}"
    script = workdir / "turns.py"
    script.write_text(code.format(root=str(ROOT)))
    subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes",
                    f"--callgrind-out-file={out}", sys.executable, str(script), str(turns)],
                   check=True, capture_output=True, cwd=ROOT)
    counts: dict[str, int] = {}
    for part in sorted(workdir.glob(f"cg.{turns}-*"), key=lambda p: int(p.name.rsplit("-", 1)[1])):
        match = re.search(r"^summary: (\d+)", part.read_text(errors="replace"), re.MULTILINE)
        if match:
            counts[f"thread {part.name.rsplit('-', 1)[1]}"] = int(match.group(1))
        part.unlink()
    counts["total"] = sum(counts.values())
    return counts


def slope(code: str, low: int, high: int) -> dict[str, float]:
    """Instructions per turn, per thread and in total, between ``low`` and ``high`` turns."""
    with tempfile.TemporaryDirectory(prefix="round-trip-instructions-") as tmp:
        few, many = counted(code, low, Path(tmp)), counted(code, high, Path(tmp))
    return {name: (many[name] - few.get(name, 0)) / (high - low) for name in many}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs=2, default=(100, 400), metavar=("LOW", "HIGH"))
    parser.add_argument("--only", choices=("agent", "floor"))
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    os.environ.setdefault("PYTHONHASHSEED", "0")  # the same dict layouts from run to run
    low, high = args.turns
    results: dict[str, dict[str, float]] = {}
    for name, code in (("agent", AGENT), ("floor", FLOOR)):
        if args.only in (None, name):
            results[name] = slope(code, low, high)
            threads = ", ".join(f"{key} {value:,.0f}" for key, value in results[name].items()
                                if key != "total" and abs(value) >= 500)
            print(f"{name}: {results[name]['total']:,.0f} instructions per turn ({threads})")
    if len(results) == 2:
        print(f"agent / floor: {results['agent']['total'] / results['floor']['total']:.2f}x")


if __name__ == "__main__":
    main()
