"""AgentMeter: one agent's usage, counted through the turn's hooks on its actor thread.

It counts an LLM request and a tool call when the turn machine claims it (the moment the request
is sent, or the tool's body starts: a call refused by a limit is never counted, and one admitted
but then not made is released: its count given back), and tokens and cost when a response
arrives, into the agent's run and its turn (plain sums only this thread writes) and, for a
member, into its team's run and session (shared, under their locks). Its ``verdict`` asks the
run's budget whether a limit is crossed; the turn machine then ends the run. Its ``keeper`` is
told the run's figures each time they change (a session stores them, so the budget holds
across a kill and a resume). When the run starts (``run_started``) it asks its budget to end
the run through the agent whenever a limit is crossed elsewhere (a teammate's).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.hooks._protocol import AgentHooks, CallKind, TurnView
from autobyteus_like.usage._budget import RunBudget, UsageLedger
from autobyteus_like.usage._keeper import UsageKeeper
from autobyteus_like.usage._prices import Pricing
from autobyteus_like.usage._totals import Tally, UsageTotals

if TYPE_CHECKING:
    from autobyteus_like.events import LLMResponseCompleted

__all__ = ["AgentMeter"]

_KEPT_TURNS = 256
"""Per-turn sums kept (the most recent): a long session's memory stays bounded."""


class AgentMeter(AgentHooks):
    """Counts one agent's usage into its ledgers and keeps its run's limits."""

    def __init__(self, pricing: Pricing, budget: RunBudget,
                 shared: tuple[UsageLedger, ...] = (), keeper: UsageKeeper | None = None
                 ) -> None:
        self._pricing = pricing
        self.budget = budget
        self._save = (keeper or UsageKeeper()).save
        self._shared = shared
        self._ledgers = tuple(ledger for ledger in shared if ledger is not budget.parent)
        """Where calls are added besides the run's budgets (which ``claim`` counts in)."""
        self._turns: OrderedDict[int, Tally] = OrderedDict()
        self._current: tuple[int, Tally] | None = None
        # Decided once, here: the turn asks ``verdict`` ~6 times and ``claim`` 3 times.
        if budget.limits is None and budget.parent is None:  # nothing but an ended run refuses
            # ``budget.error`` without its property's frame (a C call)
            self.verdict = partial(getattr, budget, "_error")  # type: ignore[method-assign]
            if not self._ledgers and keeper is None:  # nothing to tell: count, and go
                self.claim = self._count  # type: ignore[method-assign]
                self.release = self._uncount  # type: ignore[method-assign]
        else:
            self.verdict = budget.check  # type: ignore[method-assign]  # one call less

    @property
    def turns(self) -> dict[int, UsageTotals]:
        """Usage per turn id (the most recent turns)."""
        return {turn_id: tally.snapshot() for turn_id, tally in list(self._turns.items())}

    def _turn(self, turn: TurnView) -> Tally:
        current = self._current
        if current is not None and current[0] == turn.turn_id:
            return current[1]
        return self._new_turn(turn)

    def _new_turn(self, turn: TurnView) -> Tally:
        tally = self._turns[turn.turn_id] = Tally()
        self._current = (turn.turn_id, tally)
        if len(self._turns) > _KEPT_TURNS:
            self._turns.popitem(last=False)
        return tally

    def verdict(self) -> UsageLimitExceededError | None:
        """The error ending the run if a limit of it (or its team's) is crossed."""
        return self.budget.check()

    def claim(self, turn: TurnView, kind: CallKind) -> UsageLimitExceededError | None:
        """Count the LLM request or tool call about to be made, unless a limit of the run (or
        its team's) has no room left: then nothing is counted and the error refuses it."""
        error = self.budget.claim(kind)
        if error is not None:
            return error
        tally = self._turn(turn)
        if kind == "llm_calls":
            tally.llm_calls += 1
            for ledger in self._ledgers:
                ledger.add_calls(1, 0)
        else:
            tally.tool_calls += 1
            for ledger in self._ledgers:
                ledger.add_calls(0, 1)
        self._save(self.budget.tally)  # kept before the call is made
        return None

    def release(self, turn: TurnView, kind: CallKind) -> None:
        """The request or call claimed was not made: give its count back (the run's, its
        team's, the turn's and the shared ledgers')."""
        self.budget.release(kind)
        self._untally(turn, kind)
        for ledger in self._ledgers:
            ledger.add_calls(*((-1, 0) if kind == "llm_calls" else (0, -1)))
        self._save(self.budget.tally)

    def _untally(self, turn: TurnView, kind: CallKind) -> None:
        tally = self._turns.get(turn.turn_id)
        if tally is not None and getattr(tally, kind) > 0:
            setattr(tally, kind, getattr(tally, kind) - 1)

    def _uncount(self, turn: TurnView, kind: CallKind) -> None:
        """``release`` for the runs ``_count`` counts (this thread the only writer)."""
        run = self.budget.tally
        if getattr(run, kind) > 0:
            setattr(run, kind, getattr(run, kind) - 1)
        self._untally(turn, kind)

    def run_started(self, end_run: Callable[[UsageLimitExceededError], None]) -> None:
        """A limit of the run crossed anywhere (a teammate's, on its thread) ends it here."""
        self.budget.on_exceeded(end_run)

    def _count(self, turn: TurnView, kind: CallKind) -> UsageLimitExceededError | None:
        """``claim`` for a run with no limits, no team and no keeper: nothing can refuse the
        call but a run already ended, and nothing but this meter hears of it (the budget's
        own tally has this thread as its only writer, as in ``response_received``)."""
        error = self.budget._error  # (the property's value, without its frame)
        if error is not None:
            return error
        current = self._current
        tally = (current[1] if current is not None and current[0] == turn.turn_id
                 else self._new_turn(turn))
        run = self.budget.tally
        if kind == "llm_calls":
            tally.llm_calls += 1
            run.llm_calls += 1
        else:
            tally.tool_calls += 1
            run.tool_calls += 1
        return None

    def run_ended(self, error: UsageLimitExceededError) -> None:
        """The run ended (here, on a refused call): every actor of the run hears of it."""
        self.budget.end(error)

    def response_received(self, turn: TurnView, response: LLMResponseCompleted) -> None:
        reported = response.input_tokens is not None or response.output_tokens is not None
        input_tokens, output_tokens = response.input_tokens or 0, response.output_tokens or 0
        cached, reasoning = response.cached_input_tokens or 0, response.reasoning_tokens or 0
        answered_by = response.answered_by  # a fallback model's own prices
        pricing = self._pricing if answered_by is None else self._pricing.of(answered_by)
        cost = pricing.cost(input_tokens, output_tokens, cached) if reported else None
        label = pricing.label
        self.budget.tally.add_response(input_tokens, output_tokens, cached, reasoning, cost,
                                       label, reported)
        current = self._current
        tally = (current[1] if current is not None and current[0] == turn.turn_id
                 else self._new_turn(turn))
        tally.add_response(input_tokens, output_tokens, cached, reasoning, cost,
                                      label, reported)
        for ledger in self._shared:
            ledger.add_response(input_tokens, output_tokens, cached, reasoning, cost, label,
                                reported)
        self._save(self.budget.tally)
