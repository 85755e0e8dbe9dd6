"""ToolRetryBudget: ``@tool(retries=n)`` as a check of the turn machine (``turn_verdict``): the
model may correct invalid calls of a tool n times in a turn, and the next one ends the turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.errors import AgentTurnError
from autobyteus_like.formatters._base import error_text
from autobyteus_like.handlers._turn_verdict import TurnVerdict
from autobyteus_like.tools._invocation import ErrorCode

if TYPE_CHECKING:
    from autobyteus_like.handlers._context import AgentContext

__all__ = ["ToolRetryBudget"]

_INVALID = frozenset({ErrorCode.INVALID_ARGS, ErrorCode.PARSE_ERROR, ErrorCode.MISSING_WHY})
"""The failures that mean the model wrote the call wrongly (not that the tool failed)."""


class ToolRetryBudget:
    """``@tool(retries=n)``: the model may correct invalid calls of that tool n times in a
    turn; the next invalid call ends the turn with an error naming the tool and the problem."""

    def __init__(self) -> None:
        self._turn_id: int | None = None
        self._invalid: dict[str, int] = {}  # (a dict: a Counter per turn costs two calls)

    def __call__(self, ctx: AgentContext) -> TurnVerdict | None:
        turn = ctx.turn
        assert turn is not None
        if turn.turn_id != self._turn_id:
            self._turn_id, self._invalid = turn.turn_id, {}
        for slot in turn.schedule:
            result = slot.result
            if result is None or result.error is None or result.error.code not in _INVALID:
                continue
            tool = slot.tool or ctx.env.tools.find(slot.invocation.name)
            if tool is None or tool.retries is None:
                continue
            self._invalid[tool.name] = self._invalid.get(tool.name, 0) + 1
            if self._invalid[tool.name] > tool.retries:
                return TurnVerdict(failure=AgentTurnError(ctx.name, (
                    f"the tool {tool.name!r} was called wrongly {self._invalid[tool.name]} "
                    f"times in this turn, more than its retries={tool.retries} allow; the last "
                    f"problem: {error_text(result)}")))
        return None
