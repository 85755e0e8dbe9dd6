"""SandboxRoot: an open directory that paths are resolved beneath, one component at a time,
the way Go's ``os.Root`` and Linux ``openat2(RESOLVE_BENEATH)`` do.

Each step opens the next component relative to the descriptor of the directory before it,
with ``O_NOFOLLOW``; the final component is opened by a caller-supplied function that gets the
parent's descriptor and the name. A path is never turned back into a string and resolved
again, so swapping a component for a symlink between a check and a use has nothing to race
against. A symlink is followed by reading it and walking its target the same way (bounded by
``MAX_SYMLINKS``), so it is usable exactly while every step of its resolution stays beneath the
root; ``..`` never climbs above the root. An absolute link target is followed only when it
names a place beneath the root's own path, and then it is walked from the root descriptor.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Generic, TypeVar

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["MAX_DEPTH", "MAX_SYMLINKS", "Reached", "RootedPath", "SandboxRoot", "refusal"]

T = TypeVar("T")

MAX_SYMLINKS = 40
"""Links followed in one resolution (Linux's own limit)."""
MAX_DEPTH = 256
"""Components a path may have below its root; each directory on the way holds a descriptor
while it is walked."""
_RACE_RETRIES = 8
"""How often a component that looked like a link but is none any more is tried again."""
_DIRECTORY = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# What opening a symlink with O_NOFOLLOW reports: ELOOP for a plain open, ENOTDIR with
# O_DIRECTORY, EEXIST for mkdir or O_CREAT|O_EXCL.
_MAYBE_LINK = frozenset({errno.ELOOP, errno.ENOTDIR, errno.EEXIST})

Opener = Callable[[int, str], T]
"""Opens the final component: gets the parent directory's descriptor and the name (``"."`` when
the path ends at a directory). It raises ``OSError`` as ``os.open`` does; ELOOP, ENOTDIR or
EEXIST for a name that is a symlink make the walk follow the link."""


@dataclass(frozen=True)
class Reached(Generic[T]):
    """What the final opener returned and where that is: the components below the root with
    no link and no ``..`` left (the ``missing`` tail, for a lenient walk, does not exist)."""

    value: T
    parts: tuple[str, ...]
    missing: tuple[str, ...] = ()

    @property
    def shown(self) -> str:
        """The location as the LLM sees it: relative to its root."""
        return "/".join(self.parts + self.missing) or "."


def _components(text: str) -> list[str]:
    return [part for part in text.split("/") if part not in ("", ".")]


class SandboxRoot:
    """One open root directory (an ``O_PATH`` descriptor) and the walk beneath it."""

    def __init__(self, path: Path, *, create: bool = False) -> None:
        """Open the root directory ``path`` (a trusted, configured path), making it first if
        ``create`` (for calls that create files, as a workspace may not exist yet)."""
        self.path = path
        try:
            if create:
                os.makedirs(path, exist_ok=True)
            self.fd = os.open(path, _DIRECTORY)
        except OSError as exc:
            raise ToolFailure(ErrorCode.NOT_FOUND,
                              f"the sandbox root {str(path)!r} cannot be opened: {exc.strerror}",
                              suggestion="create the workspace directory first",
                              recoverable=False) from None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> SandboxRoot:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def walk(self, parts: Sequence[str], last: Opener[T], *, shown: str, argument: str = "path",
             make_parents: bool = False, lenient: bool = False) -> Reached[T]:
        """Walk ``parts`` from the root and hand the final component to ``last``.

        ``make_parents`` creates missing directories on the way (never through a link that
        leads out). ``lenient`` stops at the first missing component instead of failing and
        returns the rest, unresolved, as ``missing`` (``last`` then is not called).
        Every failure is a ToolFailure naming ``argument`` and ``shown``.
        """
        stack: list[int] = []  # descriptors of the directories below the root, deepest last
        names: list[str] = []
        pending = _components("/".join(parts))[::-1]  # next component last
        links = retries = made = 0
        via: tuple[str, str] | None = None  # the last link followed and its target, for messages
        name = "."
        try:
            while True:
                top = stack[-1] if stack else self.fd
                name = pending.pop() if pending else "."
                if name == "..":
                    if not stack:
                        raise self._escape(shown, argument, via)
                    os.close(stack.pop())
                    names.pop()
                    continue
                final = not pending
                try:
                    if final:
                        value = last(top, name)
                        return Reached(value, tuple(names) + ((name,) if name != "." else ()))
                    child = os.open(name, _DIRECTORY, dir_fd=top)
                except OSError as exc:
                    if exc.errno == errno.ENOENT and lenient:
                        missing = (name, *pending[::-1])
                        if ".." in missing:  # "missing/.." does not exist either
                            raise
                        return Reached(None, tuple(names), missing)  # type: ignore[arg-type]
                    if exc.errno == errno.ENOENT and make_parents and not final:
                        made += 1  # bounded: a rival could remove each directory we make
                        if made > MAX_DEPTH + _RACE_RETRIES:
                            raise
                        _make_directory(top, name)
                        pending.append(name)
                        continue
                    if exc.errno not in _MAYBE_LINK:
                        raise
                    target = _link_target(top, name)
                    if target is None:
                        if retries >= _RACE_RETRIES:
                            raise
                        retries += 1  # it may have been a link a moment ago: look again
                        pending.append(name)
                        continue
                    links += 1
                    if links > MAX_SYMLINKS:
                        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP)) from None
                    via = ("/".join([*names, name]), target)
                    if target.startswith("/"):
                        inside = self._beneath(target)
                        if inside is None:
                            raise self._escape(shown, argument, via) from None
                        while stack:
                            os.close(stack.pop())
                        names.clear()
                        target = inside
                    pending.extend(_components(target)[::-1])
                    continue
                stack.append(child)
                names.append(name)
                if len(names) >= MAX_DEPTH:
                    raise ToolFailure(ErrorCode.INVALID_ARGS,
                                      f"{argument} {shown!r} is nested deeper than {MAX_DEPTH} "
                                      "levels")
        except OSError as exc:
            at = "/".join([*names, name]) if pending else ""
            raise refusal(exc, shown, argument, at=at) from None
        finally:
            for descriptor in stack:
                os.close(descriptor)

    def _beneath(self, target: str) -> str | None:
        """The part of an absolute link target below this root, or None if it is elsewhere."""
        prefix = str(self.path).rstrip("/") + "/"
        if target.rstrip("/") == prefix.rstrip("/"):
            return "."
        return target[len(prefix):] if target.startswith(prefix) else None

    def _escape(self, shown: str, argument: str, via: tuple[str, str] | None) -> ToolFailure:
        through = f" (the link {via[0]!r} leads to {via[1]!r})" if via else ""
        return ToolFailure(ErrorCode.PERMISSION_DENIED,
                           f"{argument} {shown!r} is outside the allowed directories{through}",
                           suggestion=f"use a path inside {self.path}")


