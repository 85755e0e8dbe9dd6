"""The builtin tools: files, search, commands and Python, all inside the agent's sandbox."""

from autobyteus_like.tools.builtin.fs_tools import fs_tools
from autobyteus_like.tools.builtin.process_tools import process_tools
from autobyteus_like.tools.builtin.search_tool import search_tool
from autobyteus_like.tools.registry import ToolRegistry

__all__ = ["builtin_tools"]


def builtin_tools() -> ToolRegistry:
    """A fresh registry with every builtin tool, by its seed-001 name (``fs.read``, ...)."""
    return ToolRegistry([*fs_tools(), search_tool(), *process_tools()])
