"""The house as one tool call sees it: the modules of autobyteus_like whose code runs while one
tool call goes from the LLM's text to its result going back, and the package's shape.

    python benchmarks/tool_call_modules.py              # this checkout
    PYTHONPATH=/path/to/other/checkout python benchmarks/tool_call_modules.py   # another one

One agent (ScriptedLLM, the json format, one no-op tool, as ``runtime_benchmark``) is warmed up
with five turns; then a profiler (``sys.setprofile`` on every thread, set before the agent
starts so its threads have it too) records every function of the package entered during one
more turn. The window of the tool call runs from the first LLM request's stream (the text
holding the call) to the second request's, which carries the result back: every module with a
function entered in between is counted, on whatever thread. Three such turns are recorded; the
figure is the same for each unless something differs between turns, and then all are printed.

The shape is read from the source of the package that was imported: modules, lines, the
largest modules, the modules importing the turn's context (``AgentContext``), and the package
cycles (every import counted, lazy and type-only ones too, read by tests/import_graph.py as
tests/test_layers.py reads them, imports by a name given at run time aside), the pairs of
packages that import each other, and (with ``--arrows``) every import inside a cycle.
"""

from __future__ import annotations

import ast
import json
import sys
import threading
from collections import defaultdict
from collections.abc import Callable
from itertools import count
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.import_graph
from tests.import_graph import module_imports, package_of, strongly_connected

sys.path.pop(0)  # the package measured is the one PYTHONPATH names, else the installed one
import autobyteus_like

PACKAGE = Path(autobyteus_like.__file__).resolve().parent
NAME = "autobyteus_like"


def _module_of(filename: str) -> str | None:
    path = Path(filename)
    try:
        relative = path.resolve().relative_to(PACKAGE)
    except ValueError:
        return None
    return ".".join((NAME, *relative.with_suffix("").parts)).removesuffix(".__init__")


class Recorder:
    """Every function of the package entered while ``on`` is set: (order, module, frame's
    stream request or None)."""

    def __init__(self) -> None:
        self.on = False
        self.entered: list[tuple[int, str, int | None]] = []
        self._order = count()
        self._modules: dict[str, str | None] = {}
        self._stream_code: Any = None

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or not self.on:
            return
        filename = frame.f_code.co_filename
        module = self._modules.get(filename, "?")
        if module == "?":
            module = self._modules[filename] = _module_of(filename)
        if module is None:
            return
        request = (id(frame.f_locals.get("request"))
                   if frame.f_code is self._stream_code else None)
        self.entered.append((next(self._order), module, request))

    def watch_stream(self, function: Callable[..., Any]) -> None:
        self._stream_code = function.__code__


def one_turn_windows(turns: int = 3) -> list[list[str]]:
    """For each of ``turns`` recorded turns, the modules entered in the tool call's window."""
    from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool

    @tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    recorder = Recorder()
    recorder.watch_stream(ScriptedLLM.stream)
    threading.setprofile(recorder)
    sys.setprofile(recorder)
    call = json.dumps({"name": "noop", "arguments": {}})
    windows: list[list[str]] = []
    try:
        llm = ScriptedLLM([call, "done"] * (turns + 10))
        with Agent(AgentConfig(name="bench", llm=llm, tools=[noop], tool_format="json")) as agent:
            for _ in range(5):  # warm up: threads, caches, lazy imports
                agent.run("warm up", timeout=10)
            for _ in range(turns):
                recorder.entered.clear()
                recorder.on = True
                agent.run("go", timeout=10)
                recorder.on = False
                windows.append(_window(recorder.entered))
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return windows


def _window(entered: list[tuple[int, str, int | None]]) -> list[str]:
    """The modules entered from the first stream of a request to that of the next one."""
    entered = sorted(entered)
    requests = [(order, request) for order, _, request in entered if request is not None]
    first = requests[0][1]
    start = requests[0][0]
    end = next(order for order, request in requests if request != first)
    return sorted({module for order, module, _ in entered if start <= order < end})


def _package(module: str) -> str:
    return package_of(module) or NAME


def shape() -> dict[str, Any]:
    """Modules, lines, the largest modules and the package cycles of the imported package."""
    lines: dict[str, int] = {}
    arrows: dict[str, set[tuple[str, str]]] = defaultdict(set)
    context: list[str] = []
    for module, (path, tree, targets) in module_imports(PACKAGE).items():
        lines[module] = len(path.read_text(encoding="utf-8").splitlines())
        if module != f"{NAME}.handlers.context" and any(  # imported where it is not made
                isinstance(node, ast.alias) and node.name == "AgentContext"
                for node in ast.walk(tree)):
            context.append(module)
        own = _package(module)
        if module == NAME:
            continue  # the public API re-exports everything
        for target in targets:
            if _package(target) != own:
                arrows[own].add((_package(target), module))
    graph = {source: {target for target, _ in found} for source, found in arrows.items()}
    cycles = strongly_connected(graph)
    closing = sorted(f"{module} -> {target}" for cycle in cycles for source in cycle
                     for target, module in arrows[source] if target in cycle)
    mutual = sorted(f"{a} <-> {b}" for a in graph for b in graph[a]
                    if a < b and a in graph.get(b, ()))
    largest = sorted(lines.items(), key=lambda item: -item[1])[:5]
    return {"modules": len(lines), "lines": sum(lines.values()), "largest": largest,
            "over_400": sum(1 for n in lines.values() if n > 400), "cycles": cycles,
            "arrows_in_cycles": closing, "mutual": mutual, "context": context}


def main() -> None:
    print(f"package: {PACKAGE}")
    windows = one_turn_windows()
    for window in windows if any(w != windows[0] for w in windows) else windows[:1]:
        packages = sorted({_package(module) for module in window})
        print(f"one tool call, LLM text -> result back: {len(window)} modules in "
              f"{len(packages)} packages ({', '.join(packages)})")
        for module in window:
            print(f"  {module}")
    found = shape()
    print(f"modules: {found['modules']}, lines: {found['lines']}, "
          f"over 400 lines: {found['over_400']}")
    print("largest: " + ", ".join(f"{module} ({n})" for module, n in found["largest"]))
    print(f"package cycles: {len(found['cycles'])}: "
          + ("; ".join(" / ".join(cycle) for cycle in found["cycles"]) or "none"))
    context = found["context"]
    print(f"modules importing AgentContext: {len(context)} in "
          f"{len({_package(m) for m in context})} packages "
          f"({', '.join(sorted({_package(m) for m in context}))})")
    print(f"pairs of packages importing each other: {len(found['mutual'])}: "
          + (", ".join(found["mutual"]) or "none"))
    print(f"arrows inside the cycles: {len(found['arrows_in_cycles'])}")
    if "--arrows" in sys.argv:
        for arrow in found["arrows_in_cycles"]:
            print(f"  {arrow}")


if __name__ == "__main__":
    main()
