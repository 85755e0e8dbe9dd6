"""What the facade tells an agent's actor besides events: new tools, resuming the stored
turns (one message for going on and for giving up), asking for the conversation, and handing
its subscribers on to the actor of the agent's next run."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autobyteus_like.store._restore import TurnSnapshot
    from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["ConversationQuery", "HandOver", "ResumeTurns", "ToolsRefreshed"]


@dataclass(frozen=True)
class ConversationQuery:
    """Ask the actor (``ask``) for its system prompt and conversation as they are now."""


@dataclass(frozen=True)
class HandOver:
    """Ask the actor (``ask``) for its conversation as a ``TurnSnapshot`` (history, call ids,
    request count), the last thing before it is stopped for a new run of its agent: its stop
    then leaves the event subscriptions open for the next actor."""


@dataclass(frozen=True)
class ToolsRefreshed:
    """New tools and system prompt (a tool source's tools changed). The actor takes them just
    before the first LLM request of its next turn, so a turn never changes tools midway and
    one that starts right after another (a waiting message) still gets them."""

    tools: ToolRegistry
    system_prompt: str


@dataclass(frozen=True)
class ResumeTurns:
    """Go on with the stored turns (the one that had begun, then those waiting; a reply for
    each, in that order), or, with ``abandon`` (a reason), end them without going on."""

    snapshot: TurnSnapshot
    replies: tuple[Future[str], ...] = ()
    abandon: str | None = None
