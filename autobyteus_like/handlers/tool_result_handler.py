"""ToolResultHandler: puts each result in its call's slot, whatever order calls finish in,
starts what may run next, and when all are in, sends them to the LLM in invocation order."""

from __future__ import annotations

from loguru import logger

from autobyteus_like.events import AgentEvent, ToolResultReceived
from autobyteus_like.handlers.context import AgentContext, SlotState

__all__ = ["ToolResultHandler"]


class ToolResultHandler:
    """Handles ``ToolResultReceived``; duplicates and strays are logged, never counted."""

    def handle(self, event: AgentEvent, ctx: AgentContext) -> None:
        assert isinstance(event, ToolResultReceived)
        result = event.result
        turn = ctx.turn
        slot = turn.by_id.get(result.invocation_id) if turn else None
        if slot is None:
            logger.warning("agent {}: ignoring stray result for {}", ctx.name,
                           result.invocation_id)
            return
        if slot.result is not None:
            logger.warning("agent {}: ignoring duplicate result for {}", ctx.name,
                           result.invocation_id)
            return
        slot.result = result
        slot.state = SlotState.DONE
        ctx.run_ready_calls()
        ctx.advance()
