"""search.vector: what the incremental index saves. One tree of N text files; the first call
embeds them all (the reference), a second call with nothing changed re-embeds nothing, a third
after one file changed re-embeds that file only; and, for scale, search.lexical over the same
tree, reading every file (a pattern that matches nothing). Each figure is the best of a few
runs, with its ratio to the first call's time in the same run.
Run: ``python benchmarks/vector_benchmark.py [FILES]``."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from autobyteus_like.tools import SandboxPolicy, ToolContext, ToolDefinition, builtin_tools

WORDS = ["retry", "backoff", "request", "client", "server", "timeout", "budget", "launch",
         "plan", "owner", "contract", "review", "deploy", "cache", "index", "vector", "search",
         "memory", "summary", "working", "set"]


def _tree(root: Path, files: int) -> None:
    for number in range(files):
        lines = [" ".join(WORDS[(number + i + j) % len(WORDS)] for j in range(12))
                 for i in range(40)]
        (root / f"doc{number:04d}.md").write_text("\n".join(lines) + "\n")


def _timed(call: ToolDefinition, arguments: dict[str, object], context: ToolContext) -> float:
    started = time.perf_counter()
    call.run(arguments, context)
    return time.perf_counter() - started


def main(files: int = 200, rounds: int = 3) -> None:
    tools = builtin_tools()
    vector, lexical = tools.get("search.vector"), tools.get("search.lexical")
    vector.run({"query": "warm up"}, ToolContext(sandbox=SandboxPolicy(  # load the model once
        roots=[tempfile.mkdtemp()])))
    best: dict[str, float] = {}
    for _ in range(rounds):
        root = Path(tempfile.mkdtemp())
        try:
            _tree(root, files)
            context = ToolContext(sandbox=SandboxPolicy(roots=[root]))
            query = {"query": "how long do we wait before trying again", "k": 5}
            figures = {"first call (embeds every file)": _timed(vector, query, context),
                       "nothing changed": _timed(vector, query, context)}
            (root / "doc0000.md").write_text("the launch moved to June\n")
            figures["one file changed"] = _timed(vector, query, context)
            figures["search.lexical reading every file (no match)"] = _timed(
                lexical, {"query": "no such words here"}, context)
            for name, seconds in figures.items():
                best[name] = min(best.get(name, seconds), seconds)
        finally:
            shutil.rmtree(root)
    reference = best["first call (embeds every file)"]
    print(f"{files} files of 40 lines; best of {rounds}")
    print("| call | ms | / first call |\n| --- | --- | --- |")
    for name, seconds in best.items():
        print(f"| {name} | {seconds * 1000:.0f} | {seconds / reference:.2f}x |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
