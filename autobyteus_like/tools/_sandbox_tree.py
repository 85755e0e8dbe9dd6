"""Walking a directory tree beneath a sandbox root by descriptors: each subdirectory is opened
relative to its parent's descriptor with ``O_NOFOLLOW | O_DIRECTORY``, so a walk never leaves
the tree through a symlink, even one swapped in while it runs (symlinks are listed, not
entered)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox_root import MAX_DEPTH

__all__ = ["Folder", "list_sorted", "open_directory", "walk_tree"]

_LISTABLE = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_directory(directory: int, name: str) -> int:
    """Final opener (and the walk's own step): a directory that can be listed."""
    return os.open(name, _LISTABLE, dir_fd=directory)


@dataclass(frozen=True)
class Folder:
    """One directory of a walk: where it is below the top, and its entries sorted by name.
    ``fd`` is valid only until the walk moves on."""

    parts: tuple[str, ...]
    fd: int
    entries: list[os.DirEntry[str]]


def list_sorted(descriptor: int) -> list[os.DirEntry[str]]:
    """A directory's entries by name (``scandir`` on a descriptor: entries carry no path)."""
    with os.scandir(descriptor) as listing:
        return sorted(listing, key=lambda entry: entry.name)


def walk_tree(top: int, *, strict: bool, parts: tuple[str, ...] = ()) -> Iterator[Folder]:
    """Every directory under the directory ``top`` (itself first), depth first by name.

    Subdirectories that vanish or turn into something else while walked are left out; so are
    directories nested deeper than ``MAX_DEPTH`` unless ``strict``, which refuses the walk.
    """
    entries = list_sorted(top)
    yield Folder(parts, top, entries)
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            continue
        if len(parts) + 1 >= MAX_DEPTH:  # its entries would lie deeper than a path may go
            if strict:
                raise ToolFailure(ErrorCode.INVALID_ARGS,
                                  f"{'/'.join((*parts, entry.name))!r} holds entries nested "
                                  f"deeper than {MAX_DEPTH} levels")
            continue
        try:
            child = open_directory(top, entry.name)
        except OSError:
            continue  # removed, or swapped for a link, since it was listed
        try:
            yield from walk_tree(child, strict=strict, parts=(*parts, entry.name))
        finally:
            os.close(child)
