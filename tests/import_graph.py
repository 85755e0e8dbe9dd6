"""Who imports whom in a package tree, read from its source with ``ast``: every import of every
module (lazy and type-only ones included, ``from pkg import x`` and ``from .. import x``
resolved to the module they name), and the cycles of such a graph (Tarjan's strongly connected
components). Shared by tests/test_layers.py and benchmarks/tool_call_modules.py; it imports
nothing of the package it reads, so the benchmark can read another checkout's tree."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path


def modules(root: Path) -> list[tuple[Path, str]]:
    """Every module below the package directory ``root``: its file and dotted name."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent).with_suffix("")
        found.append((path, ".".join(relative.parts).removesuffix(".__init__")))
    return found


def package_of(module: str) -> str:
    """The first-level package (or top-level module) a dotted name belongs to; "" for the
    package itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def is_module(root: Path, dotted: str) -> bool:
    """Whether ``pkg.x.y`` names a module or package below ``root`` (not a name inside one)."""
    path = root.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def import_targets(root: Path, node: ast.AST, here: str) -> list[str]:
    """The modules an import statement in package ``here`` loads (a name imported from a
    package counts as its submodule when it is one)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        parts = here.split(".")
        base = ".".join([*parts[: len(parts) - node.level + 1],
                         *([node.module] if node.module else [])])
    else:
        base = node.module or ""
    found = [base]
    for alias in node.names:  # from autobyteus_like import team; from .. import runtime
        if is_module(root, f"{base}.{alias.name}"):
            found.append(f"{base}.{alias.name}")
    return found


def module_imports(root: Path) -> dict[str, tuple[Path, ast.Module, set[str]]]:
    """Each module's file, syntax tree, and the modules of the package it imports."""
    name = root.name
    found: dict[str, tuple[Path, ast.Module, set[str]]] = {}
    for path, module in modules(root):
        here = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = {target for node in ast.walk(tree)
                   for target in import_targets(root, node, here)
                   if target == name or target.startswith(f"{name}.")}
        found[module] = (path, tree, targets)
    return found


def strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The cycles of a graph: its strongly connected components of two or more nodes, each
    sorted (Tarjan)."""
    targets = {node: sorted(set(nexts)) for node, nexts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in targets.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(targets):
        if node not in index:
            visit(node)
    return found
