"""The mail room's events, merged into the team's event stream next to the members' events."""

from __future__ import annotations

from dataclasses import dataclass

from autobyteus_like.events import AgentEvent

__all__ = ["MessageDelivered", "TeamQuiescent"]


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageDelivered(AgentEvent):
    """A message reached a member's mailbox (``agent`` is the team's name)."""

    sender: str | None
    recipient: str
    content: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamQuiescent(AgentEvent):
    """No member is busy and no message is in flight (``agent`` is the team's name)."""

    answer: str
    error: str | None = None
