"""RequiredCallCheck: ``tool_choice: required`` (or a named tool) in a text format, where no
provider enforces it. Until the turn has made a call, a reply without one is answered once with
a plain instruction to call a tool (never a made-up failed call); should the next reply again
hold none, it stands as the answer (the turn ends rather than looping). A ``TurnCheck``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.handlers._turn_verdict import TurnVerdict

if TYPE_CHECKING:
    from autobyteus_like.handlers._context import AgentContext
    from autobyteus_like.tools._call_rules import ToolChoice

__all__ = ["RequiredCallCheck"]


class RequiredCallCheck:
    """The required-call check of one agent (its state is per turn)."""

    def __init__(self, choice: ToolChoice) -> None:
        self.choice = choice
        which = f"the tool {choice.name!r}" if choice.mode == "tool" else "one of the tools"
        self.nudge = (f"A tool call is required before you answer (tool_choice: "
                      f"{choice.mode}), and your reply made none. Call {which} now.")
        self._turn_id: int | None = None
        self._called = self._asked = False

    def __call__(self, ctx: AgentContext) -> TurnVerdict | None:
        turn = ctx.turn
        assert turn is not None
        if turn.turn_id != self._turn_id:
            self._turn_id, self._called, self._asked = turn.turn_id, False, False
        if len(turn.schedule):
            self._called = True
            return None
        if self._called or self._asked:
            return None  # the answer stands
        self._asked = True
        return TurnVerdict(note=self.nudge)
