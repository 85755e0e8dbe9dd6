"""Token usage, cost and limits of agents and teams (``agent.usage``, ``team.usage``). The meter
is one of the turn's hooks: it counts through them and ends a run only through its verdict."""

from autobyteus_like.usage.budget import RunBudget, UsageLedger
from autobyteus_like.usage.limit_event import UsageLimitReached
from autobyteus_like.usage.prices import ModelPrice, PriceTable
from autobyteus_like.usage.report import TeamUsage, UsageReport
from autobyteus_like.usage.totals import UsageTotals
from autobyteus_like.usage.usage_limits import UsageLimits

__all__ = ["ModelPrice", "PriceTable", "RunBudget", "TeamUsage", "UsageLedger",
           "UsageLimitReached", "UsageLimits", "UsageReport", "UsageTotals"]
