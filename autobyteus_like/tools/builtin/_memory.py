"""The ``memory.*`` tools (seed 001 §3.4): ``memory.summarize`` and ``memory.advise``.

``memory.summarize`` reads the files through the sandbox (each within ``max_read_bytes``), cuts
them into pieces that fit the model's context (whole lines, each numbered ``path:LINE|`` when
``keep_refs``), has the agent's model (``ToolContext.side_llm``: counted in the run's usage and
limits) summarise each piece in the style asked, merges the partial summaries the same way
until one is left, and writes it to ``into_path`` like ``fs.write`` (within
``max_write_bytes``). ``memory.advise`` records hot and cold paths in the agent's working set
(``ToolContext.working_set``); each path must lie inside the sandbox, a hot one must be a
readable regular file.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, Field

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._context import SideLLM, ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox_files import check_regular, open_for_reading, read_at_most
from autobyteus_like.tools._sandbox_root import refusal
from autobyteus_like.tools.builtin._fs import _write

__all__ = ["MAX_TARGETS", "PathHint", "memory_tools", "pieces", "read_text"]

MAX_TARGETS = 50
CHARS_PER_TOKEN = 3
"""A cautious estimate (real text averages ~4): pieces must fit whatever the tokenizer."""
ANSWER_TOKENS = 1024
"""Room kept in the context for each answer."""
MAX_REQUESTS = 64
"""Model requests one call may make (pieces and merges)."""

_STYLES = {
    "bullet": "a list of short bullet points ('- '), one fact each",
    "narrative": "a few short paragraphs of plain prose",
    "schema": "an outline of the structure: the entities, fields, functions or sections and "
              "how they relate, as an indented list",
}


class PathHint(BaseModel):
    """A path and why it belongs where it is advised."""

    path: str = Field(description="A file inside the workspace.")
    why: str = Field(default="", description="Why it is hot or cold, in one sentence.")


def read_text(ctx: ToolContext, path: str) -> tuple[str, str]:
    """(shown path, text) of a regular file inside the sandbox, within the read limit."""
    limit = ctx.sandbox.max_read_bytes
    with ctx.sandbox.open(path) as target:
        opened = target.walk(open_for_reading)
        try:
            check_regular(opened.value, opened.shown,
                          allow_hardlinks=ctx.sandbox.allow_hardlinks)
            data = read_at_most(opened.value, limit)
        except OSError as exc:
            raise refusal(exc, opened.shown) from None
        finally:
            os.close(opened.value)
    if data is None:
        raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                          f"{opened.shown!r} is over the {limit}-byte read limit",
                          suggestion="summarize a smaller file, or split it first")
    return opened.shown, data.decode("utf-8", errors="replace")


def pieces(documents: list[tuple[str, str]], budget: int, keep_refs: bool) -> list[str]:
    """The documents as pieces of at most ``budget`` characters, whole lines (a line longer
    than a piece is cut), each line prefixed ``path:N| `` when ``keep_refs``."""
    found: list[str] = []
    current: list[str] = []
    size = 0
    for path, text in documents:
        header = f"=== {path} ==="
        for number, line in enumerate([header, *text.splitlines()]):
            shown = line if number == 0 or not keep_refs else f"{path}:{number}| {line}"
            shown = shown[:max(1, budget - len(header) - 2)]  # fits beside the header
            if size + len(shown) + 1 > budget and current:
                found.append("\n".join(current))
                current, size = ([header] if number else []), (len(header) + 1 if number else 0)
            current.append(shown)
            size += len(shown) + 1
    if current:
        found.append("\n".join(current))
    return found


def _instructions(style: str, keep_refs: bool, merging: bool) -> str:
    what = ("partial summaries of the same files (each written from one piece)"
            if merging else "the content of one or more files")
    refs = (" Keep references: after each point, cite where it comes from as path:FIRST-LAST "
            "(line numbers" + (" as the partial summaries cite them" if merging
                                else ", shown before each line as path:N|") + ").")
    return (f"You summarise {what} for an agent that will rely on the summary instead of "
            f"reading them again. Write {_STYLES[style]}. Keep every name, number, decision "
            "and open question; leave out nothing important and add nothing."
            f"{refs if keep_refs else ''} Answer with the summary only.")


class _Summarizer:
    def __init__(self, side: SideLLM, ctx: ToolContext, style: str, keep_refs: bool,
                 llm: Any, context_tokens: int | None) -> None:
        self.side, self.ctx, self.llm = side, ctx, llm
        self.style, self.keep_refs = style, keep_refs
        self.requests = 0
        tokens = context_tokens or side.context_tokens
        self.budget = max(1000, (tokens - ANSWER_TOKENS - 400) * CHARS_PER_TOKEN)

    def ask(self, text: str, merging: bool) -> str:
        if self.requests >= MAX_REQUESTS:
            raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                              f"summarizing these files needs more than {MAX_REQUESTS} model "
                              "requests", suggestion="summarize fewer or smaller files")
        if self.ctx.cancelled.is_set():
            raise ToolFailure(ErrorCode.TIMEOUT, "memory.summarize was cancelled")
        self.requests += 1
        return self.side.ask(_instructions(self.style, self.keep_refs, merging), text,
                             llm=self.llm, cancel=self.ctx.cancelled)

    def summary(self, documents: list[tuple[str, str]]) -> tuple[str, int]:
        parts = [self.ask(piece, merging=False)
                 for piece in pieces(documents, self.budget, self.keep_refs)]
        first = len(parts)
        while len(parts) > 1:
            groups: list[list[str]] = [[]]
            for part in parts:
                size = sum(len(p) + 2 for p in groups[-1])
                if groups[-1] and size + len(part) > self.budget:
                    groups.append([])
                groups[-1].append(part[:self.budget])
            if len(groups) == len(parts) and len(parts) > 1:  # no two fit together: pair
                half = self.budget // 2  # them, each cut to half a piece
                groups = [[part[:half] for part in parts[i:i + 2]]
                          for i in range(0, len(parts), 2)]
            parts = [self.ask("\n\n".join(group), merging=True) if len(group) > 1 else group[0]
                     for group in groups]
        return parts[0], first


def memory_tools(llm: Any = None, context_tokens: int | None = None) -> list[ToolDefinition]:
    """Fresh definitions of ``memory.summarize`` (asking ``llm`` instead of the agent's own
    model when given; pieces sized for ``context_tokens`` when given, else for what the model
    says) and ``memory.advise``."""

    @tool(name="memory.summarize", category="memory")
    def summarize(target_paths: list[str], into_path: str, ctx: ToolContext,
                  style: Literal["bullet", "narrative", "schema"] = "bullet",
                  keep_refs: bool = True) -> dict[str, object]:
        """Summarise files into a new file with the agent's model, to keep the gist without
        keeping the files in context.

        Args:
            target_paths: The files to summarise.
            into_path: Where to write the summary (created or overwritten).
            style: bullet points, narrative prose, or a schema outline.
            keep_refs: Cite path and line ranges for each point.
        """
        side = ctx.side_llm
        if side is None:
            raise ToolFailure(ErrorCode.NOT_AVAILABLE,
                              "memory.summarize needs an agent's model: it runs only as an "
                              "agent's tool")
        if not target_paths:
            raise ToolFailure(ErrorCode.INVALID_ARGS, "target_paths must name at least one file")
        if len(target_paths) > MAX_TARGETS:
            raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                              f"at most {MAX_TARGETS} files per call, not {len(target_paths)}")
        ctx.sandbox.locate(into_path, argument="into_path")  # outside: refused before any work
        documents = [read_text(ctx, path) for path in target_paths]
        summarizer = _Summarizer(side, ctx, style, keep_refs, llm, context_tokens)
        text, count = summarizer.summary(documents)
        data = (text.rstrip() + "\n").encode("utf-8")
        shown = _write(ctx.sandbox, into_path, data, append=False)
        return {"path": shown, "bytes": len(data), "pieces": count,
                "model_requests": summarizer.requests,
                "sources": [path for path, _ in documents]}

    @tool(name="memory.advise", category="memory")
    def advise(ctx: ToolContext, hot: list[PathHint] | None = None,
               cold: list[PathHint] | None = None) -> dict[str, object]:
        """Update your working set: hot files are kept in your context with their current
        content (refreshed when they change); cold files' earlier results are dropped from it.

        Args:
            hot: Files to keep in context, each with why.
            cold: Files to drop from context, each with why.
        """
        working_set = ctx.working_set
        if working_set is None:
            raise ToolFailure(ErrorCode.NOT_AVAILABLE,
                              "memory.advise needs an agent's working set: it runs only as an "
                              "agent's tool")
        if not hot and not cold:
            raise ToolFailure(ErrorCode.INVALID_ARGS, "give at least one hot or cold path")
        hot_paths = {read_text(ctx, hint.path)[0]: hint.why for hint in hot or []}
        cold_paths: dict[str, str] = {}
        for hint in cold or []:
            ctx.sandbox.resolve(hint.path)  # inside, else PERMISSION_DENIED; may be gone
            cold_paths[os.path.normpath(hint.path)] = hint.why
        return working_set.advise(hot_paths, cold_paths)

    return [summarize, advise]
