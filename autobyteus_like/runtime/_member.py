"""Member: one team member as the team sees it, over a ``MemberLink`` (in this process or in a
Ray host). What every runtime must answer alike is written here once: a message to a member
that is not running, the typed answer, a decision after an acknowledged stop, and a fresh
callee's decision routed to where its caller runs."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from autobyteus_like.agent._member_replies import not_running, run_stopped
from autobyteus_like.agent._requests import typed_reply

if TYPE_CHECKING:
    from autobyteus_like.agent._agent import Agent, ResumedTurn
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.agent._subscription import EventSubscription
    from autobyteus_like.formats import ToolFormat
    from autobyteus_like.history._messages import HistoryMessage
    from autobyteus_like.llm._base import LLM
    from autobyteus_like.runtime._link import MemberLink
    from autobyteus_like.tools._registry import ToolRegistry
    from autobyteus_like.usage._report import UsageReport
    from autobyteus_like.usage._totals import UsageTotals

__all__ = ["Callee", "Member"]


class Member:
    """A member over its ``link``. ``has_session``: its turns are stored (``resume`` and
    ``abandon_unfinished`` settle what a last process left)."""

    def __init__(self, config: AgentConfig, link: MemberLink, *,
                 has_session: bool = False) -> None:
        self.name = config.name
        self.config = config
        self.link = link
        self.has_session = has_session
        self._run_stopped = False
        """A stop of the run was acknowledged: decisions are refused until ``new_run``."""

    # -- life cycle ----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.link.running

    def start(self) -> Member:
        self.link.start()
        self._run_stopped = False  # a new run (a local agent may start again after a stop)
        return self

    def stop(self, timeout: float = 10) -> None:
        """Stop the member; every reply still owed fails with the one wording of a stop."""
        self._run_stopped = True
        self.link.stop(timeout)

    def new_run(self, *, rewind: bool = False, abandon: str = "a new run began") -> None:
        """Begin a new run in place (``Agent.new_run`` where it runs): the replies owed fail
        with ``AgentStoppedError``; decisions are taken again once it began."""
        if not self.running:
            raise not_running(self.name)
        self._run_stopped = True  # acknowledged: the run before takes no decision
        self.link.new_run(rewind, abandon)
        self._run_stopped = False

    def resume(self) -> list[ResumedTurn]:
        """Go on with what the session's last process left unfinished of this member."""
        if not self.has_session:
            return []
        if not self.running:
            raise not_running(self.name, "with team:")
        return self.link.resume()

    def abandon_unfinished(self, reason: str) -> None:
        """End what the session's last process left unfinished without going on with it."""
        if not self.has_session:
            return
        if not self.running:
            raise not_running(self.name, "with team:")
        self.link.abandon_unfinished(reason)

    # -- messages ------------------------------------------------------------------------------

    def send(self, text: str, *, sender: str | None = None, mail_id: str | None = None,
             trace_parent: object | None = None) -> Future[Any]:
        """``deliver``, the answer as ``run`` returns it (typed for a typed member)."""
        reply = self.deliver(text, sender=sender, mail_id=mail_id, trace_parent=trace_parent)
        spec = self.config.output_spec()
        return reply if spec is None else typed_reply(reply, spec.value)

    def deliver(self, text: str, *, sender: str | None = None, mail_id: str | None = None,
                trace_parent: object | None = None,
                history: Sequence[HistoryMessage] | None = None) -> Future[str]:
        """The answer as it travels between members (a typed one as JSON); ``history``: a
        handed-over conversation to go on from."""
        if not self.running:
            raise not_running(self.name, "with team:")
        return self.link.send(text, sender=sender, mail_id=mail_id, trace_parent=trace_parent,
                              history=history)

    def events(self, into: EventSubscription | None = None) -> EventSubscription:
        return self.link.events(into)

    # -- decisions -----------------------------------------------------------------------------

    def stop_run(self) -> None:
        """Acknowledge a stop of the run, here and where it runs: every decision from now on
        is refused and none of its calls starts (until ``new_run``)."""
        self._run_stopped = True
        self.link.stop_run()

    def approve(self, invocation_id: str) -> None:
        self.decide(invocation_id, True)

    def deny(self, invocation_id: str, reason: str = "denied by the user") -> None:
        self.decide(invocation_id, False, reason)

    def decide(self, invocation_id: str, approve: bool, reason: str = "denied by the user",
               instance: str | None = None) -> None:
        """Approve or deny a waiting call of this member or of a fresh ``instance`` its
        calls run (refused after an acknowledged stop, or when it is not running)."""
        if self._run_stopped:
            raise run_stopped(instance or self.name, invocation_id)
        if not self.running:
            raise not_running(self.name, "with team:")
        self.link.decide(invocation_id, approve, reason, instance)

    def callee(self, address: str) -> Callee | None:
        """The fresh instance ``address`` (``callee@caller/call``) one of this member's calls
        runs where the member runs, to decide its calls (None: none runs there)."""
        if not self.running or not self.link.knows(address):
            return None
        return Callee(self, address)

    # -- what the team reads -------------------------------------------------------------------

    @property
    def usage(self) -> UsageReport:
        return self.link.usage()

    def asked_usage(self) -> dict[str, UsageTotals]:
        """The fresh callees' usage its calls ran where it runs (by callee)."""
        return self.link.asked_usage()

    @property
    def actor_name(self) -> str:
        """The Ray actor the member lives in ("" in this process)."""
        return str(getattr(self.link, "actor_name", ""))

    @property
    def handle(self) -> Any:
        """That actor's handle (None in this process)."""
        return getattr(self.link, "handle", None)

    @property
    def local(self) -> Agent | None:
        """The agent itself when it runs in this process (None: in a Ray host)."""
        return self.link.local

    @property
    def tools(self) -> ToolRegistry:
        return self.link.view.tools

    @property
    def system_prompt(self) -> str:
        return self.link.view.system_prompt

    @property
    def format(self) -> ToolFormat:
        return self.link.view.format

    def resolve_tools(self) -> ToolRegistry:
        return self.link.view.resolve_tools()

    @property
    def history(self) -> list[HistoryMessage]:
        """The member's conversation as it stands where it runs."""
        return self.link.history()

    def fetch_llm(self) -> LLM:
        """The member's LLM as it is now where it runs (what a scripted one was shown)."""
        return self.link.llm()


class Callee:
    """A fresh instance answering a call of a member, as ``team.approve``/``deny`` take it."""

    def __init__(self, caller: Member, address: str) -> None:
        self.name = address
        self._caller = caller

    def approve(self, invocation_id: str) -> None:
        self._caller.decide(invocation_id, True, instance=self.name)

    def deny(self, invocation_id: str, reason: str = "denied by the user") -> None:
        self._caller.decide(invocation_id, False, reason, instance=self.name)
