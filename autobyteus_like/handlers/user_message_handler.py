"""UserMessageHandler: a message starts a turn, or waits for the current turn to finish.
A conversation reset waits its turn the same way."""

from __future__ import annotations

from autobyteus_like.events import AgentEvent, ConversationReset, UserMessageReceived
from autobyteus_like.handlers.context import AgentContext
from autobyteus_like.handlers.turn_steps import reset_conversation, start_turn

__all__ = ["UserMessageHandler"]


class UserMessageHandler:
    """No interleaving: one turn at a time, messages in arrival order."""

    def handle(self, event: AgentEvent, ctx: AgentContext) -> None:
        assert isinstance(event, UserMessageReceived | ConversationReset)
        if ctx.journal is not None and isinstance(event, UserMessageReceived):
            ctx.journal.turn_received(event)
        if ctx.turn is not None:
            if ctx.journal is not None and isinstance(event, ConversationReset):
                ctx.journal.reset_received(event)  # it waits: a crash must not lose it
            ctx.waiting.append(event)
        elif isinstance(event, ConversationReset):
            reset_conversation(ctx, event)
        else:
            start_turn(ctx, event)
