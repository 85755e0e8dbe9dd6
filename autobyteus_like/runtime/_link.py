"""The member link: how the driver reaches one member wherever it runs, in five verbs (send,
decide, new run, stop, events) and what a team's session and usage need of it.

A link only carries: the member's agent on the other end (a pykka ``Agent`` in this process,
``LocalLink``; the same ``Agent`` in a Ray host, ``RayLink``) keeps its conversation, usage,
spans, session and MCP servers. What the team sees of a member (the checks, the typed answer,
the refused decision after a stop) is written once, in ``runtime/_member.py``'s ``Member``,
over either link.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from autobyteus_like.agent._agent import Agent, ResumedTurn
    from autobyteus_like.agent._subscription import EventSubscription
    from autobyteus_like.history._messages import HistoryMessage
    from autobyteus_like.llm._base import LLM
    from autobyteus_like.usage._report import UsageReport
    from autobyteus_like.usage._totals import UsageTotals

__all__ = ["MemberLink"]


class MemberLink(Protocol):
    """One member's link. ``send`` returns the reply the other end owes (failed with the one
    wording of a stop when the link stops before the turn ends); ``decide`` raises what the
    agent there raised (``UnknownApprovalError`` naming the waiting calls)."""

    view: Agent
    """The member's agent as the driver resolves it: its tools, prompt and format (in this
    process the running agent itself; for a member elsewhere a copy that never starts)."""

    local: Agent | None
    """The agent itself when it runs in this process (None: it runs elsewhere)."""

    @property
    def running(self) -> bool: ...

    def start(self) -> None: ...

    def send(self, text: str, *, sender: str | None, mail_id: str | None,
             trace_parent: object | None,
             history: Sequence[HistoryMessage] | None) -> Future[str]: ...

    def decide(self, invocation_id: str, approve: bool, reason: str,
               instance: str | None = None) -> None:
        """Approve or deny a waiting call of the member, or (``instance``: its address,
        ``callee@caller/call``) of a fresh instance one of its calls is running there."""
        ...

    def new_run(self, rewind: bool, abandon: str) -> None: ...

    def stop_run(self) -> None: ...

    def stop(self, timeout: float) -> None: ...

    def events(self, into: EventSubscription | None) -> EventSubscription: ...

    def usage(self) -> UsageReport: ...

    def asked_usage(self) -> dict[str, UsageTotals]:
        """The usage of the fresh callees the member's calls ran on the other end (not in the
        team's process), by callee."""
        ...

    def knows(self, instance: str) -> bool:
        """Whether a fresh instance of that address runs on the other end now."""
        ...

    def resume(self) -> list[ResumedTurn]: ...

    def abandon_unfinished(self, reason: str) -> None: ...

    def history(self) -> list[HistoryMessage]: ...

    def llm(self) -> LLM: ...
