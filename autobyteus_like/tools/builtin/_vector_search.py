"""``search.vector``: semantic search over the text files of a sandboxed tree (seed 001 §3.2).

Files are cut into chunks of a few lines, each embedded by WordLlama (``_embedder``) into a
usearch index kept in the state folder of the scope's root (``_vector_state``). Every call
brings the index up to date first, incrementally: a file whose size, modification time or
inode changed is embedded again, a file gone from the scope is dropped, the rest is left
alone. The tree is walked exactly as ``search.lexical`` walks it (``_search``):
symlinked directories not entered, a symlinked file used only where its resolution stays
beneath the root, FIFOs, devices, hard-linked files (unless allowed), binary files and files
over ``max_read_bytes`` skipped. Bounded: at most ``MAX_CHUNKS`` chunks in an index, ``k`` at
most ``MAX_K``, snippets cut, the result within ``max_output_bytes``, and a cancelled call (its
timeout) stops between files, keeping what it embedded so far for the next call.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Any

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox_root import refusal
from autobyteus_like.tools._sandbox_tree import open_directory, walk_tree
from autobyteus_like.tools.builtin._embedder import DIMENSIONS, MODEL_NAME, embed
from autobyteus_like.tools.builtin._search import _file_data, _open_entry
from autobyteus_like.tools.builtin._vector_state import (
    STATE_DIR,
    Chunk,
    VectorState,
    held_state,
)

__all__ = ["MAX_CHUNKS", "MAX_K", "chunk_lines", "vector_tool"]

MAX_CHUNKS = 50_000
"""Chunks one index holds (about 1 KiB of vector each, plus its snippet)."""
MAX_K = 100
CHUNK_LINES = 12
CHUNK_CHARS = 1200
SNIPPET_CHARS = 300
_BATCH = 256


def chunk_lines(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of each chunk: up to ``CHUNK_LINES`` lines and about
    ``CHUNK_CHARS`` characters, blank-only chunks left out."""
    chunks: list[tuple[int, int, str]] = []
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:
        lines.pop()  # the empty text after a final newline is not a line
    start, size, held = 0, 0, []  # type: ignore[var-annotated]
    for number, line in enumerate(lines, 1):
        if not held:
            start = number
        held.append(line[:CHUNK_CHARS])
        size += min(len(line), CHUNK_CHARS)
        if len(held) >= CHUNK_LINES or size >= CHUNK_CHARS or number == len(lines):
            body = "\n".join(held)
            if body.strip():
                chunks.append((start, number, body))
            held, size = [], 0
    return chunks


def _snippet(body: str) -> str:
    body = body.strip()
    return body if len(body) <= SNIPPET_CHARS else body[:SNIPPET_CHARS] + "…"


def _new_index() -> Any:
    from usearch.index import Index

    return Index(ndim=DIMENSIONS, metric="cos", dtype="f32")


def _restored(held_state_bytes: bytes | None, state: VectorState | None) -> VectorState:
    """The state read from the folder with its index, or a fresh one."""
    if state is not None and held_state_bytes is not None:
        index = _new_index()
        try:
            index.load(held_state_bytes)
        except Exception:  # unreadable (cut short, not an index): rebuilt below
            index = None
        keys = [chunk.key for _, chunks in state.files.values() for chunk in chunks]
        if index is not None and len(index) == len(keys) and \
                (not keys or bool(index.contains(keys).all())):  # the manifest's own index
            state.index = index
            return state
    return VectorState(MODEL_NAME, index=_new_index())


class _Updater:
    """Brings a state up to date with the files of one scope."""

    def __init__(self, state: VectorState, ctx: ToolContext) -> None:
        self.state = state
        self.ctx = ctx
        self.seen: set[str] = set()
        self.changed = 0
        self.full = False

    def drop(self, path: str) -> None:
        _, chunks = self.state.files.pop(path)
        if chunks:
            self.state.index.remove([chunk.key for chunk in chunks])
        self.changed += 1

    def file(self, shown: str, descriptor: int) -> None:
        status = os.fstat(descriptor)
        signature = [status.st_size, status.st_mtime_ns, status.st_ino, status.st_dev]
        self.seen.add(shown)
        known = self.state.files.get(shown)
        if known is not None and known[0] == signature:
            return
        data = _file_data(descriptor, self.ctx.sandbox)
        if known is not None:
            self.drop(shown)
        if data is None:
            return  # binary, too large, hard-linked, or not a regular file
        pieces = chunk_lines(data.decode("utf-8", errors="replace"))
        room = MAX_CHUNKS - self.state.chunk_count()
        if len(pieces) > room:
            self.full = True
            pieces = pieces[:max(room, 0)]
        chunks = []
        for first in range(0, len(pieces), _BATCH):
            batch = pieces[first:first + _BATCH]
            vectors = embed([body for _, _, body in batch])
            keys = list(range(self.state.next_key, self.state.next_key + len(batch)))
            self.state.next_key += len(batch)
            self.state.index.add(keys, vectors)
            chunks += [Chunk(key, start, end, _snippet(body))
                       for key, (start, end, body) in zip(keys, batch, strict=True)]
        self.state.files[shown] = (signature, chunks)
        self.changed += 1


