"""Token usage, cost and limits of agents and teams (``agent.usage``, ``team.usage``). The meter
is one of the turn's hooks: it counts through them and ends a run only through its verdict."""

from autobyteus_like.usage._budget import RunBudget, UsageLedger
from autobyteus_like.usage._limit_event import UsageLimitReached
from autobyteus_like.usage._limits import UsageLimits
from autobyteus_like.usage._prices import ModelPrice, PriceTable
from autobyteus_like.usage._report import TeamUsage, UsageReport
from autobyteus_like.usage._totals import UsageTotals

__all__ = ["ModelPrice", "PriceTable", "RunBudget", "TeamUsage", "UsageLedger",
           "UsageLimitReached", "UsageLimits", "UsageReport", "UsageTotals"]
