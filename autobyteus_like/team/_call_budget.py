"""The budget of one call of a member as a tool: the fresh callee spends the team's run (its
requests, calls, tokens and cost count there, under the team's limits), while a limit of the
callee's own ends only that call, a failed result for its caller, not the team's run (a
member's own limit ends its team's run everywhere else: ``usage/_budget.py``)."""

from __future__ import annotations

from decimal import Decimal

from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.usage._budget import RunBudget
from autobyteus_like.usage._report import TeamUsage

__all__ = ["call_usage"]


class _CallBudget(RunBudget):
    """Between a fresh callee's own run budget and its team's: no limits of its own; counts
    and checks go through to the team's; an end goes up only when it is the team's."""

    def __init__(self, team: RunBudget, callee: str) -> None:
        super().__init__(None, f"a call of {callee!r}", parent=team)
        self._own = f"agent {callee!r}"

    def add_response(self, input_tokens: int, output_tokens: int, cached: int, reasoning: int,
                     cost: Decimal | None, model: str, reported: bool = True) -> None:
        super().add_response(input_tokens, output_tokens, cached, reasoning, cost, model,
                             reported)
        if self.parent is not None:
            self.parent.add_response(input_tokens, output_tokens, cached, reasoning, cost,
                                     model, reported)

    def _ends_parent(self, error: UsageLimitExceededError) -> bool:
        """The callee's own limit stops here: this call ends, its caller's run goes on (the
        team's limit, or another's, ends the team's run)."""
        return error.scope != self._own


def call_usage(team: TeamUsage, callee: str) -> TeamUsage:
    """What a fresh callee of ``team`` counts its usage in, as a member counts in its team's."""
    usage = TeamUsage(team.name, team.limits)
    usage.session = team.session
    usage.run = _CallBudget(team.run, callee)
    return usage
