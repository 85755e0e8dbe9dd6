"""HandoffCheck: a response whose handoff call (``transfer_to_<member>``) succeeded ends its
turn there, as a check of the turn machine (``turn_verdict``). It is asked once every call of
the response has its result (the handoff itself runs last: ``scheduling``), so the
conversation the receiver is given has every call paired with its result; the turn's answer
is a ``HandedOver`` carrying it, which the team gives the receiver."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from autobyteus_like.handlers._turn_verdict import TurnVerdict
from autobyteus_like.history._handover import HandedOver
from autobyteus_like.history._replay import to_history
from autobyteus_like.tools._handoff import handoff_receiver

if TYPE_CHECKING:
    from autobyteus_like.handlers._context import AgentContext
    from autobyteus_like.llm._messages import Message

__all__ = ["HandoffCheck"]


class HandoffCheck:
    """Ends the turn with a ``HandedOver`` when the response's first handoff succeeded (a
    later one in the same response was refused before it ran: ``tool_invocation``)."""

    def __call__(self, ctx: AgentContext) -> TurnVerdict | None:
        turn = ctx.turn
        assert turn is not None
        slot = turn.schedule.first_handoff
        if slot is None or slot.result is None or slot.result.error is not None:
            return None  # none, or it failed (denied, refused, invalid): the model is told
        receiver = handoff_receiver(slot.tool)
        assert receiver is not None
        text = str(slot.result.content)
        reason = str(slot.invocation.arguments.get("reason", ""))
        sender, format_name, invocation_id = ctx.name, ctx.env.format.name, slot.invocation.id

        def handed_over(messages: Sequence[Message]) -> str:
            return HandedOver(text, sender=sender, receiver=receiver, reason=reason,
                              invocation_id=invocation_id,
                              history=to_history(messages, format_name))

        return TurnVerdict(answer=text, finish=handed_over)
