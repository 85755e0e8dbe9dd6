"""Ending a run on a verdict: a limit (through the hooks' ``verdict``) says the run is over, and
the turn machine ends it here; nothing outside the turn machine completes a turn.

The current turn fails with the ``UsageLimitExceededError``, and so does every message still
waiting or arriving later; the event that found it out is not handled.
"""

from __future__ import annotations

from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.events import AgentEvent, UserMessageReceived
from autobyteus_like.handlers._context import AgentContext
from autobyteus_like.handlers._effects import Effects, Reply
from autobyteus_like.handlers._turn_steps import complete_turn
from autobyteus_like.hooks._culprit import hook_failure

__all__ = ["end_run", "refuse"]


def refuse(event: AgentEvent, error: UsageLimitExceededError) -> Effects:
    """A message that arrives after the run ended fails at once (after its events are out)."""
    if isinstance(event, UserMessageReceived) and event.reply is not None:
        yield Reply(event.reply, error=error)


def end_run(ctx: AgentContext, error: UsageLimitExceededError) -> Effects:
    """Fail every waiting message and the current turn with ``error`` (no new turn starts).
    A hook that fails to record the end does not keep the run going: it is reported."""
    try:
        ctx.env.hooks.run_ended(error)
    except Exception as exc:
        yield ctx.problem(f"the end of the run could not be recorded ({hook_failure(exc)})",
                          type(exc).__name__)
    waiting = list(ctx.waiting)
    ctx.waiting.clear()
    for message in waiting:
        yield from refuse(message, error)
    turn = ctx.turn
    if turn is None:
        return
    if turn.reply is not None:  # before complete_turn's own AgentTurnError: this error wins
        yield Reply(turn.reply, error=error)
    yield from complete_turn(ctx, "", str(error))
