"""Copying a file or a directory tree beneath sandbox roots, by descriptors only.

A file is copied into an existing directory as ``dst/<name>``, or onto ``dst``; either target
is reached through the sandbox walk, so a symlink there is followed only while it stays beneath
the root, and the copy checks the target's descriptor (regular, not hard-linked, not the source
itself) before truncating it. A tree is planned first (sizes, hard links, what is skipped) and
refused whole if it breaks a limit; then every directory is made with ``mkdirat`` and every
file created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` in a destination that did not exist. No
symlink is ever created: links (and FIFOs, sockets, devices) in the tree are skipped and
reported.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox_files import (
    CHUNK,
    check_regular,
    describe_kind,
    open_for_reading,
    open_for_writing,
    write_all,
)
from autobyteus_like.tools._sandbox_root import RootedPath, refusal
from autobyteus_like.tools._sandbox_tree import open_directory, walk_tree

__all__ = ["copy_path"]

_PLACE = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY
             | os.O_CLOEXEC)


@dataclass
class _Plan:
    """What a tree copy will do: directories in walk order (parents first), each with the
    regular files to copy; what it leaves out; how many bytes it writes."""

    folders: list[tuple[tuple[str, ...], list[str]]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    size: int = 0


def copy_path(source: RootedPath, target: RootedPath, *, max_bytes: int,
              allow_hardlinks: bool) -> dict[str, object]:
    """Copy ``source`` (a file or a directory) to ``target``; the tool's result."""
    opened = source.walk(open_for_reading)
    descriptor, shown = opened.value, opened.shown
    try:
        if stat.S_ISDIR(os.fstat(descriptor).st_mode):
            return _copy_tree(descriptor, shown, target, max_bytes=max_bytes,
                              allow_hardlinks=allow_hardlinks)
        status = check_regular(descriptor, shown, allow_hardlinks=allow_hardlinks)
        name = opened.parts[-1] if opened.parts else "."
        return _copy_file(descriptor, status, shown, name, target, max_bytes=max_bytes,
                          allow_hardlinks=allow_hardlinks)
    except OSError as exc:
        raise refusal(exc, shown, "src") from None
    finally:
        os.close(descriptor)


def _mode_of(directory: int, name: str) -> int:
    """Final opener that only looks: the file type, a symlink followed."""
    descriptor = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=directory)
    try:
        mode = os.fstat(descriptor).st_mode
    finally:
        os.close(descriptor)
    if stat.S_ISLNK(mode):
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
    return mode


def _copy_file(source: int, status: os.stat_result, shown: str, name: str, target: RootedPath,
               *, max_bytes: int, allow_hardlinks: bool) -> dict[str, object]:
    if status.st_size > max_bytes:
        raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                          f"copying {status.st_size} bytes is over the {max_bytes}-byte write "
                          "limit")
    probe = target.walk(_mode_of, lenient=True)
    if not probe.missing and stat.S_ISDIR(probe.value):  # into the directory, as dst/<name>
        parts = (*probe.parts, name)
        target = target.child(parts, "/".join(parts))
    opened = target.walk(open_for_writing, make_parents=True)
    try:
        into = check_regular(opened.value, opened.shown, allow_hardlinks=allow_hardlinks)
        if (into.st_dev, into.st_ino) == (status.st_dev, status.st_ino):
            raise ToolFailure(ErrorCode.INVALID_ARGS,
                              f"src {shown!r} and dst {opened.shown!r} are the same file")
        os.ftruncate(opened.value, 0)
        copied = _copy_bytes(source, opened.value, status, max_bytes, opened.shown)
    except OSError as exc:
        raise refusal(exc, opened.shown, "dst") from None
    finally:
        os.close(opened.value)
    return {"src": shown, "dst": opened.shown, "bytes": copied, "skipped": []}


