"""The released API, as text: every name the public modules export, with its kind and signature
(a class with its constructor and its public methods). ``tests/test_api_snapshot.py`` holds it
against ``tests/api_snapshot.txt``; after a deliberate change, write the file anew with
``python -m tests.api_snapshot`` and commit the diff with the change."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any

PUBLIC_MODULES = (
    "autobyteus_like", "autobyteus_like.a2a", "autobyteus_like.cli", "autobyteus_like.errors",
    "autobyteus_like.events",
    "autobyteus_like.formats", "autobyteus_like.formatters", "autobyteus_like.parsers",
    "autobyteus_like.history", "autobyteus_like.hooks", "autobyteus_like.llm",
    "autobyteus_like.mcp", "autobyteus_like.output", "autobyteus_like.store",
    "autobyteus_like.team", "autobyteus_like.testing", "autobyteus_like.tools",
    "autobyteus_like.tracing", "autobyteus_like.usage", "autobyteus_like.evals",
    "autobyteus_like.proxy",
)
"""The modules the README and docs import from: the root and the documented subpackages."""

SNAPSHOT = Path(__file__).with_name("api_snapshot.txt")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _signature(value: Any) -> str:
    try:
        return _ADDRESS.sub("", str(inspect.signature(value)))
    except (TypeError, ValueError):
        return "(...)"


def _describe(qualified: str, value: Any) -> list[str]:
    if inspect.isclass(value):
        kind = "exception" if issubclass(value, BaseException) else "class"
        lines = [f"{qualified}: {kind}{_signature(value)}"]
        members: dict[str, Any] = {}
        for base in reversed(value.__mro__):  # its own and those it inherits from ours
            if base is value or base.__module__.startswith("autobyteus_like"):
                members.update(vars(base))
        for name, member in sorted(members.items()):
            if name.startswith("_"):
                continue
            if isinstance(member, (staticmethod, classmethod)):
                lines.append(f"{qualified}.{name}{_signature(member.__func__)}")
            elif isinstance(member, property):
                lines.append(f"{qualified}.{name}: property")
            elif inspect.isfunction(member):
                lines.append(f"{qualified}.{name}{_signature(member)}")
        return lines
    if callable(value):
        return [f"{qualified}: function{_signature(value)}"]
    return [f"{qualified}: {type(value).__name__}"]


def api_lines() -> list[str]:
    """One line per exported name (and per public method of an exported class), sorted."""
    lines: list[str] = []
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        exported = getattr(module, "__all__", None)
        if exported is None:
            raise AssertionError(f"{module_name} has no __all__: its public API is what it lists")
        for name in sorted(exported):
            lines.extend(_describe(f"{module_name}.{name}", getattr(module, name)))
    return lines


if __name__ == "__main__":
    SNAPSHOT.write_text("\n".join(api_lines()) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
