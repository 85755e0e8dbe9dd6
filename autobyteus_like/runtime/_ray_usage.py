"""A Ray member's usage, counted on the driver from the events its actor streams.

The member's own meter runs in its actor's process and cannot write the driver's ledgers, so
the driver counts what it is shown: an LLM call per ``LLMRequestStarted``, a tool call per
``ToolStarted``, tokens and cost per ``LLMResponseCompleted``, into the member's run and
its team's run and session. Events cross the network once someone on the driver subscribes
(the command line always does); usage limits are refused for Ray teams when the config is
loaded, since the actors do not share the driver's budget.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import cast

from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.events import (
    AgentEvent,
    LLMRequestStarted,
    LLMResponseCompleted,
    ToolStarted,
)
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.usage._budget import UsageLedger
from autobyteus_like.usage._prices import Pricing
from autobyteus_like.usage._report import TeamUsage, UsageReport
from autobyteus_like.usage._totals import Tally

__all__ = ["DriverUsage"]


class DriverUsage:
    """One member's usage as the driver sees it (thread-safe: the backend's pump writes it,
    anyone reads it)."""

    def __init__(self, config: AgentConfig, team: TeamUsage | None) -> None:
        self._tally = Tally()
        self._team = team
        self._lock = threading.Lock()
        llm = config.llm
        if not isinstance(llm, LLM):  # still data (an LLMSpec): what prices need of it
            llm = cast(LLM, SimpleNamespace(provider=LLMProvider.parse(llm.provider),
                                            model=llm.model, base_url=llm.base_url))
        self._pricing = Pricing(config.prices, llm)

    def see(self, event: AgentEvent) -> None:
        """Count what one streamed event says."""
        if isinstance(event, LLMRequestStarted):
            self._calls(1, 0)
        elif isinstance(event, ToolStarted):  # a call counts when its body starts, as locally
            self._calls(0, 1)
        elif isinstance(event, LLMResponseCompleted):
            reported = event.input_tokens is not None or event.output_tokens is not None
            tokens = (event.input_tokens or 0, event.output_tokens or 0,
                      event.cached_input_tokens or 0, event.reasoning_tokens or 0)
            cost = self._pricing.cost(tokens[0], tokens[1], tokens[2]) if reported else None
            with self._lock:
                self._tally.add_response(*tokens, cost, self._pricing.label)
            for ledger in self._ledgers():
                ledger.add_response(*tokens, cost, self._pricing.label)

    def _calls(self, llm_calls: int, tool_calls: int) -> None:
        with self._lock:
            self._tally.llm_calls += llm_calls
            self._tally.tool_calls += tool_calls
        for ledger in self._ledgers():
            ledger.add_calls(llm_calls, tool_calls)

    def run_ended(self, error: UsageLimitExceededError) -> None:
        """A limit ended the member's run: it ends its team's run too, as locally."""
        if self._team is not None:
            self._team.run.end(error)

    def _ledgers(self) -> tuple[UsageLedger, ...]:
        team = self._team
        return () if team is None else (team.run, team.session)

    def report(self) -> UsageReport:
        with self._lock:
            totals = self._tally.snapshot()
        return UsageReport(totals, totals)
