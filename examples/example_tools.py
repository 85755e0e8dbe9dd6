"""Tools for the example teams: an in-memory workspace, so the examples touch no real files.

``make_tools()`` returns a fresh registry (and workspace) each time; the CLI loads it with
``--tools examples/example_tools.py:make_tools``.
"""

from __future__ import annotations

from autobyteus_like import ErrorCode, ToolRegistry, tool
from autobyteus_like.tools import ToolFailure


def make_tools() -> ToolRegistry:
    """A registry of example tools sharing one in-memory workspace."""
    files: dict[str, str] = {}

    @tool(requires_approval=True, category="workspace")
    def write_file(path: str, content: str) -> str:
        """Write a text file in the workspace (asks for approval).

        Args:
            path: File path inside the workspace.
            content: The whole text of the file.
        """
        files[path] = content
        return f"wrote {len(content)} characters to {path}"

    @tool(category="workspace")
    def read_file(path: str) -> str:
        """Read a text file from the workspace.

        Args:
            path: File path inside the workspace.
        """
        if path not in files:
            known = ", ".join(sorted(files)) or "none yet"
            raise ToolFailure(ErrorCode.NOT_FOUND, f"no file {path!r} in the workspace",
                              suggestion=f"files: {known}")
        return files[path]

    @tool
    def word_count(texts: list[str]) -> list[int]:
        """Count the words of each text.

        Args:
            texts: The texts to measure.
        """
        return [len(text.split()) for text in texts]

    @tool
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: The first number.
            b: The second number.
        """
        return a + b

    return ToolRegistry([write_file, read_file, word_count, add])