def _in_scope(path: str, prefix: str, glob: str) -> bool:
    if prefix and not path.startswith(prefix):
        return False
    name = path.rsplit("/", 1)[-1]
    return fnmatch.fnmatch(name, glob) or fnmatch.fnmatch(path, glob)


def _update(updater: _Updater, scope: str, glob: str) -> str:
    """Walk ``scope`` and bring the index up to date; the prefix of the scope's paths."""
    ctx = updater.ctx
    with ctx.sandbox.open(scope, argument="scope") as target:
        opened = target.walk(open_directory)
        base = target.child(opened.parts, opened.shown)
        prefix = "" if opened.shown == "." else opened.shown + "/"
        try:
            for folder in walk_tree(opened.value, strict=False):
                if (*base.parts, *folder.parts)[:1] == STATE_DIR[:1]:
                    continue  # the index's own folder
                for entry in folder.entries:
                    if ctx.cancelled.is_set() or updater.full:
                        return prefix
                    shown = prefix + "/".join((*folder.parts, entry.name))
                    if not _in_scope(shown, prefix, glob):
                        continue
                    descriptor = _open_entry(base, folder.parts, folder.fd, entry)
                    if descriptor is None:
                        continue
                    try:
                        updater.file(shown, descriptor)
                    finally:
                        os.close(descriptor)
        except OSError as exc:
            raise refusal(exc, opened.shown, "scope") from None
        finally:
            os.close(opened.value)
    for path in [p for p in updater.state.files if _in_scope(p, prefix, glob)]:
        if path not in updater.seen:
            updater.drop(path)  # deleted, or no longer readable
    return prefix


def _search(state: VectorState, query: str, k: int, prefix: str, glob: str
            ) -> list[tuple[float, str, Chunk]]:
    size = len(state.index)
    if size == 0:
        return []
    vector = embed([query])[0]
    by_key = state.by_key()
    count = min(size, k * 8 + 64)
    while True:
        matches = state.index.search(vector, count, exact=count >= size)
        found = []
        for key, distance in zip(matches.keys, matches.distances, strict=True):
            path, chunk = by_key.get(int(key), ("", None))
            if chunk is not None and _in_scope(path, prefix, glob):
                found.append((round(1.0 - float(distance), 4), path, chunk))
        if len(found) >= k or count >= size:
            return found[:k]
        count = size


def vector_tool() -> ToolDefinition:
    """A fresh definition of ``search.vector``."""

    @tool(name="search.vector", category="search", sequential=True)
    def vector(query: str, ctx: ToolContext, scope: str = ".", k: int = 10, glob: str = "*"
               ) -> list[dict[str, object]]:
        """Find the passages of text files closest in meaning to a natural-language query
        (semantic search over an index kept up to date in .autobyteus/vector).

        Args:
            query: What to look for, in words (e.g. 'where are retries configured').
            scope: The directory to search in.
            k: How many passages to return (at most 100).
            glob: Only files whose name or relative path matches this pattern (e.g. '*.md').
        """
        if not query.strip():
            raise ToolFailure(ErrorCode.INVALID_ARGS, "query must not be empty")
        if not 1 <= k <= MAX_K:
            raise ToolFailure(ErrorCode.INVALID_ARGS, f"k must be between 1 and {MAX_K}")
        root, _ = ctx.sandbox.locate(scope, argument="scope")  # each root has its index
        with held_state(ctx.sandbox, root, MODEL_NAME, ctx.cancelled) as held:
            state = _restored(held.index_bytes, held.state)
            updater = _Updater(state, ctx)
            prefix = _update(updater, scope, glob)
            if updater.changed or held.state is not state:
                held.save(state)
            if ctx.cancelled.is_set():
                raise ToolFailure(ErrorCode.TIMEOUT, "search.vector was cancelled while it "
                                  "updated the index; what it embedded is kept",
                                  suggestion="call it again to go on, or narrow the scope")
            found = _search(state, query, k, prefix, glob)
        budget = ctx.sandbox.max_output_bytes
        results: list[dict[str, object]] = []
        for score, path, chunk in found:
            budget -= len(path) + len(chunk.snippet.encode("utf-8")) + 60
            if budget < 0:
                results.append({"truncated": f"stopped after {len(results)} results: the "
                                "output limit was reached; ask for fewer"})
                break
            results.append({"path": path, "score": score, "snippet": chunk.snippet,
                            "lines": [chunk.start, chunk.end]})
        if updater.full:
            results.append({"truncated": f"the index is full ({MAX_CHUNKS} chunks): files "
                            "after that were not embedded; narrow the scope or the glob"})
        return results

    return vector
