"""The ``fs.*`` tools (seed 001): every path goes through the agent's sandbox first.

Writes open the resolved path with ``O_NOFOLLOW``, so a symlink swapped in after the check is
refused rather than followed.
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools.builtin.unified_diff import PatchError, apply_unified_diff
from autobyteus_like.tools.context import ToolContext
from autobyteus_like.tools.decorator import tool
from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.invocation import ErrorCode
from autobyteus_like.tools.sandbox import SandboxPolicy

__all__ = ["fs_tools"]


class LineRange(BaseModel):
    """Lines ``start`` to ``end`` inclusive, counted from 1."""

    start: int = Field(ge=1)
    end: int = Field(ge=1)


def _existing(sandbox: SandboxPolicy, path: str, argument: str = "path") -> Path:
    real = sandbox.resolve(path, argument=argument)
    if not real.exists():
        raise ToolFailure(ErrorCode.NOT_FOUND, f"{path!r} does not exist",
                          suggestion="list the directory with fs.ls to find the right path")
    return real


def _write(sandbox: SandboxPolicy, path: str, data: bytes, *, append: bool) -> Path:
    if len(data) > sandbox.max_write_bytes:
        raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                          f"{len(data)} bytes is over the {sandbox.max_write_bytes}-byte write "
                          "limit", suggestion="write smaller pieces with fs.append")
    real = sandbox.resolve(path)
    if real.is_dir():
        raise ToolFailure(ErrorCode.INVALID_ARGS, f"{path!r} is a directory")
    real.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_APPEND if append else os.O_TRUNC)
    try:
        descriptor = os.open(real, flags, 0o644)
    except OSError as exc:
        raise ToolFailure(ErrorCode.PERMISSION_DENIED, f"cannot write {path!r}: {exc.strerror}"
                          ) from None
    with os.fdopen(descriptor, "ab" if append else "wb") as handle:
        handle.write(data)
    return real


def fs_tools() -> list[ToolDefinition]:
    """Fresh definitions of the file-system tools."""

    @tool(name="fs.ls", category="fs")
    def ls(path: str, ctx: ToolContext) -> list[dict[str, object]]:
        """List a directory's entries with their type, size and modification time.

        Args:
            path: The directory to list.
        """
        real = _existing(ctx.sandbox, path)
        if not real.is_dir():
            raise ToolFailure(ErrorCode.INVALID_ARGS, f"{path!r} is not a directory")
        entries: list[dict[str, object]] = []
        for entry in sorted(real.iterdir(), key=lambda p: p.name):
            stat = entry.lstat()
            entries.append({
                "name": entry.name,
                "type": "directory" if entry.is_dir() else "file",
                "size": stat.st_size,
                "modified": datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(),
            })
        return entries

    @tool(name="fs.read", category="fs")
    def read(path: str, ctx: ToolContext, range: LineRange | None = None) -> dict[str, object]:
        """Read a text file, whole or a range of lines.

        Args:
            path: The file to read.
            range: Only these lines (1-indexed, inclusive).
        """
        real = _existing(ctx.sandbox, path)
        if real.is_dir():
            raise ToolFailure(ErrorCode.INVALID_ARGS, f"{path!r} is a directory; use fs.ls")
        limit = ctx.sandbox.max_read_bytes
        size = real.stat().st_size
        if range is None and size > limit:
            raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                              f"{path!r} is {size} bytes, over the {limit}-byte read limit",
                              suggestion="read a range of lines")
        if range is not None and range.end < range.start:
            raise ToolFailure(ErrorCode.INVALID_ARGS, "range.end is before range.start")
        kept: list[str] = []
        total, truncated, count = 0, False, 0
        with real.open("r", encoding="utf-8", errors="replace", newline="") as handle:
            for number, line in enumerate(handle, start=1):
                count = number
                if range is not None and not range.start <= number <= range.end:
                    if number > range.end:
                        break
                    continue
                total += len(line.encode("utf-8"))
                if total > limit:
                    truncated = True
                    break
                kept.append(line)
        return {"content": "".join(kept), "lines": len(kept), "truncated": truncated,
                "file_lines_read": count}

    @tool(name="fs.write", category="fs")
    def write(path: str, content: str, ctx: ToolContext) -> dict[str, object]:
        """Write or overwrite a text file (prefer fs.append or fs.patch when they fit).

        Args:
            path: The file to write.
            content: The whole new content.
        """
        real = _write(ctx.sandbox, path, content.encode("utf-8"), append=False)
        return {"path": ctx.sandbox.relative(real), "bytes": len(content.encode("utf-8"))}

    @tool(name="fs.append", category="fs")
    def append(path: str, text: str, ctx: ToolContext) -> dict[str, object]:
        """Append text to a file, creating it if missing.

        Args:
            path: The file to append to.
            text: The text to add at the end.
        """
        real = _write(ctx.sandbox, path, text.encode("utf-8"), append=True)
        return {"path": ctx.sandbox.relative(real), "bytes": len(text.encode("utf-8"))}

    @tool(name="fs.patch", category="fs")
    def patch(path: str, diff: str, ctx: ToolContext) -> dict[str, object]:
        """Apply a unified diff to a file; every context line must match.

        Args:
            path: The file to change.
            diff: The change, in unified diff format.
        """
        real = _existing(ctx.sandbox, path)
        try:
            updated, hunks = apply_unified_diff(real.read_text(encoding="utf-8"), diff)
        except PatchError as exc:
            raise ToolFailure(ErrorCode.INVALID_ARGS, str(exc),
                              suggestion="read the file again and rebuild the diff") from None
        _write(ctx.sandbox, path, updated.encode("utf-8"), append=False)
        return {"path": ctx.sandbox.relative(real), "hunks": hunks}

    @tool(name="fs.mkdir", category="fs")
    def mkdir(path: str, ctx: ToolContext) -> dict[str, object]:
        """Create a directory and its parents.

        Args:
            path: The directory to create.
        """
        real = ctx.sandbox.resolve(path)
        if real.exists() and not real.is_dir():
            raise ToolFailure(ErrorCode.INVALID_ARGS, f"{path!r} exists and is a file")
        real.mkdir(parents=True, exist_ok=True)
        return {"path": ctx.sandbox.relative(real)}

    @tool(name="fs.copy", category="fs")
    def copy(src: str, dst: str, ctx: ToolContext) -> dict[str, object]:
        """Copy a file or a directory tree.

        Args:
            src: What to copy.
            dst: Where the copy goes (must not exist yet for a directory).
        """
        source = _existing(ctx.sandbox, src, argument="src")
        target = ctx.sandbox.resolve(dst, argument="dst")
        files = [source] if source.is_file() else [p for p in source.rglob("*") if p.is_file()]
        size = sum(p.lstat().st_size for p in files)
        if size > ctx.sandbox.max_write_bytes:
            raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                              f"copying {size} bytes is over the {ctx.sandbox.max_write_bytes}-"
                              "byte write limit")
        if source.is_dir():
            if target.exists():
                raise ToolFailure(ErrorCode.INVALID_ARGS, f"{dst!r} already exists")
            shutil.copytree(source, target, symlinks=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
        return {"src": ctx.sandbox.relative(source), "dst": ctx.sandbox.relative(target),
                "bytes": size}

    return [ls, read, write, append, patch, mkdir, copy]
