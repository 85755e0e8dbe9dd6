"""UserMessageHandler: a message starts a turn, or waits for the current turn to finish.
A conversation reset waits its turn the same way. A message that comes after a limit ended
the run is refused."""

from __future__ import annotations

from autobyteus_like.events import AgentEvent, ConversationReset, UserMessageReceived
from autobyteus_like.handlers._context import AgentContext
from autobyteus_like.handlers._effects import Effects
from autobyteus_like.handlers._run_end import refuse
from autobyteus_like.handlers._turn_steps import reset_conversation, run_over, start_turn

__all__ = ["UserMessageHandler"]


class UserMessageHandler:
    """No interleaving: one turn at a time, messages in arrival order."""

    def handle(self, event: AgentEvent, ctx: AgentContext) -> Effects:
        if isinstance(event, ConversationReset):
            ctx.env.hooks.reset_received(event, waits=ctx.turn is not None)
            if ctx.turn is not None:
                ctx.waiting.append(event)
            else:
                reset_conversation(ctx, event)
            return
        assert isinstance(event, UserMessageReceived)
        over = run_over(ctx)
        if over is not None:  # the run ends (if it had not), and the message is refused
            yield over
            yield from refuse(event, over.error)
            return
        ctx.env.hooks.message_received(event)
        if ctx.turn is not None:
            ctx.waiting.append(event)
        else:
            yield from start_turn(ctx, event)
