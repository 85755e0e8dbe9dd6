"""``search.lexical``: regex search over the files of a sandboxed directory tree.

The pattern is an LLM's, so it runs on RE2 (``google-re2``), whose matching time is linear in
the text: a pattern such as ``(a+)+$`` cannot freeze the process the way Python's backtracking
``re`` does (it holds the GIL, so every thread would stop). The tree is walked by descriptors
beneath the sandbox root (``tools/sandbox_tree.py``): symlinked directories are not entered,
a symlinked file is searched only where its resolution stays beneath the root, and FIFOs,
sockets, devices, hard-linked files (unless allowed) and files over the read limit are skipped.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from typing import Any

import re2

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools.context import ToolContext
from autobyteus_like.tools.decorator import tool
from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.invocation import ErrorCode
from autobyteus_like.tools.sandbox import SandboxPolicy
from autobyteus_like.tools.sandbox_files import open_for_reading, read_at_most
from autobyteus_like.tools.sandbox_root import RootedPath, refusal
from autobyteus_like.tools.sandbox_tree import open_directory, walk_tree

__all__ = ["compile_query", "search_tool"]

_LOOKAROUND = ("invalid perl operator: (?=", "invalid perl operator: (?!",
               "invalid perl operator: (?<=", "invalid perl operator: (?<!")
_BACKREFERENCE = re.compile(r"invalid escape sequence: \\[1-9]")  # the message, not a query


def compile_query(query: str) -> Any:
    """The query compiled by RE2, or INVALID_ARGS that says what is wrong with it."""
    options = re2.Options()
    options.log_errors = False  # RE2 would print every bad pattern to stderr
    try:
        return re2.compile(query, options)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else exc
        reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    feature = ("lookaround" if reason.startswith(_LOOKAROUND)
               else "backreferences" if _BACKREFERENCE.match(reason) else None)
    if feature is not None:
        raise ToolFailure(
            ErrorCode.INVALID_ARGS,
            f"query uses {feature} ({reason}), which this search does not support: it runs on "
            "RE2, which matches in linear time and has no lookaround or backreferences",
            suggestion="rewrite the pattern without them, or search more broadly and read the "
                       "matching files")
    hint = " (RE2 writes the end of the text as \\z)" if "\\Z" in reason else ""
    raise ToolFailure(ErrorCode.INVALID_ARGS,
                      f"query is not a valid regular expression: {reason}{hint}",
                      suggestion="use RE2 syntax: Python's, without lookaround or "
                                 "backreferences")


def _file_text(descriptor: int, sandbox: SandboxPolicy) -> str | None:
    """The file's text, or None if it is not a regular file the policy lets us read whole,
    or looks binary."""
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        return None
    if status.st_nlink > 1 and not sandbox.allow_hardlinks:
        return None
    if status.st_size > sandbox.max_read_bytes:
        return None
    data = read_at_most(descriptor, sandbox.max_read_bytes)
    if data is None or b"\x00" in data[:8192]:
        return None  # grew past the limit, or binary
    return data.decode("utf-8", errors="replace")


def _open_entry(scope: RootedPath, parts: tuple[str, ...], folder: int,
                entry: os.DirEntry[str]) -> int | None:
    """A descriptor for a file entry, or None to skip it. A symlink is resolved from the
    root, beneath it; anything else is opened right in its directory."""
    try:
        if entry.is_symlink():
            link = scope.child((*scope.parts, *parts, entry.name), entry.name)
            return link.walk(open_for_reading).value
        if entry.is_file(follow_symlinks=False):
            return open_for_reading(folder, entry.name)
    except (OSError, ToolFailure):
        pass  # vanished, leads out, or cannot be opened: not searchable
    return None


def search_tool() -> ToolDefinition:
    """A fresh definition of ``search.lexical``."""

    @tool(name="search.lexical", category="search")
    def lexical(
        query: str, ctx: ToolContext, scope: str = ".", glob: str = "*", context: int = 2,
        max_results: int = 100,
    ) -> list[dict[str, object]]:
        """Find lines matching a regular expression, with surrounding lines.

        Args:
            query: A regular expression in RE2 syntax (Python's, without lookaround or
                backreferences); it is matched against each line.
            scope: The directory to search in.
            glob: Only files whose name or relative path matches this pattern (e.g. '*.md').
            context: How many lines to show before and after each match.
            max_results: Stop after this many matches.
        """
        pattern = compile_query(query)
        around = max(0, min(context, 20))
        found: list[dict[str, object]] = []
        with ctx.sandbox.open(scope, argument="scope") as target:
            opened = target.walk(open_directory)
            base = target.child(opened.parts, opened.shown)
            prefix = "" if opened.shown == "." else opened.shown + "/"
            try:
                for folder in walk_tree(opened.value, strict=False):
                    for entry in folder.entries:
                        shown = prefix + "/".join((*folder.parts, entry.name))
                        if not (fnmatch.fnmatch(entry.name, glob) or fnmatch.fnmatch(shown, glob)):
                            continue
                        descriptor = _open_entry(base, folder.parts, folder.fd, entry)
                        if descriptor is None:
                            continue
                        try:
                            text = _file_text(descriptor, ctx.sandbox)
                        finally:
                            os.close(descriptor)
                        if text is None:
                            continue
                        _search_text(pattern, text, shown, around, found, max_results)
                        if len(found) >= max_results:
                            return found
            except OSError as exc:
                raise refusal(exc, opened.shown, "scope") from None
            finally:
                os.close(opened.value)
        return found

    return lexical


def _search_text(pattern: Any, text: str, shown: str, around: int,
                 found: list[dict[str, object]], max_results: int) -> None:
    """Append the matching lines of ``text`` (split at ``\\n``, as fs.read counts them)."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()  # the empty text after a final newline is not a line
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    for index, line in enumerate(lines):
        if pattern.search(line):
            found.append({"path": shown, "line": index + 1, "content": line,
                          "context": lines[max(0, index - around): index + around + 1]})
            if len(found) >= max_results:
                return
