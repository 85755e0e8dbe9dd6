"""A conversation handed over: the answer a member's turn ends with when it hands the
conversation to another member (``HandedOver``), and what of it the receiver is given
(``handed_history``: its ``handoff_history`` setting)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from autobyteus_like.history._messages import (
    AssistantMessage,
    HistoryMessage,
    SystemMessage,
    ToolResultsMessage,
    UserMessage,
)

__all__ = ["HANDOFF_HISTORY", "HandedOver", "check_handoff_history", "handed_history",
           "handoff_mail_id", "handoff_note", "summary_failed", "summary_result"]

HANDOFF_HISTORY = re.compile(r"^(all|user|summary|last:[1-9][0-9]{0,5})$")
"""``all`` (the default: the whole conversation), ``user`` (only the user's messages),
``summary`` (a summary the caller's model made, then the user's last message) or ``last:N``
(the last N turns, each from a user's message on, every call with its result)."""

_SUMMARY = "\n\nSummary of the conversation for {receiver}:\n"
_SUMMARY_MARK = re.compile(r"^Transferred to [^\n]+\.\n\nSummary of the conversation for "
                           r"[^\n:]+:\n")
"""A handoff call's result that carries a summary (only a ``transfer_to_`` call's counts:
another tool's output cannot pass one off)."""


def check_handoff_history(value: str) -> str:
    """``value`` when it is a ``handoff_history`` setting, else ``ValueError`` saying which are."""
    if not HANDOFF_HISTORY.match(value):
        raise ValueError(f"handoff_history is 'all', 'user', 'summary' or 'last:N' (N a whole "
                         f"number from 1), got {value!r}")
    return value


def summary_result(receiver: str, summary: str) -> str:
    """What a handoff call's result adds when it carries the summary for its receiver."""
    return _SUMMARY.format(receiver=receiver) + summary.strip()


def summary_failed(receiver: str, why: str) -> str:
    """What a handoff call's result adds when no summary could be made."""
    return (f" No summary could be made ({why.strip().rstrip('.')}): {receiver} is given the "
            f"whole conversation instead.")


class HandedOver(str):
    """The answer of a turn that handed the conversation over (its text the handoff call's
    result): who gave it (``sender``), to whom (``receiver``), why (``reason``), by which
    call (``invocation_id``), and the conversation as it stood when the turn ended, every call
    with its result (``history``, typed; the system prompt left out)."""

    sender: str
    receiver: str
    reason: str
    invocation_id: str
    history: tuple[HistoryMessage, ...]

    def __new__(cls, text: str, *, sender: str, receiver: str, reason: str,
                invocation_id: str, history: Sequence[HistoryMessage]) -> HandedOver:
        value = super().__new__(cls, text)
        value.sender, value.receiver, value.reason = sender, receiver, reason
        value.invocation_id, value.history = invocation_id, tuple(history)
        return value

    def __reduce__(self) -> tuple[Any, ...]:  # travels whole between processes (Ray)
        return (_handed_over, (str(self), self.sender, self.receiver, self.reason,
                               self.invocation_id, self.history))


def _handed_over(text: str, sender: str, receiver: str, reason: str, invocation_id: str,
                 history: tuple[HistoryMessage, ...]) -> HandedOver:
    return HandedOver(text, sender=sender, receiver=receiver, reason=reason,
                      invocation_id=invocation_id, history=history)


def handoff_note(sender: str, reason: str) -> str:
    """The message that opens the receiver's turn."""
    why = f" Their reason: {reason.strip().rstrip('.')}." if reason.strip() else ""
    return (f"{sender} handed this conversation over to you.{why} Go on with it: answer the "
            f"user's last message.")


def handoff_mail_id(sender: str, invocation_id: str) -> str:
    """The id of the message a handoff gives its receiver (stored with the call's result)."""
    return f"handoff/{sender}/{invocation_id}"


def handed_history(history: Sequence[HistoryMessage], setting: str = "all"
                   ) -> list[HistoryMessage]:
    """What of ``history`` a receiver with ``handoff_history: setting`` is given: never a
    system message (the receiver keeps its own prompt), never a call without its result."""
    messages: list[HistoryMessage] = [m for m in history if not isinstance(m, SystemMessage)]
    if setting == "summary":
        return _summarised(messages)
    if setting == "user":
        return [m for m in messages if isinstance(m, UserMessage)]
    if setting.startswith("last:"):
        wanted = int(setting.partition(":")[2])
        starts = [i for i, m in enumerate(messages)
                  if isinstance(m, UserMessage) and _opens_turn(messages, i)]
        if len(starts) > wanted:
            messages = messages[starts[-wanted]:]
    return messages


def _summarised(messages: list[HistoryMessage]) -> list[HistoryMessage]:
    """The summary the last handoff call's result carries, then the user's last message;
    the whole conversation when that result has none (the summary failed: it says so)."""
    for message in reversed(messages):
        if not isinstance(message, ToolResultsMessage):
            continue
        for result in message.results:
            text = result.content if isinstance(result.content, str) else ""
            found = (_SUMMARY_MARK.match(text) if result.status == "success"
                     and result.tool_name.startswith("transfer_to_") else None)
            if found is not None:
                users = [m for m in messages if isinstance(m, UserMessage)]
                summary = UserMessage(content="Summary of the conversation so far (the "
                                      "whole of it was not handed over):\n"
                                      + text[found.end():])
                return [summary, *users[-1:]]
        break  # only the results of the response that handed over
    return messages


def _opens_turn(messages: Sequence[HistoryMessage], index: int) -> bool:
    """Whether the user message at ``index`` begins a turn: the first message, or one after
    an answer (a response without calls); one after another user message or after results
    (a hand-over's note) belongs to the turn before."""
    before = messages[index - 1] if index else None
    return before is None or (isinstance(before, AssistantMessage) and not before.tool_calls)
