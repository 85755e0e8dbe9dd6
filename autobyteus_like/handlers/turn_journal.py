"""TurnJournal: what a turn tells a durable session as it goes (``ctx.journal``).

The handlers call it at the points where durability matters, on the agent's thread, before
anything that depends on the write happens: a message received; a turn begun (its user message
in the history); a response complete (the assistant message and every call of it, in one
write, before any of those calls is asked about or started); a call waiting for a person,
approved or about to run; a result (before anything holding it goes to the LLM); the turn's
end. Without a session, ``ctx.journal`` is None and none of this costs anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from autobyteus_like.events import ConversationReset, UserMessageReceived
    from autobyteus_like.handlers.context import TurnState
    from autobyteus_like.handlers.scheduling import Slot
    from autobyteus_like.llm.messages import Message

__all__ = ["TurnJournal"]


class TurnJournal(Protocol):
    """The durable record of one agent's turns (implemented by ``store.AgentJournal``)."""

    def turn_received(self, message: UserMessageReceived) -> None:
        """A message arrived (it may wait for the current turn)."""

    def turn_started(self, turn: TurnState, messages: Sequence[Message]) -> None:
        """A turn began; its user message is the last of ``messages``."""

    def history_grew(self, messages: Sequence[Message], request_no: int | None = None) -> None:
        """Store the messages added since the last write (before an LLM request)."""

    def response_completed(self, turn: TurnState, messages: Sequence[Message]) -> None:
        """The response is whole: its assistant message and all its calls, at once."""

    def call_waiting(self, turn: TurnState, slot: Slot) -> None:
        """The call waits for a person."""

    def call_approved(self, turn: TurnState, slot: Slot) -> None:
        """A person allowed the call."""

    def call_running(self, turn: TurnState, slot: Slot) -> None:
        """The call is about to start (committed before it does)."""

    def call_finished(self, turn: TurnState, slot: Slot) -> None:
        """The call has its result (committed before the LLM sees it)."""

    def turn_ended(self, turn: TurnState, answer: str, error: str | None) -> None:
        """The turn is over."""

    def reset_received(self, reset: ConversationReset) -> None:
        """A reset waits for the current turn (it is applied when that turn ends)."""

    def conversation_reset(self, reset: ConversationReset) -> None:
        """The history starts over."""