def _link_target(directory: int, name: str) -> str | None:
    """The target of the symlink ``name``, or None if it is not a symlink (now)."""
    try:
        return os.readlink(name, dir_fd=directory)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT):
            return None
        raise


def _make_directory(directory: int, name: str) -> None:
    with contextlib.suppress(FileExistsError):  # made meanwhile, or a link: the open decides
        os.mkdir(name, 0o755, dir_fd=directory)


@dataclass
class RootedPath:
    """A path argument split into its root (opened) and the components below it."""

    root: SandboxRoot
    parts: tuple[str, ...]
    shown: str
    argument: str

    def walk(self, last: Opener[T], *, make_parents: bool = False,
             lenient: bool = False) -> Reached[T]:
        return self.root.walk(self.parts, last, shown=self.shown, argument=self.argument,
                              make_parents=make_parents, lenient=lenient)

    def child(self, parts: Sequence[str], shown: str) -> RootedPath:
        """Another path beneath the same open root (not closed with this one)."""
        return RootedPath(self.root, tuple(parts), shown, self.argument)

    def __enter__(self) -> RootedPath:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.root.close()


_NAME_LIMIT = "255 bytes per name"


def refusal(exc: OSError, shown: str, argument: str = "path", *, at: str = "") -> ToolFailure:
    """A ToolFailure with a fitting code for an ``OSError`` met while using ``shown``
    (``at``: the component on the way that failed, when it was not the last)."""
    code = exc.errno
    where = f"{argument} {shown!r}"
    if code == errno.ENOENT:
        return ToolFailure(ErrorCode.NOT_FOUND, f"{shown!r} does not exist",
                           suggestion="list the directory with fs.ls to find the right path")
    if code == errno.ENOTDIR:
        return ToolFailure(ErrorCode.INVALID_ARGS, f"{where}: {at!r} is not a directory"
                           if at else f"{shown!r} is not a directory")
    if code == errno.EISDIR:
        return ToolFailure(ErrorCode.INVALID_ARGS, f"{shown!r} is a directory")
    if code == errno.EEXIST:
        return ToolFailure(ErrorCode.INVALID_ARGS, f"{shown!r} already exists")
    if code == errno.ENAMETOOLONG:
        return ToolFailure(ErrorCode.INVALID_ARGS,
                           f"{argument} has a name longer than the file system allows "
                           f"({_NAME_LIMIT})", suggestion="use shorter file names")
    if code == errno.ELOOP:
        return ToolFailure(ErrorCode.INVALID_ARGS,
                           f"{where} goes through more than {MAX_SYMLINKS} symbolic links")
    if code == errno.ENXIO:
        return ToolFailure(ErrorCode.INVALID_ARGS,
                           f"{shown!r} is not a regular file (a FIFO, a socket or a device)",
                           suggestion="only regular files can be read or written")
    if code in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ETXTBSY):
        return ToolFailure(ErrorCode.PERMISSION_DENIED, f"{where}: {exc.strerror}")
    if code in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EMLINK):
        return ToolFailure(ErrorCode.QUOTA_EXCEEDED, f"{where}: {exc.strerror}")
    return ToolFailure(ErrorCode.INTERNAL, f"{where}: {exc.strerror or exc}")
