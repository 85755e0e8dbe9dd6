"""The event that ends a run whose usage crossed a limit, seen by subscribers like any other."""

from __future__ import annotations

from dataclasses import dataclass

from autobyteus_like.events import AgentEvent

__all__ = ["UsageLimitReached"]


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageLimitReached(AgentEvent):
    """A limit of the run was crossed (by this agent or a teammate): the agent ends its turn,
    stops its LLM request and tools, and refuses further messages of the run."""

    limit: str
    message: str
