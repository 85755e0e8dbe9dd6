"""``search.lexical``: regex search over the files of a sandboxed directory tree."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools.context import ToolContext
from autobyteus_like.tools.decorator import tool
from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.invocation import ErrorCode

__all__ = ["search_tool"]


def search_tool() -> ToolDefinition:
    """A fresh definition of ``search.lexical``."""

    @tool(name="search.lexical", category="search")
    def lexical(
        query: str, ctx: ToolContext, scope: str = ".", glob: str = "*", context: int = 2,
        max_results: int = 100,
    ) -> list[dict[str, object]]:
        """Find lines matching a regular expression, with surrounding lines.

        Args:
            query: A Python regular expression.
            scope: The directory to search in.
            glob: Only files whose name or relative path matches this pattern (e.g. '*.md').
            context: How many lines to show before and after each match.
            max_results: Stop after this many matches.
        """
        try:
            pattern = re.compile(query)
        except re.error as exc:
            raise ToolFailure(ErrorCode.INVALID_ARGS, f"query is not a valid regex: {exc}"
                              ) from None
        base = ctx.sandbox.resolve(scope, argument="scope")
        if not base.is_dir():
            raise ToolFailure(ErrorCode.NOT_FOUND, f"{scope!r} is not a directory")
        around = max(0, min(context, 20))
        found: list[dict[str, object]] = []
        for folder, dirs, files in os.walk(base):  # symlinked directories are not followed
            dirs.sort()
            for name in sorted(files):
                path = Path(folder) / name
                shown = ctx.sandbox.relative(path)
                if not (fnmatch.fnmatch(name, glob) or fnmatch.fnmatch(shown, glob)):
                    continue
                real = Path(os.path.realpath(path))
                inside = any(real.is_relative_to(root) for root in ctx.sandbox.roots)
                if not inside or real.stat().st_size > ctx.sandbox.max_read_bytes:
                    continue  # a link leading out, or a file too large to read
                data = real.read_bytes()
                if b"\x00" in data[:8192]:
                    continue  # binary
                lines = data.decode("utf-8", errors="replace").splitlines()
                for index, line in enumerate(lines):
                    if pattern.search(line):
                        found.append({
                            "path": shown, "line": index + 1, "content": line,
                            "context": lines[max(0, index - around): index + around + 1],
                        })
                        if len(found) >= max_results:
                            return found
        return found

    return lexical
