"""The state folder of ``search.vector``: ``.autobyteus/vector/`` beneath the root of the
scope searched, holding ``manifest.json`` (which file was embedded in which chunks, and the file's
signature then) and ``index.usearch`` (the usearch index of the chunks' vectors).

Everything is done through the directory's descriptor: files are read with ``O_NOFOLLOW``
and checked regular and single-linked, and written as a fresh file (``O_EXCL``) renamed over
the old one, so a link planted in the folder can neither be read through nor written through,
and a call stopped midway leaves the previous state whole. One call at a time holds the
folder (``flock`` on its ``lock`` file); a state that cannot be read is rebuilt.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._context import CancelFlag
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox import SandboxPolicy
from autobyteus_like.tools._sandbox_files import read_at_most, write_all

__all__ = ["STATE_DIR", "Chunk", "VectorState", "held_state"]

STATE_DIR = (".autobyteus", "vector")
MAX_STATE_BYTES = 512 * 1024 * 1024
"""The largest manifest or index file read back (far above what ``MAX_CHUNKS`` makes)."""
_LOCK_POLL_S = 0.05
_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


@dataclass
class Chunk:
    """Lines ``start``..``end`` of a file, embedded under ``key``."""

    key: int
    start: int
    end: int
    snippet: str


@dataclass
class VectorState:
    """What the index holds: per file, its signature when embedded and its chunks."""

    model: str
    files: dict[str, tuple[list[int], list[Chunk]]] = field(default_factory=dict)
    next_key: int = 1
    index: Any = None
    """The usearch ``Index`` (made by the caller when there is none)."""

    def chunk_count(self) -> int:
        return sum(len(chunks) for _, chunks in self.files.values())

    def by_key(self) -> dict[int, tuple[str, Chunk]]:
        return {chunk.key: (path, chunk) for path, (_, chunks) in self.files.items()
                for chunk in chunks}


def _mkdir_open(directory: int, name: str) -> int:
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o755, dir_fd=directory)
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                   dir_fd=directory)


def _read(folder: int, name: str) -> bytes | None:
    """A state file's bytes, or None if it is missing or not a plain single-linked file."""
    try:
        descriptor = os.open(name, os.O_RDONLY | _FLAGS, dir_fd=folder)
    except OSError:
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_nlink != 1:
            return None
        return read_at_most(descriptor, MAX_STATE_BYTES)
    finally:
        os.close(descriptor)


def _write(folder: int, name: str, data: bytes) -> None:
    """Replace ``name`` by a fresh file holding ``data`` (atomic rename)."""
    temporary = f".{name}.{secrets.token_hex(6)}"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FLAGS, 0o600,
                         dir_fd=folder)
    try:
        write_all(descriptor, data)
    except BaseException:
        os.close(descriptor)
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise
    os.close(descriptor)
    os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)


def _sweep(folder: int) -> None:
    """Remove the temporary files of a call that was killed while it wrote (the lock is held:
    no other call is writing)."""
    for name in os.listdir(folder):
        if name.startswith((".manifest.json.", ".index.usearch.")):
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=folder)


def _lock(folder: int, cancel: CancelFlag, deadline: float) -> int:
    descriptor = os.open("lock", os.O_RDWR | os.O_CREAT | _FLAGS, 0o600, dir_fd=folder)
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return descriptor
        except BlockingIOError:
            if cancel.is_set() or time.monotonic() > deadline:
                os.close(descriptor)
                raise ToolFailure(ErrorCode.TIMEOUT,
                                  "another search.vector call is updating the index",
                                  suggestion="try again when it is done") from None
            time.sleep(_LOCK_POLL_S)  # flock has no timeout and no event to wait on


def _decode(manifest: bytes | None, model: str) -> VectorState | None:
    if manifest is None:
        return None
    try:
        raw = json.loads(manifest)
        if raw.get("model") != model:
            return None
        files = {path: ([int(n) for n in entry["sig"]],
                        [Chunk(int(k), int(s), int(e), str(t)) for k, s, e, t in entry["chunks"]])
                 for path, entry in raw["files"].items()}
        return VectorState(model, files, int(raw["next_key"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def encode(state: VectorState) -> bytes:
    files = {path: {"sig": sig, "chunks": [[c.key, c.start, c.end, c.snippet] for c in chunks]}
             for path, (sig, chunks) in state.files.items()}
    return json.dumps({"model": state.model, "next_key": state.next_key, "files": files},
                      ensure_ascii=False).encode("utf-8")


class HeldState:
    """The state folder, locked, with what it held when opened."""

    def __init__(self, folder: int, state: VectorState | None, index_bytes: bytes | None
                 ) -> None:
        self._folder = folder
        self.state = state
        self.index_bytes = index_bytes

    def save(self, state: VectorState) -> None:
        """Write the index first, then the manifest that describes it."""
        _write(self._folder, "index.usearch", bytes(state.index.save()))
        _write(self._folder, "manifest.json", encode(state))


@contextlib.contextmanager
def held_state(sandbox: SandboxPolicy, root: Path, model: str, cancel: CancelFlag
               ) -> Iterator[HeldState]:
    """The state folder beneath ``root`` (one of ``sandbox``'s roots), made if missing,
    locked for the block."""
    with sandbox.open(str(root.joinpath(*STATE_DIR)), create_root=True) as target:
        try:
            folder = target.walk(_mkdir_open, make_parents=True).value
        except ToolFailure as exc:
            raise ToolFailure(ErrorCode.PERMISSION_DENIED,
                              f"the index folder {'/'.join(STATE_DIR)!r} cannot be used: "
                              f"{exc.message}") from None
    try:
        lock = _lock(folder, cancel, time.monotonic() + sandbox.timeout_s)
        try:
            _sweep(folder)
            state = _decode(_read(folder, "manifest.json"), model)
            index = _read(folder, "index.usearch") if state is not None else None
            yield HeldState(folder, state if index is not None else None, index)
        finally:
            os.close(lock)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                              f"no room to write the index: {exc.strerror}") from None
        raise ToolFailure(ErrorCode.PERMISSION_DENIED,
                          f"the index folder {'/'.join(STATE_DIR)!r} cannot be used: "
                          f"{exc.strerror}") from None
    finally:
        os.close(folder)
