"""``handoff_history: summary``: the receiver is given a summary of the conversation, made
by the caller's model while its handoff call runs (a side request: claimed under the run's
admission and usage limits and counted in its usage, ``agent/_side_requests.py``).

The caller's handoff tool reads the conversation from a ``ConversationTap`` (a hook on the
caller that keeps the messages of its turn and the results of the response's other calls:
the handoff runs last, once they are settled) and puts the summary into its own result,
which the session stores with the hand-over: what the receiver is given
(``history/_handover.py``'s ``summary`` filter) is read from there, resumed or not. A failed
summary leaves a note in that result instead and the receiver gets the whole conversation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from autobyteus_like.errors import ToolFailure
from autobyteus_like.history._handover import summary_failed, summary_result
from autobyteus_like.hooks._protocol import AgentHooks

if TYPE_CHECKING:
    from autobyteus_like.hooks._protocol import CallView, TurnView
    from autobyteus_like.llm._messages import Message
    from autobyteus_like.tools._context import ToolContext
    from autobyteus_like.tools._invocation import ToolResult

__all__ = ["SUMMARY_INSTRUCTIONS", "ConversationTap", "handoff_summary"]

SUMMARY_INSTRUCTIONS = (
    "You hand a support conversation over to a teammate, who will not see it. Summarise it "
    "for them: what the user wants, what was found or done so far (tool results that matter), "
    "and what is still open. Plain prose, at most 200 words, no preamble.")
_MAX_CHARS = 24_000
"""The transcript's longest tail sent for a summary (its oldest part is cut first)."""


class ConversationTap(AgentHooks):
    """The caller's conversation as its turn stands: the messages of its last response and
    the results of that response's calls as they settle."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.results: list[ToolResult] = []

    def response_completed(self, turn: TurnView, messages: Sequence[Message]) -> None:
        self.messages, self.results = list(messages), []

    def call_finished(self, turn: TurnView, call: CallView) -> None:
        if call.result is not None:
            self.results.append(call.result)


def handoff_summary(tap: ConversationTap, receiver: str, ctx: ToolContext) -> str:
    """What the handoff call's result adds: the summary the caller's model made of the
    conversation for ``receiver``, or a note saying why there is none (the receiver is
    then given the whole conversation)."""
    side = ctx.side_llm
    if side is None:
        return summary_failed(receiver, "no model to ask: the call runs outside an agent")
    if not tap.messages:  # a turn resumed in a new process: its response was not seen here
        return summary_failed(receiver, "this process did not see the conversation's last "
                                        "response (a resumed turn)")
    transcript = _transcript(tap.messages, tap.results)[-_MAX_CHARS:]
    try:
        summary = side.ask(SUMMARY_INSTRUCTIONS, transcript, cancel=ctx.cancelled)
    except ToolFailure as exc:
        return summary_failed(receiver, str(exc))
    except Exception as exc:  # any failure of the model: never the handoff's
        return summary_failed(receiver, f"{type(exc).__name__}: {exc}")
    return summary_result(receiver, summary)


def _transcript(messages: Sequence[Message], results: Sequence[ToolResult]) -> str:
    lines: list[str] = []
    for message in messages:
        if message.content.strip():
            lines.append(f"{message.role}: {message.content.strip()}")
        lines.extend(f"assistant calls {call.name}({_json(call.arguments)})"
                     for call in message.tool_calls)
        lines.extend(_result_line(result) for result in message.tool_results)
    lines.extend(_result_line(result) for result in results)
    return "\n".join(lines)


def _result_line(result: ToolResult) -> str:
    if result.error is not None:
        return f"result of {result.tool_name}: failed: {result.error.message}"
    return f"result of {result.tool_name}: {_json(result.content)}"


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)
