"""Usage limits of a run (a team's) or of one member: crossing any ends the run."""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.usage._totals import UsageTotals

__all__ = ["UsageLimits"]


class UsageLimits(BaseModel):
    """``limits:`` in YAML and configs; each one optional. A figure above its limit ends the
    run: tokens and cost are checked as each LLM response arrives, calls before they start
    (the call that would cross the limit never runs)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_input_tokens: int | None = Field(default=None, ge=0)
    max_output_tokens: int | None = Field(default=None, ge=0)
    max_cost_usd: Decimal | None = Field(default=None, ge=0, allow_inf_nan=False)
    max_tool_calls: int | None = Field(default=None, ge=0)
    max_llm_calls: int | None = Field(default=None, ge=0)

    @property
    def counts_tokens(self) -> bool:
        """Whether a limit needs every response's token usage (tokens or cost)."""
        return (self.max_input_tokens is not None or self.max_output_tokens is not None
                or self.max_cost_usd is not None)

    def crossed(self, totals: UsageTotals, scope: str) -> UsageLimitExceededError | None:
        """The first limit ``totals`` is above, as the error that ends the run (None: none).
        A cost limit with an unknown cost, or a token limit with a response that reported no
        usage, cannot be kept, and ends the run too (unknown is never taken for 0)."""
        for limit, figure in (("max_llm_calls", totals.llm_calls),
                              ("max_tool_calls", totals.tool_calls),
                              ("max_input_tokens", totals.input_tokens),
                              ("max_output_tokens", totals.output_tokens)):
            allowed = getattr(self, limit)
            if allowed is not None and figure > allowed:
                return UsageLimitExceededError(scope, limit, allowed, figure)
        for limit in ("max_input_tokens", "max_output_tokens"):
            if getattr(self, limit) is not None and not totals.tokens_known:
                return UsageLimitExceededError(
                    scope, limit, getattr(self, limit), "unknown",
                    detail=f"{totals.unreported} response(s) reported no token usage")
        if self.max_cost_usd is not None:
            if totals.cost_usd is None:
                return UsageLimitExceededError(
                    scope, "max_cost_usd", self.max_cost_usd, "unknown",
                    detail=f"no price for {', '.join(totals.unpriced)}; give it under prices:")
            if totals.cost_usd > self.max_cost_usd:
                return UsageLimitExceededError(scope, "max_cost_usd", self.max_cost_usd,
                                               totals.cost_usd)
        return None
