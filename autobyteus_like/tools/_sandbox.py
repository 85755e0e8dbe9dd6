"""SandboxPolicy: where tools may touch the file system, and how much they may read, write,
print and run (seed 001 sandbox, seed 004 security)."""

from __future__ import annotations

import errno
import functools
import os
import stat
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox_root import RootedPath, SandboxRoot

__all__ = ["SandboxPolicy", "default_sandbox"]

_MAX_PATH = 4096


class SandboxPolicy(BaseModel):
    """Limits for one agent (or one tool). Every path argument is walked beneath one of
    ``roots`` by descriptors (relative paths from the first root), symlinks followed only while
    they stay beneath it; see ``sandbox_root`` and docs/sandbox.md for what that guarantees."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    roots: tuple[Path, ...] = Field(default_factory=lambda: (Path.cwd(),), min_length=1)
    max_read_bytes: int = Field(default=1_000_000, gt=0)
    max_write_bytes: int = Field(default=1_000_000, gt=0)
    max_output_bytes: int = Field(default=64_000, gt=0)
    timeout_s: float = Field(default=30.0, gt=0)
    allow_network: bool = False
    allow_hardlinks: bool = False
    """Whether tools may read or write a regular file with more than one hard link (its other
    name may lie outside every root, so by default such files are refused)."""
    pass_env: tuple[str, ...] = ()
    """Host environment variables subprocesses may see besides the minimal set (PATH, HOME set
    to the first root, LANG, TERM, TMPDIR); API keys and the like stay out unless named here."""

    @field_validator("roots", mode="before")
    @classmethod
    def _real_roots(cls, value: object) -> tuple[Path, ...]:
        if isinstance(value, str | Path):
            items: list[object] = [value]
        elif isinstance(value, list | tuple):
            items = list(value)
        else:
            raise ValueError(f"roots must be a path or a list of paths, got {type(value).__name__}")
        if not all(isinstance(item, str | Path) for item in items):
            raise ValueError("every root must be a path")
        return tuple(Path(os.path.realpath(os.path.expanduser(str(item)))) for item in items)

    def locate(self, path: str, *, argument: str = "path") -> tuple[Path, tuple[str, ...]]:
        """Which root ``path`` belongs to and its components below that root; text only.

        Relative paths start from the first root. An absolute path (or ``~``) must begin with
        a root's own path; what follows, ``..`` included, is walked beneath that root later.
        """
        if not isinstance(path, str) or not path.strip():
            raise ToolFailure(ErrorCode.INVALID_ARGS, f"{argument} must be a non-empty path")
        if "\x00" in path:
            raise ToolFailure(ErrorCode.PERMISSION_DENIED, f"{argument} contains a NUL byte",
                              suggestion="use a plain relative path inside the workspace")
        if len(path) > _MAX_PATH:
            raise ToolFailure(ErrorCode.PERMISSION_DENIED,
                              f"{argument} is longer than {_MAX_PATH} characters")
        text = os.path.expanduser(path) if path.startswith("~") else path
        if not text.startswith("/"):
            return self.roots[0], tuple(text.split("/"))
        given = [part for part in text.split("/") if part not in ("", ".")]
        for root in self.roots:
            if given[: len(root.parts) - 1] == list(root.parts[1:]):
                return root, tuple(given[len(root.parts) - 1:])
        raise ToolFailure(
            ErrorCode.PERMISSION_DENIED,
            f"{argument} {path!r} is outside the allowed directories",
            suggestion=f"use a path inside {', '.join(str(r) for r in self.roots)}",
        )

    def open(self, path: str, *, argument: str = "path", create_root: bool = False
             ) -> RootedPath:
        """``path`` beneath its root, with that root opened (made first if ``create_root``):
        use it in a ``with`` block and reach the file with ``.walk(opener)``; see
        ``sandbox_root``."""
        root, parts = self.locate(path, argument=argument)
        return RootedPath(SandboxRoot(root, create=create_root), parts, path, argument)

    def resolve(self, path: str, *, argument: str = "path") -> Path:
        """The real location of ``path``, or PERMISSION_DENIED if it lies outside every root.

        The path is walked beneath its root by descriptors (symlinks followed only while they
        stay beneath it); components that do not exist yet are kept as written. Nothing is
        created. Tools that act on files use ``open`` instead: a returned string can be
        swapped for a symlink before it is used.
        """
        with self.open(path, argument=argument) as target:
            reached = target.walk(_probe, lenient=True)
            return target.root.path.joinpath(*reached.parts, *reached.missing)

    def relative(self, path: Path) -> str:
        """How a resolved path is shown back to the LLM: relative to its root."""
        for root in self.roots:
            if path == root or path.is_relative_to(root):
                return str(path.relative_to(root)) or "."
        return str(path)


def _probe(directory: int, name: str) -> None:
    """The final opener of ``resolve``: nothing to open, but a symlink must be followed."""
    descriptor = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=directory)
    try:
        if stat.S_ISLNK(os.fstat(descriptor).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
    finally:
        os.close(descriptor)


def default_sandbox() -> SandboxPolicy:
    """The default policy (the current folder its one root), one shared per folder: a policy is
    frozen, and building one per agent was a quarter of building an ``AgentConfig``."""
    return _default_for(os.getcwd())


@functools.lru_cache(maxsize=16)
def _default_for(folder: str) -> SandboxPolicy:
    return SandboxPolicy(roots=(folder,))
