"""EmptyAnswerCheck: a reply with no text and no call is not an answer. The model is asked
again once, with a nudge it reads; a second empty reply ends the turn with an error saying the
model returned nothing (a ``TurnCheck``, first of an agent's checks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.errors import AgentTurnError
from autobyteus_like.handlers._turn_verdict import TurnVerdict

if TYPE_CHECKING:
    from autobyteus_like.handlers._context import AgentContext

__all__ = ["EmptyAnswerCheck"]


class EmptyAnswerCheck:
    """The empty-reply check of one agent (its count is per turn)."""

    def __init__(self, nudge: str, retries: int = 1) -> None:
        self.nudge = nudge
        self.retries = retries
        self._turn_id: int | None = None
        self._empty = 0

    def __call__(self, ctx: AgentContext) -> TurnVerdict | None:
        turn = ctx.turn
        assert turn is not None
        if turn.turn_id != self._turn_id:
            self._turn_id, self._empty = turn.turn_id, 0
        if len(turn.schedule) or "".join(turn.prose).strip():
            return None
        self._empty += 1
        if self._empty > self.retries:
            return TurnVerdict(failure=AgentTurnError(ctx.name, (
                f"the model returned nothing: {self._empty} empty replies (no text, no tool "
                "call), the last after it was asked again")))
        return TurnVerdict(note=self.nudge)
