"""The seam between a team and where its members live.

``AgentTeam`` asks its ``Backend`` for one ``Member`` per member config (``runtime/_member.py``:
the same class over a link to a local agent or to one in a Ray host) and talks to members only
through it; a backend delivers through the team's ``MailRoom`` and reports there the messages
members delivered themselves (member to member on Ray).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.runtime._member import Member
from autobyteus_like.tools._registry import ToolRegistry, ToolSource

__all__ = ["Backend", "Member"]


class Backend(Protocol):
    """Hosts a team's members. ``start`` runs before the members start, ``stop`` after they
    stopped."""

    def member(self, config: AgentConfig, tools: ToolRegistry, sources: Sequence[ToolSource],
               formats: FormatRegistry | None, **options: Any) -> Member:
        """One member; ``options`` are the ``Agent``'s own (a session, tracing, the
        team's usage), which a backend that cannot honour one refuses."""
        ...

    sources_here: bool
    """Whether the team's tool sources (its MCP servers) run in the team's process (else
    each host starts those its members use)."""

    def start(self) -> None: ...

    def new_run(self) -> None:
        """A new run of the team, in place, before its members' (``AgentTeam.new_run``)."""
        ...

    def stop(self) -> None: ...
