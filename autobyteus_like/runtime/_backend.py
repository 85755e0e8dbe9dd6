"""The seam between a team and where its members live.

``AgentTeam`` asks its ``Backend`` for one ``Member`` per member config and talks to members
only through the ``Member`` surface (the ``Agent`` facade's); a backend delivers through the
team's ``MailRoom`` and reports there the messages members delivered themselves (member to
member on Ray).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any, Protocol

from autobyteus_like.agent._agent import ResumedTurn
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.agent._subscription import EventSubscription
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.tools._registry import ToolRegistry, ToolSource
from autobyteus_like.usage import UsageReport

__all__ = ["Backend", "Member"]


class Member(Protocol):
    """One running member as the team sees it (``Agent`` is one)."""

    name: str
    config: AgentConfig

    @property
    def running(self) -> bool: ...

    def start(self) -> Any: ...

    def stop(self, timeout: float = 10) -> None: ...

    def send(self, text: str, *, sender: str | None = None, mail_id: str | None = None,
             trace_parent: object | None = None) -> Future[Any]: ...

    def deliver(self, text: str, *, sender: str | None = None, mail_id: str | None = None,
                trace_parent: object | None = None,
                history: Sequence[HistoryMessage] | None = None) -> Future[str]:
        """``send`` for the team's mail: the answer as it travels (a typed one as JSON);
        ``history``: a handed-over conversation to go on from."""

    def events(self, into: EventSubscription | None = None) -> EventSubscription: ...

    def stop_run(self) -> None: ...

    def approve(self, invocation_id: str) -> None: ...

    def deny(self, invocation_id: str, reason: str = "denied by the user") -> None: ...

    def resolve_tools(self) -> ToolRegistry: ...

    def resume(self) -> list[ResumedTurn]: ...

    def abandon_unfinished(self, reason: str) -> None: ...

    def new_run(self, *, rewind: bool = ..., abandon: str = ...) -> None: ...

    @property
    def usage(self) -> UsageReport: ...


class Backend(Protocol):
    """Hosts a team's members. ``start`` runs before the members start, ``stop`` after they
    stopped."""

    def member(self, config: AgentConfig, tools: ToolRegistry, sources: Sequence[ToolSource],
               formats: FormatRegistry | None, **options: Any) -> Member:
        """One member; ``options`` are the ``Agent``'s own (a session, tracing, the
        team's usage), which a backend that cannot honour one refuses."""
        ...

    def start(self) -> None: ...

    def new_run(self) -> None:
        """A new run of the team, in place, before its members' (``AgentTeam.new_run``)."""
        ...

    def stop(self) -> None: ...
