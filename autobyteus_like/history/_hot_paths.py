"""The working set in the model's context (``memory.advise``): a history processor.

Before each request it reads every hot path's current content through the sandbox (so an
edited file is sent as it is now), cut at ``HOT_FILE_CHARS`` per file and ``HOT_TOTAL_CHARS`` in
all, and puts it in one user message just before the newest user message: never in the system
prompt, and after everything older, so a provider's prompt cache still holds the conversation
before it. Results of calls that named a cold path (any string argument equal to it, or in a
list) are replaced by a one-line note saying it was dropped and why; the call stays, so a call
is never separated from its result.
"""

from __future__ import annotations

import os
from typing import Any

from autobyteus_like.errors import ToolFailure
from autobyteus_like.history._messages import (
    AssistantMessage,
    HistoryMessage,
    ToolResultsMessage,
    UserMessage,
)
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._sandbox import SandboxPolicy
from autobyteus_like.tools.builtin._memory import read_text
from autobyteus_like.tools.builtin._working_set import WorkingSet

__all__ = ["HOT_FILE_CHARS", "HOT_HEADING", "HOT_TOTAL_CHARS", "working_set_context"]

HOT_FILE_CHARS = 20_000
HOT_TOTAL_CHARS = 60_000
HOT_HEADING = "Your working set (hot files, as they are now):"


def _named(arguments: dict[str, Any], cold: dict[str, str]) -> str | None:
    for value in arguments.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.strip() and os.path.normpath(item) in cold:
                return os.path.normpath(item)
    return None


def _hot_block(working_set: WorkingSet, sandbox: SandboxPolicy) -> str | None:
    hot = working_set.hot()
    if not hot:
        return None
    context = ToolContext(sandbox=sandbox)
    room = HOT_TOTAL_CHARS
    parts = [HOT_HEADING]
    for path, why in hot.items():
        try:
            _, text = read_text(context, path)
        except ToolFailure as exc:
            parts.append(f"--- {path} (unavailable: {exc.message})")
            continue
        cut = min(HOT_FILE_CHARS, max(room, 0))
        note = f" [cut at {cut} of {len(text)} characters]" if len(text) > cut else ""
        parts.append(f"--- {path} ({why}){note}\n{text[:cut]}")
        room -= min(len(text), cut)
    return "\n".join(parts)


def working_set_context(working_set: WorkingSet, sandbox: SandboxPolicy) -> Any:
    """The processor that sends ``working_set`` (hot files read beneath ``sandbox``)."""

    def shape(messages: list[HistoryMessage]) -> list[HistoryMessage]:
        cold = working_set.cold()
        shaped: list[HistoryMessage] = []
        dropped: dict[str, str] = {}
        for message in messages:
            if isinstance(message, AssistantMessage) and cold:
                dropped = {}
                for call in message.tool_calls:
                    path = _named(call.arguments, cold)
                    if path is not None:
                        dropped[call.id] = path
            if isinstance(message, ToolResultsMessage) and dropped and any(
                    result.invocation_id in dropped for result in message.results):
                results = tuple(result.model_copy(update={
                    "content": f"[dropped from context: {dropped[result.invocation_id]} is "
                               f"cold: {cold[dropped[result.invocation_id]]}]",
                    "images": ()}) if result.invocation_id in dropped and
                    result.status == "success" else result for result in message.results)
                message = ToolResultsMessage(results=results, content="", format=message.format)
            shaped.append(message)
        block = _hot_block(working_set, sandbox)
        if block is not None:
            newest = max((i for i, m in enumerate(shaped) if isinstance(m, UserMessage)),
                         default=len(shaped))
            shaped.insert(newest, UserMessage(content=block))
        return shaped

    shape.__name__ = "working_set_context"
    return shape
