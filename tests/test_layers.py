"""The shape of the package, read from its source: every import of every module (``ast``, lazy and
type-only imports included), grouped by package. No cycle between packages, no arrow back up
the layers below, no module over 400 lines. The layers are those of docs/architecture.md."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import autobyteus_like

ROOT = Path(autobyteus_like.__file__).parent
MAX_LINES = 400

LAYERS: list[set[str]] = [
    {"errors", "error_codes", "extras", "config_problems", "frozen_values"},
    {"tools"},
    {"llm", "mcp"},
    {"formatters", "parsers"},
    {"formats"},
    {"events"},
    {"history", "output"},  # typed conversations and answers
    {"handlers", "hooks", "store", "usage", "tracing"},  # the turn machine and its hooks
    {"agent"},
    {"mail"},
    {"runtime"},
    {"team"},
    {"testing"},
    {"serving", "web", "cli", "cli_run", "cli_validate", "cli_serve", "cli_view", "cli_sessions",
     "cli_tools"},  # the faces
]
"""Bottom first. A package may import its own layer's packages and any below; a top-level
module (``errors.py``, ``cli.py``) counts as a package of its own."""

KNOWN_BACK_ARROWS: dict[tuple[str, str], str] = {}
"""Arrows (importer, imported) that work in progress removes, each closing a cycle today; each
must still exist (so it is struck off here the moment it is gone), and no other may appear."""

KNOWN_OVERSIZED: dict[str, str] = {}
"""Modules over the limit that another piece of work is splitting; each must still be over."""


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _all_imports() -> dict[str, set[tuple[str, str]]]:
    """Each package's imports of other packages: (imported package, importing module)."""
    arrows: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT.parent).with_suffix("")
        module = ".".join(relative.parts).removesuffix(".__init__")
        own = _package(module)
        if not own:  # autobyteus_like/__init__.py re-exports the public API from everywhere
            continue
        here = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    targets = [".".join([*base, *([node.module] if node.module else [])])]
                else:
                    targets = [node.module or ""]
            else:
                continue
            for target in targets:
                if target.startswith("autobyteus_like.") and _package(target) != own:
                    arrows[own].add((_package(target), module))
    return arrows


ALL_ARROWS = _all_imports()
ARROWS = {source: {(target, module) for target, module in arrows
                   if (source, target) not in KNOWN_BACK_ARROWS}
          for source, arrows in ALL_ARROWS.items()}
LEVEL = {package: level for level, group in enumerate(LAYERS) for package in group}


def test_every_package_has_a_layer():
    packages = {path.stem if path.is_file() else path.name
                for path in ROOT.iterdir()
                if (path.suffix == ".py" and path.stem != "__init__")
                or (path.is_dir() and (path / "__init__.py").exists())}
    unplaced = sorted(packages - set(LEVEL))
    assert not unplaced, f"give these a layer in tests/test_layers.py LAYERS: {unplaced}"


def test_no_arrow_points_up_the_layers():
    upward = sorted(f"{module} imports {target} ({source} is below {target})"
                    for source, arrows in ARROWS.items()
                    for target, module in arrows
                    if LEVEL.get(target, -1) > LEVEL.get(source, len(LAYERS)))
    assert not upward, "\n".join(upward)


def _cycles() -> list[list[str]]:
    """The packages of each cycle (Tarjan's strongly connected components of two or more)."""
    targets = {source: sorted({target for target, _ in arrows})
               for source, arrows in ARROWS.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in targets.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(targets):
        if node not in index:
            visit(node)
    return found


def test_no_cycle_between_packages():
    described = []
    for cycle in _cycles():
        arrows = sorted(f"{module} -> {target}" for source in cycle
                        for target, module in ARROWS[source] if target in cycle)
        described.append(f"{' / '.join(cycle)}: {', '.join(arrows)}")
    assert not described, "package cycles: " + "; ".join(described)


@pytest.mark.parametrize("arrow", sorted(KNOWN_BACK_ARROWS), ids="->".join)
def test_a_known_back_arrow_is_struck_off_once_it_is_gone(arrow):
    source, target = arrow
    assert any(imported == target for imported, _ in ALL_ARROWS.get(source, ())), (
        f"{source} no longer imports {target} ({KNOWN_BACK_ARROWS[arrow]}): "
        "remove it from KNOWN_BACK_ARROWS")


def _length(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_the_limit():
    over = sorted(f"{path.relative_to(ROOT)} ({_length(path)} lines)"
                  for path in ROOT.rglob("*.py")
                  if _length(path) > MAX_LINES
                  and path.relative_to(ROOT).as_posix() not in KNOWN_OVERSIZED)
    assert not over, f"modules over {MAX_LINES} lines: {', '.join(over)}"


@pytest.mark.parametrize("module", sorted(KNOWN_OVERSIZED))
def test_a_known_oversized_module_is_struck_off_once_split(module):
    assert _length(ROOT / module) > MAX_LINES, (
        f"{module} is split ({KNOWN_OVERSIZED[module]}): remove it from KNOWN_OVERSIZED")


SHARED_NAMES = {"base.py", "config.py", "context.py", "limits.py", "registry.py", "session.py"}
"""File names several packages used before the rule; no other may be shared."""


def test_no_two_modules_share_a_file_name():
    names: dict[str, list[str]] = defaultdict(list)
    for path in ROOT.rglob("*.py"):
        if path.name != "__init__.py":
            names[path.name].append(path.relative_to(ROOT).as_posix())
    shared = {name: paths for name, paths in names.items()
              if len(paths) > 1 and name not in SHARED_NAMES}
    assert not shared, f"modules sharing a name: {shared}"
    assert len(names["events.py"]) == 1


def test_the_turn_context_is_imported_only_inside_the_turn_machine():
    """``AgentContext`` (the turn's mutable state) stays in handlers/ and the agent's actor."""
    outside = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(("handlers/", "agent/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and any(
                    alias.name == "AgentContext" for alias in node.names):
                outside.append(relative)
    assert not outside, f"AgentContext imported outside the turn machine: {outside}"
