"""The ``fs.*`` tools (seed 001): every path is walked beneath a sandbox root by descriptors
(``tools/_sandbox_root.py``) and every file is used through the descriptor that walk opened
(``tools/_sandbox_files.py``), so a symlink, a swapped component, a hard link, a FIFO or a
device cannot take a call outside its root or block it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime

from pydantic import BaseModel, Field

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox import SandboxPolicy
from autobyteus_like.tools._sandbox_copy import copy_path
from autobyteus_like.tools._sandbox_files import (
    check_regular,
    open_for_appending,
    open_for_reading,
    open_for_update,
    open_for_writing,
    read_at_most,
    read_lines,
    replace_content,
    write_all,
)
from autobyteus_like.tools._sandbox_root import RootedPath, refusal
from autobyteus_like.tools._sandbox_tree import list_sorted, open_directory
from autobyteus_like.tools.builtin._unified_diff import PatchError, apply_unified_diff

__all__ = ["fs_tools"]


class LineRange(BaseModel):
    """Lines ``start`` to ``end`` inclusive, counted from 1."""

    start: int = Field(ge=1)
    end: int = Field(ge=1)


def _over_write_limit(size: int, sandbox: SandboxPolicy, what: str) -> ToolFailure:
    return ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                       f"{what} {size} bytes, over the {sandbox.max_write_bytes}-byte write limit",
                       suggestion="keep files under the limit; split the content across files")


def _write(sandbox: SandboxPolicy, path: str, data: bytes, *, append: bool) -> str:
    """Write (or append) ``data`` at ``path``; where it went, as shown to the LLM."""
    if len(data) > sandbox.max_write_bytes:
        raise _over_write_limit(len(data), sandbox, "the content is")
    opener = open_for_appending if append else open_for_writing
    with sandbox.open(path, create_root=True) as target:
        opened = target.walk(opener, make_parents=True)
        descriptor = opened.value
        try:
            status = check_regular(descriptor, opened.shown,
                                   allow_hardlinks=sandbox.allow_hardlinks)
            if append and status.st_size + len(data) > sandbox.max_write_bytes:
                raise _over_write_limit(status.st_size + len(data), sandbox,
                                        f"appending would make {opened.shown!r}")
            if append:
                write_all(descriptor, data)
            else:
                replace_content(descriptor, data)
        except OSError as exc:
            raise refusal(exc, opened.shown) from None
        finally:
            os.close(descriptor)
    return opened.shown


def _entry_type(directory: RootedPath, entry: os.DirEntry[str], mode: int) -> str:
    """``directory`` or ``file``; a symlink counts as what it leads to beneath the root."""
    if stat.S_ISDIR(mode):
        return "directory"
    if not stat.S_ISLNK(mode):
        return "file"
    link = directory.child((*directory.parts, entry.name), entry.name)
    try:
        reached = link.walk(open_directory)
    except ToolFailure:
        return "file"  # leads out, nowhere, or to a file
    os.close(reached.value)
    return "directory"


def _with_file(ctx: ToolContext, path: str, opener: Callable[[int, str], int],
               use: Callable[[int, os.stat_result, str], dict[str, object]],
               hint: str = "") -> dict[str, object]:
    """Open ``path`` with ``opener`` beneath its root, check it is a regular file, and hand
    the descriptor to ``use``."""
    with ctx.sandbox.open(path) as target:
        opened = target.walk(opener)
        try:
            status = check_regular(opened.value, opened.shown,
                                   allow_hardlinks=ctx.sandbox.allow_hardlinks,
                                   directory_hint=hint)
            return use(opened.value, status, opened.shown)
        except OSError as exc:
            raise refusal(exc, opened.shown) from None
        finally:
            os.close(opened.value)


def _make_directory(directory: int, name: str) -> int:
    """Final opener of fs.mkdir: the directory, made if missing (a link is followed)."""
    # Already there, or a link: then the open below fails and the walk follows the link.
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o755, dir_fd=directory)
    return os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                   dir_fd=directory)


def fs_tools() -> list[ToolDefinition]:
    """Fresh definitions of the file-system tools."""

    @tool(name="fs.ls", category="fs")
    def ls(path: str, ctx: ToolContext) -> list[dict[str, object]]:
        """List a directory's entries with their type, size and modification time.

        Args:
            path: The directory to list.
        """
        with ctx.sandbox.open(path) as target:
            opened = target.walk(open_directory)
            here = target.child(opened.parts, opened.shown)
            entries: list[dict[str, object]] = []
            try:
                for entry in list_sorted(opened.value):
                    try:
                        status = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue  # removed since it was listed
                    entries.append({
                        "name": entry.name,
                        "type": _entry_type(here, entry, status.st_mode),
                        "size": status.st_size,
                        "modified": datetime.fromtimestamp(status.st_mtime, UTC).isoformat(),
                    })
            except OSError as exc:
                raise refusal(exc, opened.shown) from None
            finally:
                os.close(opened.value)
        return entries

    @tool(name="fs.read", category="fs")
    def read(path: str, ctx: ToolContext, range: LineRange | None = None) -> dict[str, object]:
        """Read a text file, whole or a range of lines.

        Args:
            path: The file to read.
            range: Only these lines (1-indexed, inclusive).
        """
        if range is not None and range.end < range.start:
            raise ToolFailure(ErrorCode.INVALID_ARGS, "range.end is before range.start")
        limit = ctx.sandbox.max_read_bytes

        def use(descriptor: int, status: os.stat_result, shown: str) -> dict[str, object]:
            if range is None and status.st_size > limit:
                raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                                  f"{shown!r} is {status.st_size} bytes, over the {limit}-byte "
                                  "read limit", suggestion="read a range of lines")
            window = read_lines(descriptor, range.start if range else 1,
                                range.end if range else None, limit)
            return {"content": window.content.decode("utf-8", errors="replace"),
                    "lines": window.lines, "truncated": window.truncated,
                    "file_lines_read": window.lines_read}

        return _with_file(ctx, path, open_for_reading, use, hint="; use fs.ls")

    @tool(name="fs.write", category="fs")
    def write(path: str, content: str, ctx: ToolContext) -> dict[str, object]:
        """Write or overwrite a text file (prefer fs.append or fs.patch when they fit).

        Args:
            path: The file to write.
            content: The whole new content.
        """
        data = content.encode("utf-8")
        return {"path": _write(ctx.sandbox, path, data, append=False), "bytes": len(data)}

    @tool(name="fs.append", category="fs")
    def append(path: str, text: str, ctx: ToolContext) -> dict[str, object]:
        """Append text to a file, creating it if missing.

        Args:
            path: The file to append to.
            text: The text to add at the end.
        """
        data = text.encode("utf-8")
        return {"path": _write(ctx.sandbox, path, data, append=True), "bytes": len(data)}

    @tool(name="fs.patch", category="fs")
    def patch(path: str, diff: str, ctx: ToolContext) -> dict[str, object]:
        """Apply a unified diff to a file; every context line must match.

        Args:
            path: The file to change.
            diff: The change, in unified diff format.
        """
        sandbox = ctx.sandbox

        def use(descriptor: int, status: os.stat_result, shown: str) -> dict[str, object]:
            data = read_at_most(descriptor, sandbox.max_read_bytes)
            if data is None:
                raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                                  f"{shown!r} is over the {sandbox.max_read_bytes}-byte read "
                                  "limit", suggestion="write the file in smaller pieces")
            try:
                updated, hunks = apply_unified_diff(data.decode("utf-8"), diff)
            except UnicodeDecodeError as exc:
                raise ToolFailure(ErrorCode.INVALID_ARGS,
                                  f"{shown!r} is not UTF-8 text (byte {exc.start})") from None
            except PatchError as exc:
                raise ToolFailure(ErrorCode.INVALID_ARGS, str(exc),
                                  suggestion="read the file again and rebuild the diff") from None
            encoded = updated.encode("utf-8")
            if len(encoded) > sandbox.max_write_bytes:
                raise _over_write_limit(len(encoded), sandbox, "the patched file would be")
            replace_content(descriptor, encoded)
            return {"path": shown, "hunks": hunks}

        return _with_file(ctx, path, open_for_update, use)

    @tool(name="fs.mkdir", category="fs")
    def mkdir(path: str, ctx: ToolContext) -> dict[str, object]:
        """Create a directory and its parents.

        Args:
            path: The directory to create.
        """
        with ctx.sandbox.open(path, create_root=True) as target:
            made = target.walk(_make_directory, make_parents=True)
            os.close(made.value)
        return {"path": made.shown}

    @tool(name="fs.copy", category="fs")
    def copy(src: str, dst: str, ctx: ToolContext) -> dict[str, object]:
        """Copy a file or a directory tree (symbolic links in a tree are skipped and listed
        under ``skipped``).

        Args:
            src: What to copy.
            dst: Where the copy goes: a new path, an existing file to overwrite, or an existing
                directory to copy a file into (must not exist yet for a directory).
        """
        sandbox = ctx.sandbox
        with sandbox.open(src, argument="src") as source, \
                sandbox.open(dst, argument="dst", create_root=True) as target:
            return copy_path(source, target, max_bytes=sandbox.max_write_bytes,
                             allow_hardlinks=sandbox.allow_hardlinks)

    return [ls, read, write, append, patch, mkdir, copy]
