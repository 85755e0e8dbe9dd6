"""The builtin tools: files, search, commands, Python, JavaScript and memory, all inside the
agent's sandbox (docs/builtin-tools.md)."""

from autobyteus_like._extras import missing_package
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._registry import ToolRegistry
from autobyteus_like.tools.builtin._fs import fs_tools
from autobyteus_like.tools.builtin._js import js_tool
from autobyteus_like.tools.builtin._memory import memory_tools
from autobyteus_like.tools.builtin._process import process_tools
from autobyteus_like.tools.builtin._search import search_tool
from autobyteus_like.tools.builtin._vector_search import vector_tool

__all__ = ["TOOL_EXTRAS", "absent_tool", "builtin_tools", "js_tool", "memory_tools",
           "vector_tool"]

TOOL_EXTRAS = {"search.vector": "vector", "js.exec": "js"}
"""Builtin tools that need an optional extra; without it the tool is absent."""
_DISTRIBUTIONS = {"py_mini_racer": "mini-racer"}
"""Packages whose pip name is not their import name."""


def absent_tool(name: str) -> str | None:
    """Why the builtin tool ``name`` is absent here (one line naming the extra), or None."""
    extra = TOOL_EXTRAS.get(name)
    package = missing_package(extra) if extra is not None else None
    if extra is None or package is None:
        return None
    package = _DISTRIBUTIONS.get(package, package)
    return f"{name} needs the {package} package: pip install 'autobyteus-like[{extra}]'"


def _optional_tools() -> list[ToolDefinition]:
    found: list[ToolDefinition] = []
    if missing_package("vector") is None:
        found.append(vector_tool())
    if missing_package("js") is None:
        found.append(js_tool())
    return found


def builtin_tools() -> ToolRegistry:
    """A fresh registry with every builtin tool, by its seed-001 name (``fs.read``, ...);
    ``search.vector`` and ``js.exec`` only where their extras are installed."""
    return ToolRegistry([*fs_tools(), search_tool(), *_optional_tools(), *process_tools(),
                         *memory_tools()])
