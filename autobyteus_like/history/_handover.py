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
    UserMessage,
)

__all__ = ["HANDOFF_HISTORY", "HandedOver", "check_handoff_history", "handed_history",
           "handoff_mail_id", "handoff_note"]

HANDOFF_HISTORY = re.compile(r"^(all|user|last:[1-9][0-9]{0,5})$")
"""``all`` (the default: the whole conversation), ``user`` (only the user's messages) or
``last:N`` (the last N turns, each from a user's message on, every call with its result)."""


def check_handoff_history(value: str) -> str:
    """``value`` when it is a ``handoff_history`` setting, else ``ValueError`` saying which are."""
    if not HANDOFF_HISTORY.match(value):
        raise ValueError(f"handoff_history is 'all', 'user' or 'last:N' (N a whole number "
                         f"from 1), got {value!r}")
    return value


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
    if setting == "user":
        return [m for m in messages if isinstance(m, UserMessage)]
    if setting.startswith("last:"):
        wanted = int(setting.partition(":")[2])
        starts = [i for i, m in enumerate(messages)
                  if isinstance(m, UserMessage) and _opens_turn(messages, i)]
        if len(starts) > wanted:
            messages = messages[starts[-wanted]:]
    return messages


def _opens_turn(messages: Sequence[HistoryMessage], index: int) -> bool:
    """Whether the user message at ``index`` begins a turn: the first message, or one after
    an answer (a response without calls); one after another user message or after results
    (a hand-over's note) belongs to the turn before."""
    before = messages[index - 1] if index else None
    return before is None or (isinstance(before, AssistantMessage) and not before.tool_calls)
