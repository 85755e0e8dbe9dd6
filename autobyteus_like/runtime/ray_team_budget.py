"""A Ray team's limits (``limits:`` of the team), kept exactly across hosts.

Locally every member claims each LLM request and tool call from the team's ``RunBudget``
under its lock, so two members never both take the team's last call. On Ray the members live
in other processes, so the team's budget lives in one small Ray actor of the team's job
(``TeamBudgetKeeper``, created by the driver when the team has limits): each member's run
budget has a ``KeptRunBudget`` as its parent, which claims there (one round trip per call),
adds its responses' tokens and cost there, and ends the team's run there when a limit ends it.
A member learns that a teammate ended the run at its next claim or response. The driver still
counts usage from the streamed events (``ray_usage.py``) for ``team.usage``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.hooks.protocol import CallKind
from autobyteus_like.usage.budget import RunBudget
from autobyteus_like.usage.report import TeamUsage
from autobyteus_like.usage.usage_limits import UsageLimits

__all__ = ["KeptRunBudget", "TeamBudgetAddress", "TeamBudgetKeeper", "open_keeper",
           "take_address"]

Crossing = tuple[str, str, Any, Any, bool]
"""A ``UsageLimitExceededError`` as data (Ray cannot rebuild the exception itself)."""

_TIMEOUT_S = 30.0


def _as_data(error: UsageLimitExceededError | None) -> Crossing | None:
    if error is None:
        return None
    return (error.scope, error.limit, error.allowed, error.figure, error.refused)


def _as_error(data: Crossing) -> UsageLimitExceededError:
    scope, limit, allowed, figure, refused = data
    return UsageLimitExceededError(scope, limit, allowed, figure, refused=refused)


class TeamBudgetKeeper:
    """The team's run budget, in a Ray actor every host reaches by name."""

    def __init__(self, team: str, limits: UsageLimits) -> None:
        self._limits, self._scope = limits, f"team {team!r}"
        self._budget = RunBudget(limits, self._scope)

    def new_run(self) -> None:
        """A new run of the team (in place): its limits count from zero again."""
        self._budget = RunBudget(self._limits, self._scope)

    def claim(self, kind: CallKind) -> Crossing | None:
        """Count one more call of ``kind``, or the crossing that refuses it."""
        return _as_data(self._budget.claim(kind))

    def add_response(self, input_tokens: int, output_tokens: int, cached: int, reasoning: int,
                     cost: Decimal | None, model: str, reported: bool) -> Crossing | None:
        """Add a response's usage; the crossing that ends the run, if one does now."""
        self._budget.add_response(input_tokens, output_tokens, cached, reasoning, cost, model,
                                  reported)
        return _as_data(self._budget.check())

    def end(self, crossing: Crossing) -> None:
        self._budget.end(_as_error(crossing))

    def totals(self) -> tuple[int, int]:
        """The LLM and tool calls counted (for checks)."""
        totals = self._budget.totals
        return totals.llm_calls, totals.tool_calls


@dataclass(frozen=True, slots=True)
class TeamBudgetAddress:
    """Where a host finds its team's keeper (travels in a member's tools; ``take_address``)."""

    actor_name: str
    namespace: str | None
    team: str
    limits: UsageLimits

    def team_usage(self) -> TeamUsage:
        """The ``TeamUsage`` a host's member runs under: its run budget is the keeper's."""
        usage = TeamUsage(self.team, self.limits)
        usage.run = self.run_budget()
        return usage

    def run_budget(self) -> KeptRunBudget:
        """A member's part of the team's run budget, kept by the keeper (one per run)."""
        import ray

        return KeptRunBudget(self.limits, f"team {self.team!r}",
                             ray.get_actor(self.actor_name, namespace=self.namespace))


def take_address(tools: Iterable[Any]) -> tuple[list[Any], TeamBudgetAddress | None]:
    """A host member's tools without the keeper's address, and the address (if any)."""
    rest: list[Any] = []
    address = None
    for tool in tools:
        if isinstance(tool, TeamBudgetAddress):
            address = tool
        else:
            rest.append(tool)
    return rest, address


def open_keeper(actor_name: str, namespace: str | None, usage: TeamUsage | None
                ) -> tuple[Any, TeamBudgetAddress | None]:
    """The keeper of a team with limits (its handle, to end with the team, and its address),
    or (None, None) for a team without."""
    if usage is None or usage.limits is None:
        return None, None
    import ray

    remote: Any = ray.remote  # untyped in Ray's stubs for a class
    keeper = remote(num_cpus=0, max_restarts=0, lifetime="non_detached")(
        TeamBudgetKeeper).options(name=actor_name, namespace=namespace).remote(
            usage.name, usage.limits)
    return keeper, TeamBudgetAddress(actor_name, namespace, usage.name, usage.limits)


class KeptRunBudget(RunBudget):
    """A team's run budget whose figures and limits are kept by the team's keeper actor;
    this process's members claim and report there."""

    def __init__(self, limits: UsageLimits | None, scope: str, keeper: Any) -> None:
        super().__init__(limits, scope)
        self._keeper = keeper

    def _ask(self, call: Any) -> Crossing | None:
        # .future(): members' threads run inside an asyncio actor, where ray.get warns
        reply: Crossing | None = call.future().result(timeout=_TIMEOUT_S)
        return reply

    def claim(self, kind: CallKind) -> UsageLimitExceededError | None:
        if self._error is not None:
            return self._error
        crossing = self._ask(self._keeper.claim.remote(kind))
        if crossing is not None:
            error = _as_error(crossing)
            if not error.refused:  # the run ended before (a teammate): so here too
                super().end(error)
            return error
        self.add_calls(*((1, 0) if kind == "llm_calls" else (0, 1)))  # this process's part
        return None

    def add_response(self, input_tokens: int, output_tokens: int, cached: int, reasoning: int,
                     cost: Decimal | None, model: str, reported: bool = True) -> None:
        super().add_response(input_tokens, output_tokens, cached, reasoning, cost, model,
                             reported)
        crossing = self._ask(self._keeper.add_response.remote(
            input_tokens, output_tokens, cached, reasoning, cost, model, reported))
        if crossing is not None:
            super().end(_as_error(crossing))

    def check(self) -> UsageLimitExceededError | None:
        """As the keeper last said (asked at every claim and response)."""
        return self._error

    def end(self, error: UsageLimitExceededError) -> None:
        first = self._error is None
        super().end(error)
        if first:
            self._keeper.end.remote(_as_data(error))
