"""``search.lexical``: regex search over the files of a sandboxed directory tree.

The pattern is an LLM's, so it runs on RE2 (``google-re2``), whose matching time is linear in
the text: a pattern such as ``(a+)+$`` cannot freeze the process the way Python's backtracking
``re`` does (it holds the GIL, so every thread would stop). The tree is walked by descriptors
beneath the sandbox root (``tools/_sandbox_tree.py``): symlinked directories are not entered,
a symlinked file is searched only where its resolution stays beneath the root, and FIFOs,
sockets, devices, hard-linked files (unless allowed) and files over the read limit are skipped.

What it returns is bounded too: at most ``MAX_RESULTS`` matches, lines cut at
``MAX_LINE_CHARS`` characters, and the whole result within the sandbox's ``max_output_bytes``
(a last entry says where and why it stopped), so one call can neither flood the LLM nor exhaust
the process's memory.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Iterator
from typing import Any

import re2

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox import SandboxPolicy
from autobyteus_like.tools._sandbox_files import open_for_reading, read_at_most
from autobyteus_like.tools._sandbox_root import RootedPath, refusal
from autobyteus_like.tools._sandbox_tree import open_directory, walk_tree

__all__ = ["MAX_LINE_CHARS", "MAX_RESULTS", "LineMatcher", "compile_query", "search_tool"]

MAX_RESULTS = 1000
MAX_LINE_CHARS = 500

_LOOKAROUND = ("invalid perl operator: (?=", "invalid perl operator: (?!",
               "invalid perl operator: (?<=", "invalid perl operator: (?<!")
_BACKREFERENCE = re.compile(r"invalid escape sequence: \\[1-9]")  # the message, not a query


def compile_query(query: str, *, never_nl: bool = False) -> Any:
    """The query compiled by RE2, or INVALID_ARGS that says what is wrong with it."""
    options = re2.Options()
    options.log_errors = False  # RE2 would print every bad pattern to stderr
    options.never_nl = never_nl
    options.never_capture = True  # only where matches are is needed: no slow capture search
    try:
        return re2.compile(query, options)
    except UnicodeEncodeError:
        raise ToolFailure(ErrorCode.INVALID_ARGS,
                          "query holds text that is not valid Unicode (a lone surrogate)",
                          suggestion="search for ordinary characters") from None
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


_LINE_BOUND = re.compile(r"\\[AzC]|\(\?[a-zA-Z]*-")
"""Query parts whose meaning changes when the whole text is scanned in multi-line mode: the
text's own ends, any byte, and flag groups that could turn multi-line mode off."""


class LineMatcher:
    """Finds the lines of a text that a query matches, each line matched on its own (so ``^``
    and ``$`` are its ends), in time linear in the text.

    One scan of the whole text finds candidate lines: in multi-line mode ``^`` and ``$`` match
    at line ends, and RE2's ``never_nl`` keeps every match within one line, so a line matches
    exactly when the scan finds a match in it; each candidate is still confirmed on its own.
    Queries for which that does not hold are matched line by line.
    """

    def __init__(self, query: str) -> None:
        self._line = compile_query(query)
        self._scan = (None if _LINE_BOUND.search(query)
                      else compile_query("(?m)" + query, never_nl=True))

    def lines(self, data: bytes) -> Iterator[tuple[int, int, int]]:
        """(number, start, end) of each matching line of ``data``, whose lines end at ``\n``
        (the empty text after a final newline is not a line)."""
        last = len(data) - 1 if not data or data.endswith(b"\n") else len(data)
        position, counted, number = 0, 0, 1
        while position <= last:
            if self._scan is None:
                start = position
            else:
                found = self._scan.search(data, position)
                if found is None or found.start() > last:
                    return
                start = data.rfind(b"\n", 0, found.start()) + 1
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            number += data.count(b"\n", counted, start)
            counted = start
            if self._line.search(data[start:end]) is not None:
                yield number, start, end
            position = end + 1


def _context(data: bytes, start: int, end: int, around: int) -> list[str]:
    """The line at ``start``..``end`` with up to ``around`` lines before and after it."""
    before: list[bytes] = []
    first = start
    while len(before) < around and first > 0:
        previous = data.rfind(b"\n", 0, first - 1) + 1
        before.append(data[previous:first - 1])
        first = previous
    after: list[bytes] = []
    last = end
    while len(after) < around and last < len(data) - 1:
        following = data.find(b"\n", last + 1)
        following = len(data) if following < 0 else following
        after.append(data[last + 1:following])
        last = following
    return [_text(line) for line in (*reversed(before), data[start:end], *after)]


def _text(line: bytes) -> str:
    text = line[: MAX_LINE_CHARS * 4].decode("utf-8", errors="replace")
    if len(text) > MAX_LINE_CHARS:
        return text[:MAX_LINE_CHARS] + f"… [line cut at {MAX_LINE_CHARS} characters]"
    return text


def _file_data(descriptor: int, sandbox: SandboxPolicy) -> bytes | None:
    """The file's bytes with ``\r\n`` line ends made ``\n``, or None if it is not a regular
    file the policy lets us read whole, or looks binary."""
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
    return data.replace(b"\r\n", b"\n")


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


def _size(match: dict[str, object]) -> int:
    """About how many bytes a match adds to the result."""
    lines = [str(match["content"]), *match["context"]]  # type: ignore[misc]
    return len(str(match["path"])) + 40 + sum(len(line.encode("utf-8", "replace"))
                                              for line in lines)


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
            max_results: Stop after this many matches (at most 1000).
        """
        matcher = LineMatcher(query)
        around = max(0, min(context, 20))
        wanted = max(1, min(max_results, MAX_RESULTS))
        budget = ctx.sandbox.max_output_bytes
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
                            data = _file_data(descriptor, ctx.sandbox)
                        finally:
                            os.close(descriptor)
                        if data is None:
                            continue
                        for number, start, end in matcher.lines(data):
                            match: dict[str, object] = {
                                "path": shown, "line": number, "content": _text(data[start:end]),
                                "context": _context(data, start, end, around)}
                            budget -= _size(match)
                            if budget < 0:
                                found.append({"truncated": f"stopped after {len(found)} matches: "
                                              "the results reached the output limit "
                                              f"({ctx.sandbox.max_output_bytes} bytes); narrow "
                                              "the query, the scope or the glob"})
                                return found
                            found.append(match)
                            if len(found) >= wanted:
                                return found
            except OSError as exc:
                raise refusal(exc, opened.shown, "scope") from None
            finally:
                os.close(opened.value)
        return found

    return lexical
