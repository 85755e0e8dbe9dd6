"""ToolResultHandler: puts each result in its call's slot, whatever order calls finish in,
starts what may run next, and when all are in, sends them to the LLM in invocation order.

A result with no slot (its turn already ended, say because a write failed; a duplicate after a
timeout) is never stored, so it is not shown either: events are published only for what was
stored."""

from __future__ import annotations

from loguru import logger

from autobyteus_like.errors import StrayEventError
from autobyteus_like.events import AgentEvent, ToolResultReceived
from autobyteus_like.handlers._context import AgentContext
from autobyteus_like.handlers._effects import Effects
from autobyteus_like.handlers._turn_steps import advance, start_ready_calls

__all__ = ["ToolResultHandler"]


class ToolResultHandler:
    """Handles ``ToolResultReceived``; duplicates and strays are logged, never counted nor
    shown."""

    def handle(self, event: AgentEvent, ctx: AgentContext) -> Effects:
        assert isinstance(event, ToolResultReceived)
        result = event.result
        turn = ctx.turn
        slot = None if turn is None else turn.schedule.finish(result.invocation_id, result)
        if slot is None or turn is None:
            logger.warning("agent {}: ignoring a stray or duplicate result for {}", ctx.name,
                           result.invocation_id)
            raise StrayEventError(result.invocation_id)
        ctx.env.hooks.call_finished(turn, slot)  # stored before the LLM can be sent it
        yield from start_ready_calls(ctx)
        yield from advance(ctx)  # (nothing when the calls started ended the run)
