"""Regular files through the sandbox: final openers for ``SandboxRoot.walk`` and bounded reads
and writes on the descriptors they return.

Files are opened with ``O_NONBLOCK | O_NOFOLLOW | O_NOCTTY`` so that a FIFO, a device or a
symlink swapped in at the last moment can neither block nor redirect the call, and every check
is made on the open descriptor (``fstat``), never on a name: only regular files are used, and a
file with other hard links (which may lie outside every root) only where the policy allows it.
Writes never truncate before those checks; reads never hold much more than their limit.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox_root import refusal

__all__ = [
    "LineWindow",
    "check_regular",
    "describe_kind",
    "open_for_appending",
    "open_for_reading",
    "open_for_update",
    "open_for_writing",
    "read_at_most",
    "read_lines",
    "replace_content",
    "write_all",
]

_COMMON = os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
CHUNK = 64 * 1024
"""Bytes read per system call: small against any read limit, large enough to be cheap."""


def open_for_reading(directory: int, name: str) -> int:
    """Final opener: read only."""
    return os.open(name, os.O_RDONLY | _COMMON, dir_fd=directory)


def open_for_writing(directory: int, name: str) -> int:
    """Final opener: write, creating the file if missing; never truncates (see
    ``replace_content``)."""
    return os.open(name, os.O_WRONLY | os.O_CREAT | _COMMON, 0o644, dir_fd=directory)


def open_for_appending(directory: int, name: str) -> int:
    """Final opener: append, creating the file if missing."""
    return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _COMMON, 0o644,
                   dir_fd=directory)


def open_for_update(directory: int, name: str) -> int:
    """Final opener: read and write an existing file."""
    return os.open(name, os.O_RDWR | _COMMON, dir_fd=directory)


def describe_kind(mode: int) -> str:
    """A file type in words, for messages."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def check_regular(descriptor: int, shown: str, *, allow_hardlinks: bool,
                  directory_hint: str = "") -> os.stat_result:
    """The descriptor's status, or a ToolFailure if it is not a regular file, or has other
    hard links the policy does not allow. The caller still owns (and closes) the descriptor."""
    try:
        status = os.fstat(descriptor)
    except OSError as exc:
        raise refusal(exc, shown) from None
    if stat.S_ISDIR(status.st_mode):
        raise ToolFailure(ErrorCode.INVALID_ARGS, f"{shown!r} is a directory{directory_hint}")
    if not stat.S_ISREG(status.st_mode):
        raise ToolFailure(ErrorCode.INVALID_ARGS,
                          f"{shown!r} is {describe_kind(status.st_mode)}, not a regular file",
                          suggestion="only regular files can be read or written")
    if status.st_nlink > 1 and not allow_hardlinks:
        raise ToolFailure(
            ErrorCode.PERMISSION_DENIED,
            f"{shown!r} has {status.st_nlink} hard links; its other names may lie outside the "
            "allowed directories, so it is refused",
            suggestion="hard-linked files are used only where the sandbox sets allow_hardlinks")
    return status


def read_at_most(descriptor: int, limit: int) -> bytes | None:
    """The whole content, or None if it is longer than ``limit`` bytes (reads at most
    ``limit + 1`` bytes, whatever the file's size says)."""
    chunks: list[bytes] = []
    wanted = limit + 1
    while wanted > 0:
        chunk = os.read(descriptor, min(CHUNK, wanted))
        if not chunk:
            break
        chunks.append(chunk)
        wanted -= len(chunk)
    return None if wanted <= 0 else b"".join(chunks)


@dataclass(frozen=True)
class LineWindow:
    """Lines ``start``..``end`` of a file, as bytes, whole lines only."""

    content: bytearray
    lines: int
    truncated: bool
    """True when the next line would have gone over the byte limit."""
    lines_read: int
    """How many lines of the file were looked at (the last one may be partial)."""


def read_lines(descriptor: int, start: int, end: int | None, limit: int) -> LineWindow:
    """Lines ``start`` to ``end`` (1-based, inclusive; ``end`` None: to the end), at most
    ``limit`` bytes of them; lines are split at ``\\n`` only.

    Streams the file in chunks: lines before ``start`` are counted, not kept, and the line
    being kept is dropped as soon as it goes over the limit, so memory stays near ``limit``
    whatever the file or its lines hold.
    """
    kept = bytearray()
    line = 1          # the number of the line the next byte belongs to
    line_start = 0    # where that line begins in ``kept``, if it is being kept
    truncated = past_end = mid_line = False
    while not (truncated or past_end):
        chunk = os.read(descriptor, CHUNK)
        if not chunk:
            break
        mid_line = not chunk.endswith(b"\n")
        position = 0
        if line < start:  # skip whole chunks of earlier lines without looking at each line
            newlines = chunk.count(b"\n")
            if line + newlines < start:
                line += newlines
                continue
            while line < start:
                position = chunk.index(b"\n", position) + 1
                line += 1
        while position < len(chunk):
            if end is not None and line > end:
                past_end = True
                break
            newline = chunk.find(b"\n", position)
            stop = len(chunk) if newline < 0 else newline + 1
            if len(kept) + stop - position > limit:
                truncated = True
                del kept[line_start:]
                break
            kept += chunk[position:stop]
            position = stop
            if newline >= 0:
                line += 1
                line_start = len(kept)
        past_end = past_end or (end is not None and line > end)
    # ``line`` counts a line that began; it was read only if bytes of it were seen.
    lines_read = line if (truncated or mid_line) and not past_end else line - 1
    whole = kept.count(b"\n") + (1 if len(kept) > line_start else 0)
    return LineWindow(kept, whole, truncated, lines_read)


def replace_content(descriptor: int, data: bytes) -> None:
    """Make ``data`` the file's whole content (the checks on the descriptor come first)."""
    os.ftruncate(descriptor, 0)
    os.lseek(descriptor, 0, os.SEEK_SET)
    write_all(descriptor, data)


def write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]
