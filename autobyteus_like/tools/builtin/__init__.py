"""The builtin tools: files, search, commands and Python, all inside the agent's sandbox."""

from autobyteus_like.tools._registry import ToolRegistry
from autobyteus_like.tools.builtin._fs import fs_tools
from autobyteus_like.tools.builtin._process import process_tools
from autobyteus_like.tools.builtin._search import search_tool

__all__ = ["builtin_tools"]


def builtin_tools() -> ToolRegistry:
    """A fresh registry with every builtin tool, by its seed-001 name (``fs.read``, ...)."""
    return ToolRegistry([*fs_tools(), search_tool(), *process_tools()])
