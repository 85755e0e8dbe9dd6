"""An MCP server's elicitation during an A2A task: asked of the A2A client as
``TASK_STATE_INPUT_REQUIRED`` (the server's message in words, its requested schema as a data
part), answered in the client's next message to the task: a data part (or the text) holding
a JSON object that fits the schema accepts it; ``decline`` or ``cancel`` (the first word)
says so; anything else asks again, never answers the server. Unanswered within the server's
``elicitation_timeout_s`` it is declined (the task goes on when the client next writes).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from dataclasses import dataclass
from typing import Any

from autobyteus_like.mcp._elicitation import (
    Answer,
    ElicitationRequest,
    WaitingElicitation,
    answer_problem,
)

__all__ = ["Elicitation", "read_answer"]


@dataclass(eq=False)
class Elicitation(WaitingElicitation):
    """One elicitation waiting for the A2A client; ``answer`` settles it once."""

    def question(self) -> str:
        fields = ", ".join(self.request.schema.get("properties", {}))
        return (f"the MCP server {self.request.server!r} asks: {self.request.message} -- reply "
                f"with a JSON object of {fields} (as text or a data part), or 'decline' or "
                "'cancel'")


def asker(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Any]) -> Any:
    """The ``elicit`` of one A2A ask: puts each request on its event queue (as an
    ``Elicitation``) and waits, on the worker thread, for the client's answer."""

    def ask(request: ElicitationRequest) -> Answer:
        waiting = Elicitation(request)
        loop.call_soon_threadsafe(queue.put_nowait, waiting)
        try:
            return waiting.answer.result(timeout=request.timeout_s)
        except concurrent.futures.TimeoutError:
            waiting.settle(None)  # (a late answer is then refused)
            return None

    return ask


def read_answer(waiting: Elicitation, text: str, data: list[Any]) -> tuple[Answer, str | None]:
    """The client's answer from its message (``text``, its data parts), or why it is not one."""
    word = text.strip().split(" ", 1)[0].lower().strip(".,:;!") if text.strip() else ""
    if word in ("decline", "declined", "no"):
        return None, None
    if word in ("cancel", "cancelled"):
        return False, None
    content: Any = next((d for d in data if isinstance(d, dict)), None)
    if content is None:
        try:
            content = json.loads(text)
        except ValueError:
            return None, "not understood (no JSON object, nor 'decline' or 'cancel')"
    if isinstance(content, dict):  # a data part's whole numbers come as floats
        schema = waiting.request.schema.get("properties", {})
        content = {k: int(v) if isinstance(v, float) and v.is_integer() and isinstance(
            schema.get(k), dict) and schema[k].get("type") == "integer" else v
            for k, v in content.items()}
    problem = answer_problem(waiting.request.schema, content)
    return (content, None) if problem is None else (None, f"the answer does not fit: {problem}")