def _copy_bytes(source: int, target: int, status: os.stat_result, budget: int,
                shown: str) -> int:
    """Copy the rest of ``source`` into ``target`` (at most ``budget`` bytes), then its
    permission bits and times."""
    copied = 0
    while chunk := os.read(source, CHUNK):
        copied += len(chunk)
        if copied > budget:
            raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                              f"the source grew past the {budget}-byte write limit while being "
                              f"copied; {shown!r} is incomplete")
        write_all(target, chunk)
    os.fchmod(target, stat.S_IMODE(status.st_mode) & 0o777)
    os.utime(target, ns=(status.st_atime_ns, status.st_mtime_ns))
    return copied


def _plan(top: int, shown: str, *, max_bytes: int, allow_hardlinks: bool) -> _Plan:
    plan = _Plan()
    prefix = "" if shown == "." else shown + "/"
    for folder in walk_tree(top, strict=True):
        files: list[str] = []
        for entry in folder.entries:
            where = prefix + "/".join((*folder.parts, entry.name))
            status = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(status.st_mode):
                continue  # the walk comes to it
            if not stat.S_ISREG(status.st_mode):
                plan.skipped.append({"path": where, "reason": describe_kind(status.st_mode)})
                continue
            if status.st_nlink > 1 and not allow_hardlinks:
                raise ToolFailure(ErrorCode.PERMISSION_DENIED,
                                  f"{where!r} has {status.st_nlink} hard links; its other names "
                                  "may lie outside the allowed directories, so the copy is "
                                  "refused", suggestion="copy the other files one by one")
            plan.size += status.st_size
            files.append(entry.name)
        plan.folders.append((folder.parts, files))
    if plan.size > max_bytes:
        raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                          f"copying {plan.size} bytes is over the {max_bytes}-byte write limit")
    return plan


def _make_new_directory(directory: int, name: str) -> int:
    os.mkdir(name, 0o755, dir_fd=directory)
    return os.open(name, _PLACE, dir_fd=directory)


def _copy_tree(top: int, shown: str, target: RootedPath, *, max_bytes: int,
               allow_hardlinks: bool) -> dict[str, object]:
    try:
        plan = _plan(top, shown, max_bytes=max_bytes, allow_hardlinks=allow_hardlinks)
    except OSError as exc:
        raise refusal(exc, shown, "src") from None
    made = target.walk(_make_new_directory, make_parents=True)
    # Each stack holds (name, descriptor) for the directory being copied and its ancestors.
    sources: list[tuple[str, int]] = [("", top)]
    targets: list[tuple[str, int]] = [("", made.value)]
    budget = max_bytes
    where = made.shown
    try:
        for parts, files in plan.folders:
            keep = _shared_prefix([name for name, _ in sources[1:]], parts)
            while len(sources) > keep + 1:
                os.close(sources.pop()[1])
                os.close(targets.pop()[1])
            for name in parts[keep:]:
                where = "/".join((made.shown, *parts))
                sources.append((name, open_directory(sources[-1][1], name)))
                targets.append((name, _make_new_directory(targets[-1][1], name)))
            for name in files:
                where = "/".join((made.shown, *parts, name))
                budget -= _copy_one(sources[-1][1], targets[-1][1], name, where, budget,
                                    allow_hardlinks)
    except OSError as exc:
        raise refusal(exc, where, "dst") from None
    finally:
        for _, descriptor in sources[1:] + targets:
            os.close(descriptor)
    return {"src": shown, "dst": made.shown, "bytes": max_bytes - budget,
            "skipped": plan.skipped}


def _shared_prefix(left: list[str], right: tuple[str, ...]) -> int:
    count = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        count += 1
    return count


def _copy_one(source_dir: int, target_dir: int, name: str, where: str, budget: int,
              allow_hardlinks: bool) -> int:
    source = open_for_reading(source_dir, name)
    try:
        status = check_regular(source, where, allow_hardlinks=allow_hardlinks)
        target = os.open(name, _NEW_FILE, 0o600, dir_fd=target_dir)
        try:
            return _copy_bytes(source, target, status, budget, where)
        finally:
            os.close(target)
    finally:
        os.close(source)
