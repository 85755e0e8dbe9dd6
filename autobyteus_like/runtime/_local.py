"""The local backend: every member an ``Agent`` on pykka actors in this process (the default
and the fast path), reached through ``LocalLink``: a call of the agent's own method per verb."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from autobyteus_like.agent._agent import Agent, ResumedTurn
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.agent._subscription import EventSubscription
from autobyteus_like.errors import AgentStoppedError
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.llm._base import LLM
from autobyteus_like.mail._messaging import send_message_tool
from autobyteus_like.mail._room import MailRoom
from autobyteus_like.runtime._member import Member
from autobyteus_like.tools._registry import ToolRegistry, ToolSource
from autobyteus_like.usage._report import UsageReport
from autobyteus_like.usage._totals import UsageTotals

__all__ = ["LocalBackend", "LocalLink"]


class LocalLink:
    """The link to an ``Agent`` in this process: each verb is the agent's own method (its
    fresh callees run in the team's process too, so nothing is asked on its side)."""

    def __init__(self, agent: Agent) -> None:
        self.view = agent
        self.local: Agent | None = agent

    @property
    def running(self) -> bool:
        return self.view.running

    def start(self) -> None:
        self.view.start()

    def send(self, text: str, *, sender: str | None, mail_id: str | None,
             trace_parent: object | None,
             history: Sequence[HistoryMessage] | None) -> Future[str]:
        return self.view.deliver(text, sender=sender, mail_id=mail_id,
                                 trace_parent=trace_parent, history=history)

    def decide(self, invocation_id: str, approve: bool, reason: str,
               instance: str | None = None) -> None:
        if instance is not None:  # never asked: this process's instances are the team's own
            raise AgentStoppedError(f"agent {instance!r} is not running beside {self.view.name!r}")
        if approve:
            self.view.approve(invocation_id)
        else:
            self.view.deny(invocation_id, reason)

    def new_run(self, rewind: bool, abandon: str) -> None:
        self.view.new_run(rewind=rewind, abandon=abandon)

    def stop_run(self) -> None:
        self.view.stop_run()

    def stop(self, timeout: float) -> None:
        self.view.stop(timeout)

    def events(self, into: EventSubscription | None) -> EventSubscription:
        return self.view.events(into)

    def usage(self) -> UsageReport:
        return self.view.usage

    def asked_usage(self) -> dict[str, UsageTotals]:
        return {}  # its fresh callees ran in the team's own MemberCalls

    def knows(self, instance: str) -> bool:
        return False  # idem: the team finds them itself

    def resume(self) -> list[ResumedTurn]:
        return self.view.resume()

    def abandon_unfinished(self, reason: str) -> None:
        self.view.abandon_unfinished(reason)

    def history(self) -> list[HistoryMessage]:
        return self.view.history

    def llm(self) -> LLM:
        llm = self.view.config.llm  # a described one: as the agent built it
        return llm if isinstance(llm, LLM) else (self.view._built_llm
                                                 or self.view.config.build_llm())


class LocalBackend:
    """Members are ``Agent``s whose ``send_message_to`` calls the team directly."""

    sources_here = True

    def __init__(self, mail: MailRoom) -> None:
        self._mail = mail

    def member(self, config: AgentConfig, tools: ToolRegistry, sources: Sequence[ToolSource],
               formats: FormatRegistry | None, **options: Any) -> Member:
        tools.add(send_message_tool(self._mail, config.name))
        agent = Agent(config, tools=[*tools, *sources], formats=formats, **options)
        return Member(config, LocalLink(agent),
                      has_session=options.get("session") is not None)

    def start(self) -> None:
        """Nothing to start: each agent starts its own actors."""

    def new_run(self) -> None:
        """Nothing of its own: each agent begins its new run itself."""

    def stop(self) -> None:
        """Nothing to stop."""
