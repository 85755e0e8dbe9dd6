"""What a member's Ray actor reports to the driver besides its events, in the same ordered
stream: a message it delivered to a teammate, the end of a turn a message started, and the
start of a new run in place."""

from __future__ import annotations

from dataclasses import dataclass

from autobyteus_like.events import AgentEvent

__all__ = ["Delivered", "RunBegan", "TurnEnded"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Delivered(AgentEvent):
    """``agent`` (the sender) put a message in ``recipient``'s mailbox; ``incarnation`` names
    the recipient's process that took it. Reported before the sender's tool returns, so the
    driver counts it before the sender's turn can end."""

    message_id: str
    recipient: str
    content: str
    incarnation: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEnded(AgentEvent):
    """The turn message ``message_id`` started in ``agent`` ended: its answer, or its error."""

    message_id: str
    answer: str = ""
    error: str | None = None
    limit: tuple[str, str, object, object, str, bool] | None = None
    """When a usage limit ended the turn: its scope, name, value, figure reached, detail and
    whether a call was refused, so the driver raises the very ``UsageLimitExceededError`` a
    local member raises (same message, same attributes)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunBegan(AgentEvent):
    """``agent`` began new run ``run`` in place: everything the host reported of the run
    before came first in the stream (so the driver, once it sees this, has it all)."""

    run: str
