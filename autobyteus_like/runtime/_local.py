"""The local backend: every member an ``Agent`` on pykka actors in this process (the default
and the fast path: nothing between the team and its agents)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autobyteus_like.agent._agent import Agent
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.mail._messaging import send_message_tool
from autobyteus_like.mail._room import MailRoom
from autobyteus_like.tools._registry import ToolRegistry, ToolSource

__all__ = ["LocalBackend"]


class LocalBackend:
    """Members are ``Agent``s whose ``send_message_to`` calls the team directly."""

    def __init__(self, mail: MailRoom) -> None:
        self._mail = mail

    def member(self, config: AgentConfig, tools: ToolRegistry, sources: Sequence[ToolSource],
               formats: FormatRegistry | None, **options: Any) -> Agent:
        tools.add(send_message_tool(self._mail, config.name))
        return Agent(config, tools=[*tools, *sources], formats=formats, **options)

    def start(self) -> None:
        """Nothing to start: each agent starts its own actors."""

    def new_run(self) -> None:
        """Nothing of its own: each agent begins its new run itself."""

    def stop(self) -> None:
        """Nothing to stop."""
