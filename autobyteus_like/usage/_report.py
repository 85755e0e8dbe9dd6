"""The usage an agent or a team shows (``agent.usage``, ``team.usage``), and the ledgers behind
it across runs: a run lasts from start to stop; a session is every run of the same object."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from autobyteus_like.llm._base import LLM
from autobyteus_like.usage._budget import RunBudget, UsageLedger
from autobyteus_like.usage._keeper import UsageKeeper
from autobyteus_like.usage._limits import UsageLimits
from autobyteus_like.usage._meter import AgentMeter
from autobyteus_like.usage._prices import PriceTable, Pricing
from autobyteus_like.usage._totals import Tally, UsageTotals

__all__ = ["AgentUsage", "TeamUsage", "UsageReport"]


@dataclass(frozen=True)
class UsageReport:
    """``run``: since the last start; ``session``: every run of this agent or team;
    ``turns``: one agent's recent turns by turn id; ``members``: a team's members' runs."""

    run: UsageTotals
    session: UsageTotals
    turns: dict[int, UsageTotals] = field(default_factory=dict)
    members: dict[str, UsageTotals] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"run": self.run.as_json(), "session": self.session.as_json()}
        if self.members:
            data["members"] = {name: totals.as_json() for name, totals in self.members.items()}
        return data


class TeamUsage:
    """A team's ledgers: its session, and its current run with the team's limits."""

    def __init__(self, name: str, limits: UsageLimits | None) -> None:
        self.name = name
        self.limits = limits
        self.session = UsageLedger()
        self.run = RunBudget(limits, f"team {name!r}")

    def start_run(self) -> None:
        """A new run: fresh figures, and limits counted from zero again."""
        self.run = RunBudget(self.limits, f"team {self.name!r}")

    def report(self, members: dict[str, UsageTotals]) -> UsageReport:
        return UsageReport(self.run.totals, self.session.totals, members=members)


class AgentUsage:
    """An agent's ledgers: its session, its current run and meter (with its own limits, under
    its team's run when it is a member)."""

    def __init__(self, name: str, limits: UsageLimits | None, prices: PriceTable,
                 team: TeamUsage | None = None) -> None:
        self.name = name
        self.limits = limits
        self.prices = prices
        self.team = team
        self._earlier = Tally()
        """The runs before the current one (the session is those and the current run)."""
        self.meter: AgentMeter | None = None

    def start_run(self, llm: LLM, keeper: UsageKeeper | None = None) -> AgentMeter:
        """The meter of a new run of this agent, counting on from what ``keeper`` says the
        run spent in its earlier processes (a resumed session's run). A token or cost limit
        over an LLM known to report no usage is warned about here: that run ends at its
        first response."""
        for limits in (self.limits, self.team.limits if self.team else None):
            if limits is not None and limits.counts_tokens and not llm.reports_usage:
                warnings.warn(
                    f"agent {self.name!r}: its LLM ({type(llm).__name__}) reports no token "
                    "usage, so a token or cost limit cannot be kept: the run ends at its "
                    "first response", UserWarning, stacklevel=2)
                break
        if self.meter is not None:
            self._earlier.merge(self.meter.budget.tally)
        team = self.team
        budget = RunBudget(self.limits, f"agent {self.name!r}",
                           parent=team.run if team is not None else None)
        shared = () if team is None else (team.run, team.session)
        carried = keeper.carried() if keeper is not None else None
        if carried is not None:  # the run's and its team's figures go on from there
            for ledger in (budget, *shared):
                ledger.merge(carried)
        self.meter = AgentMeter(Pricing(self.prices, llm), budget, shared, keeper)
        return self.meter

    def report(self) -> UsageReport:
        meter = self.meter
        if meter is None:
            return UsageReport(UsageTotals(), UsageTotals())
        session = Tally()
        session.merge(self._earlier)
        session.merge(meter.budget.tally)
        return UsageReport(meter.budget.totals, session.snapshot(), turns=meter.turns)
