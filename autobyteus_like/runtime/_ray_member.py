"""RayLink: the link (``runtime/_link.py``) to a member whose ``Agent`` runs in a Ray host. It
carries the verbs to the host and owes each message's reply until the host reports the turn's
end (fed by the backend's pump); the team sees it through ``Member`` like a local one."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

import ray
from loguru import logger
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

from autobyteus_like.agent._agent import Agent, ResumedTurn
from autobyteus_like.agent._member_replies import PendingReplies, settle
from autobyteus_like.agent._subscription import EventPublisher, EventSubscription
from autobyteus_like.errors import (
    AgentStoppedError,
    AgentTurnError,
    AutobyteusLikeError,
    UsageLimitExceededError,
)
from autobyteus_like.events import AgentEvent
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.llm._base import LLM
from autobyteus_like.runtime import _portable as portable
from autobyteus_like.runtime._ray_link import HostLink
from autobyteus_like.runtime._ray_records import TurnEnded
from autobyteus_like.runtime._ray_usage import DriverUsage
from autobyteus_like.tracing._propagation import carrier_of
from autobyteus_like.tracing._settings import current_parent
from autobyteus_like.usage import UsageReport
from autobyteus_like.usage._totals import UsageTotals

__all__ = ["RayLink"]

DIED = ("its worker process died mid-turn; Ray restarts it (max_restarts) with a fresh "
        "conversation")


class RayLink:
    """A member in a Ray host (``HostLink``, shared with the host's other members). ``start``
    waits until the host runs (the backend creates every host at once first); ``send`` puts a
    message in its mailbox; the backend's pump feeds it what the host reports of it."""

    def __init__(self, view: Agent, timeout_s: float, usage: DriverUsage | None = None) -> None:
        self.view = view  # never started: the tools and prompt, resolved here (validate)
        self.local: Agent | None = None
        self._usage = usage or DriverUsage(view.config, None)
        self.name = view.name
        self._timeout_s = timeout_s
        self.host: HostLink | None = None
        self.incarnation = ""
        self._publisher = EventPublisher()
        self._lock = threading.Lock()
        self._pending = PendingReplies(self.name)
        self._ended_early: dict[str, TurnEnded] = {}
        self._dead: set[str] = set()
        self._ids = itertools.count(1)
        self._stopped = False
        self._runs_began: dict[str, threading.Event] = {}  # new runs not yet seen begun
        self._streaming = False
        self.has_session = False
        """Whether its turns are stored (a session): a restarted process goes on with them,
        so a death fails no reply until no process comes back."""
        self.traced = False
        """Whether the team traces (its turns continue the caller's span, as locally)."""

    @property
    def running(self) -> bool:
        return self.host is not None and self.host.handle is not None and not self._stopped

    @property
    def handle(self) -> Any:
        """The Ray actor handle of the host this member lives in."""
        return None if self.host is None else self.host.handle

    @property
    def actor_name(self) -> str:
        """The name of the Ray actor this member lives in (shared by the host's members)."""
        return "" if self.host is None else self.host.actor_name

    def _call(self, method: str, *args: Any) -> Any:
        """A method of the host for this member, waited for (``delivery_timeout_s``); what
        the agent there raised is raised here (``UnknownApprovalError``, ...)."""
        try:
            return ray.get(getattr(self.handle, method).remote(self.name, *args),
                           timeout=self._timeout_s)
        except RayTaskError as exc:
            if isinstance(exc.cause, AutobyteusLikeError):
                raise exc.cause from None
            raise

    def resume(self) -> list[ResumedTurn]:
        """Go on with what the session's last driver left unfinished of this member, in its
        host, as a local agent does: the turns resumed, each with the reply it now owes."""
        resumed = self._call("resumed")
        return [ResumedTurn(turn_id, text, sender, self.expect(message_id, self.incarnation))
                for message_id, turn_id, text, sender in resumed]

    def abandon_unfinished(self, reason: str) -> None:
        """End what the session's last driver left unfinished of this member without going
        on with it, in its host (its turns fail with ``reason``; the conversation is kept)."""
        self._call("abandon", reason)

    def new_run(self, rewind: bool, abandon: str) -> None:
        """Begin a new run in the member's host, in place (``Agent.new_run`` there: its
        process, tools, MCP servers and session stay). Returns once everything the host
        reported of the run before has reached this driver; a reply still owed then fails
        with ``AgentStoppedError``, as locally."""
        run = f"run:{next(self._ids)}"
        began = threading.Event()
        with self._lock:
            self._runs_began[run] = began
        try:
            self._call("new_run", run, rewind, abandon)
            began.wait(self._timeout_s)  # the pump has dispatched all that came before
        except (RayActorError, RayTaskError, GetTimeoutError) as exc:
            raise AgentStoppedError(f"agent {self.name!r} could not begin a new run: "
                                    f"{type(exc).__name__}") from None
        finally:
            with self._lock:
                self._runs_began.pop(run, None)
                self._ended_early.clear()
        self._pending.fail_all(AgentStoppedError(f"agent {self.name!r}: a new run began"))

    def run_began(self, run: str) -> None:
        """The host began new run ``run`` (fed by the pump, after the run before's reports)."""
        with self._lock:
            began = self._runs_began.get(run)
        if began is not None:
            began.set()

    def usage(self) -> UsageReport:
        """Usage as the member's process counts it while it runs (asked of it); once it has
        stopped, as the driver counted it from the events the actor streamed (ray_usage.py)."""
        if self.running:
            try:
                report: UsageReport = self._call("usage")
            except (RayActorError, RayTaskError, GetTimeoutError):
                return self._usage.report()
            return report
        return self._usage.report()

    def asked_usage(self) -> dict[str, UsageTotals]:
        """The fresh callees its calls ran in its host, by callee (asked while it runs)."""
        if not self.running:
            return {}
        try:
            spent: dict[str, UsageTotals] = self._call("asked_usage")
        except (RayActorError, RayTaskError, GetTimeoutError):
            return {}
        return spent

    def knows(self, instance: str) -> bool:
        try:
            return bool(self._call("knows", instance))
        except (RayActorError, RayTaskError, GetTimeoutError):
            return False

    def history(self) -> list[HistoryMessage]:
        history: list[HistoryMessage] = self._call("history")
        return history

    def placed(self, host: HostLink) -> None:
        """The backend put this member in ``host`` (its actor is created later, at once
        with every other host's)."""
        self.host = host
        if self._streaming:  # subscribed before the backend placed it
            host.stream(self._timeout_s)

    def start(self) -> None:
        if self.host is None or self.host.handle is None:
            raise AgentStoppedError(f"agent {self.name!r}: its team's runtime has not started")
        self.incarnation = self.host.wait_ready(self.name)

    def stop(self, timeout: float = 10) -> None:
        """Stop the agent in its actor, end the actor (no restart), fail what is pending."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        if self.host is not None:
            self.host.stop_member(self.name, timeout)
        self._pending.fail_all()
        self._publisher.close()

    def send(self, text: str, *, sender: str | None, mail_id: str | None,
             trace_parent: object | None,
             history: Sequence[HistoryMessage] | None) -> Future[str]:
        """Deliver to the member's host; a stored message (``mail_id``, with a session) is
        owed under its mail id, which a restarted host answers under too. With tracing, the
        turn there is a child of ``trace_parent`` (else of the caller's current span)."""
        message_id = mail_id or f"driver:{next(self._ids)}"  # stored: its mail id
        reply = self._pending.add(message_id)
        parent = trace_parent or (current_parent() if self.traced else None)
        try:
            incarnation = ray.get(
                self.handle.receive.remote(self.name, message_id, text, sender, mail_id,
                                           carrier_of(parent),
                                           None if history is None else list(history)),
                timeout=self._timeout_s)
        except (RayActorError, RayTaskError, GetTimeoutError) as exc:
            self._pending.take(message_id)
            raise AgentStoppedError(f"agent {self.name!r} did not take the message: "
                                    f"{type(exc).__name__}") from None
        with self._lock:
            self._pending.own(message_id, incarnation)
            dead = incarnation in self._dead and not self.has_session
            ended = self._ended_early.pop(message_id, None)  # taken and ended before
        if ended is not None:
            self.turn_ended(ended)
        elif dead:
            self._pending.fail(message_id, DIED)
        return reply

    def events(self, into: EventSubscription | None = None) -> EventSubscription:
        """Every event from now on: the actor streams its agent's events once someone on the
        driver has subscribed (before that, none cross the network)."""
        subscription = self._publisher.subscribe(into)
        if not self._streaming:
            self._streaming = True
            if self.host is not None and not self._stopped:
                self.host.stream(self._timeout_s)
        return subscription

    def stop_run(self) -> None:
        """Acknowledge a stop of the run in the host before returning: none of its calls
        starts there (until ``new_run``)."""
        if self.running:
            try:
                self._call("stop_run")
            except (RayActorError, RayTaskError, GetTimeoutError) as exc:
                logger.warning("agent {}: its host did not take the stop: {}", self.name,
                               type(exc).__name__)  # refused by the Member anyway

    def decide(self, invocation_id: str, approve: bool, reason: str,
               instance: str | None = None) -> None:
        """A decision waits for the host's answer, so an id no call waits with is the
        ``UnknownApprovalError`` a local member raises, not a decision that goes nowhere."""
        self._call("decide", invocation_id, approve, reason, instance)

    def llm(self) -> LLM:
        """The member's LLM as its actor has it now (what a scripted one was shown)."""
        llm: LLM = portable.loads(self._call("llm"))
        return llm

    # -- fed by the backend's pump ---------------------------------------------------------------

    def expect(self, message_id: str, incarnation: str) -> Future[str]:
        """The reply of a message a teammate delivered here (its turn may have ended already,
        or the process that took it may have died)."""
        reply: Future[str] = Future()
        with self._lock:
            ended = self._ended_early.pop(message_id, None)
            if ended is None and (self.has_session or incarnation not in self._dead):
                return self._pending.add(message_id, reply, owner=incarnation)
        if ended is not None:
            error = _settle(reply, self.name, ended)
            if error is not None:
                self._usage.run_ended(error)
        else:
            reply.set_exception(AgentTurnError(self.name, DIED))
        return reply

    def turn_ended(self, record: TurnEnded) -> None:
        with self._lock:
            reply = self._pending.take(record.message_id)
            if reply is None:  # ended before the sender's report of it reached us
                self._ended_early[record.message_id] = record
                return
        error = _settle(reply, self.name, record)
        if error is not None:  # a limit ended the run of the whole team, as locally
            self._usage.run_ended(error)

    def publish(self, event: AgentEvent) -> None:
        self._usage.see(event)
        self._publisher.publish(event)

    def died(self, *, for_good: bool = False) -> None:
        """The actor's process died: every turn it had is lost. Only that process's turns: a
        message the restarted process already took (sent before the pump saw the restart) is
        not failed by a late report of the old death. ``for_good``: no process comes back, so
        every waiting reply fails."""
        with self._lock:
            if self.incarnation:
                self._dead.add(self.incarnation)
            dead = set(self._dead)
        if self.has_session and not for_good:  # the restarted process resumes them
            return
        self._pending.fail_all(AgentTurnError(self.name, DIED),
                               owned_by=None if for_good else dead.__contains__)

    def restarted(self, incarnation: str) -> None:
        """Ray restarted the host: a new process (the backend tells the host itself)."""
        self.incarnation = incarnation


def _settle(reply: Future[str], member: str, record: TurnEnded
            ) -> UsageLimitExceededError | None:
    """The reply as a local member gives it: a crossed limit is the same error (returned)."""
    if record.limit is not None and not reply.done():
        scope, limit, allowed, figure, detail, refused = record.limit
        error = UsageLimitExceededError(scope, limit, allowed, figure, detail=detail,
                                        refused=refused)
        reply.set_exception(error)
        return error
    settle(reply, member, record.answer, record.error)
    return None
