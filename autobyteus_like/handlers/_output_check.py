"""OutputCheck: where a turn of an agent with an output type may end.

It runs when a response is complete and its calls are done (a ``TurnCheck``). A successful
``final_result`` call ends the turn with its answer. A failed one (arguments that do not fit,
a validator's ``ModelRetry``) goes back to the model with the other results, as any failed
call does. A response without calls is read as an answer written as text: accepted when it
fits, else the model is told to call ``final_result``. Each wrong answer counts against
``output_retries``; one more ends the turn with ``OutputValidationError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.errors import OutputValidationError
from autobyteus_like.formatters._base import error_text
from autobyteus_like.handlers._turn_verdict import TurnVerdict
from autobyteus_like.output._spec import FINAL_RESULT, OutputSpec

if TYPE_CHECKING:
    from autobyteus_like.handlers._context import AgentContext

__all__ = ["OutputCheck"]


class OutputCheck:
    """The typed-output check of one agent (its count of wrong answers is per turn)."""

    def __init__(self, spec: OutputSpec, retries: int, by_tool: bool = True) -> None:
        self.spec = spec
        self.retries = retries
        self.how = (f"by calling the {FINAL_RESULT} tool, as the instructions show" if by_tool
                    else "as JSON that fits the response schema, and nothing else")
        self._turn_id: int | None = None
        self._wrong = 0

    def __call__(self, ctx: AgentContext) -> TurnVerdict | None:
        turn = ctx.turn
        assert turn is not None
        if turn.turn_id != self._turn_id:
            self._turn_id, self._wrong = turn.turn_id, 0
        answers = [slot for slot in turn.schedule if slot.invocation.name == FINAL_RESULT]
        for slot in answers:
            if slot.result is not None and slot.result.status == "success":
                return TurnVerdict(answer=OutputSpec.answer(slot.result.content))
        if answers:  # every answer failed: the model reads why with the results
            last = answers[-1].result
            problem = error_text(last) if last is not None else "no result"
            return self._wrong_answer(ctx, problem, note=None)
        if len(turn.schedule):
            return None  # other tools first
        ok, found = self.spec.from_text("".join(turn.prose))
        if ok:
            return TurnVerdict(answer=OutputSpec.answer(found))
        return self._wrong_answer(ctx, str(found), note=(
            f"Your answer was not accepted: {found}. Give your final answer {self.how}."))

    def _wrong_answer(self, ctx: AgentContext, problem: str, note: str | None
                      ) -> TurnVerdict | None:
        self._wrong += 1
        if self._wrong > self.retries:
            return TurnVerdict(failure=OutputValidationError(ctx.name, self._wrong, [problem]))
        return None if note is None else TurnVerdict(note=note)
