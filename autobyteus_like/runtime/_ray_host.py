"""MemberHost: the Ray actor that hosts members' ``Agent``s (the same pykka agent code), one or
many in one worker process.

The driver keeps one ``poll`` call waiting on each host; it returns everything the host's
members reported since the last one, in order: their events, the messages they delivered, the
turns that ended (each names its member in ``agent``). A message between two members of one
host stays in the process; teammates elsewhere call ``receive`` directly, actor to actor. The
host's config (every member's config, the tools, the formats) arrives as one blob, and the
members share one ``send_message_to`` (it reads the sender from the call's context). Ray
restarts a host whose process died (``max_restarts``) by running ``__init__`` again: every
member is built anew (``start_member``: each goes on from its session, if it has one), under a
new ``incarnation``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import itertools
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from autobyteus_like._extras import require_extra
from autobyteus_like.agent._agent import Agent
from autobyteus_like.agent._subscription import AsyncEventSubscription, EventPublisher
from autobyteus_like.errors import (
    AgentStoppedError,
    MemberStartFailed,
    UsageLimitExceededError,
)
from autobyteus_like.events import AgentEvent, UserMessageReceived
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.mail._messaging import send_message_tool
from autobyteus_like.runtime import _portable as portable
from autobyteus_like.runtime._ray_asks import Outcome, RunningAsks, outcome
from autobyteus_like.runtime._ray_records import RunBegan, TurnEnded
from autobyteus_like.runtime._ray_router import PeerRouter
from autobyteus_like.runtime._ray_sessions import HostMail, resume_member, settle_member
from autobyteus_like.runtime._ray_spans import SpanShipping
from autobyteus_like.runtime._ray_team_budget import keeper_asks, take_address
from autobyteus_like.runtime._ray_tool import as_ray_task
from autobyteus_like.runtime._ray_tools_mcp import host_sources, split_recipes
from autobyteus_like.store._session import Session
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._registry import ToolRegistry
from autobyteus_like.tracing._propagation import parent_from
from autobyteus_like.tracing._settings import Tracing
from autobyteus_like.usage._report import TeamUsage, UsageReport
from autobyteus_like.usage._totals import UsageTotals

__all__ = ["MemberHost", "host_class", "start_member"]


class MemberHost:
    """Members inside one Ray actor (an asyncio actor: every method runs on its loop, so
    ``poll`` waits without holding up ``receive``, ``approve`` or ``deny``)."""

    def __init__(self, name: str, stored: list[Any], peers: dict[str, str],
                 namespace: str | None, delivery_timeout_s: float,
                 shipping: SpanShipping | None = None) -> None:
        # ``stored``: [the blob], or for a large one [a reference to it] the driver put in
        # Ray's object store and keeps for the team's life (so a restart finds it; in a list,
        # Ray hands the reference over as it is). The blob: the formats, then per member its
        # config, its tools, and where its session is (a SessionAddress; or None).
        blob = stored[0] if isinstance(stored[0], bytes) else _runtime().get(stored[0])
        formats, members = portable.loads(blob)
        self.name = name
        self.incarnation = uuid.uuid4().hex[:12]
        self._stream: AsyncEventSubscription | None = None
        self._streaming = False
        self._restarted = bool(_runtime().get_runtime_context().was_current_actor_reconstructed)
        self._records = EventPublisher()  # this host's own records, into the same stream
        self._ids = itertools.count(1)
        self._taken = {"across": 0, "within": 0}
        """Messages its members took: from other processes (the driver, other hosts), and
        from members of this host (counted from several threads: under ``_counting``)."""
        self._counting = threading.Lock()
        self._mails = {config.name: HostMail(None if where is None else where.attach(),
                                             config.name) for config, _, where in members}
        self._spans = _collector(name, shipping, self._report)  # None: the team traces not
        tracing = None if self._spans is None else self._spans.tracing
        self._router = PeerRouter(name, peers, namespace, delivery_timeout_s, self._report,
                                  self._next_id, self._take, self._mails,
                                  parent_of=None if tracing is None else tracing.directory.get)
        send = _shared_send(self._router)
        self._agents: dict[str, Agent] = {}
        self._asks = RunningAsks(name, peers, namespace, self._agents)
        ray_tasks: dict[int, Any] = {}  # one Ray-task wrapper per tool, shared by members
        sources = host_sources(recipe for _, tools, _ in members
                               for recipe in split_recipes(tools)[1])  # one per server
        self._team_usage: TeamUsage | None = None  # the team's limits: one per host
        for config, tools, _ in members:
            plain, recipes = split_recipes(tools)
            plain, budget = take_address(plain)  # the team's limits, kept by the driver's
            if budget is not None and self._team_usage is None:
                self._team_usage = budget.team_usage(name)
            registry = ToolRegistry([_as_task(tool, ray_tasks) for tool in plain])
            for tool in config.tools:  # a tool that runs agents here (a member as a tool)
                if callable(in_host := getattr(getattr(tool, "function", None), "in_host",
                                               None)):
                    self._asks.add_calls(in_host(self._team_usage, tracing,
                                                 self._mails[config.name].session,
                                                 self._callee_event, self._asks.ask))
            registry.add(send)
            try:
                self._agents[config.name] = start_member(
                    config, [*registry, *(sources[r.namespace] for r in recipes)], formats,
                    self._mails[config.name].session, self._team_usage, tracing)
            except Exception as exc:  # the driver names the member (ray_link.py)
                for agent in self._agents.values():
                    agent.stop()
                reason = "; ".join(line.strip() for line in str(exc).splitlines()
                                   if line.strip())  # one line: Ray reports the last
                raise MemberStartFailed(config.name, reason or type(exc).__name__) from None

    def _on_loop(self) -> AsyncEventSubscription:
        """The stream, made on the actor's loop by the first method to run there (Ray calls
        ``__init__`` on another thread), before any message can reach an agent."""
        if self._stream is None:
            self._stream = AsyncEventSubscription(asyncio.get_running_loop())
            if self._spans is not None:  # its spans may wait for a reply sent anyway
                self._spans.use_loop(asyncio.get_running_loop())
            self._records.subscribe(self._stream)
            if self._restarted:  # whether the driver listens is unknown: stream, to be safe
                self._stream_all(self._stream)
            # restarted: what the dead process left unfinished goes on, reported in the stream
            for member, agent in self._agents.items() if self._restarted else ():
                resume_member(agent, self._mails[member], self._report,
                              functools.partial(self._turn_ended, member))
        return self._stream

    def _stream_all(self, stream: AsyncEventSubscription) -> None:
        if not self._streaming:
            self._streaming = True
            for agent in self._agents.values():
                agent.events(into=stream)

    async def stream_events(self) -> None:
        """From now on, the members' events go to the driver too (someone there subscribed;
        until then only this host's records cross, and the agents skip building events
        nobody takes)."""
        self._stream_all(self._on_loop())

    def _callee_event(self, event: AgentEvent) -> None:
        """A fresh callee's event (a ``MemberCallEvent``, run here beside its caller) into
        the stream, once the driver listens, as its caller's events go."""
        if self._streaming:
            self._report(event)

    def _next_id(self) -> str:
        return f"{self.incarnation}:{next(self._ids)}"

    def _report(self, record: AgentEvent) -> None:
        """Add a record to the stream (from any thread; in order with the agents' events)."""
        self._records.publish(record)

    async def ready(self) -> str:
        """This process's incarnation, once every member's agent runs."""
        self._on_loop()
        return self.incarnation

    async def resumed(self, member: str) -> list[tuple[str, int, str, str | None]]:
        """Go on with what the session's last driver left of ``member``: the turns resumed
        (message id, turn id, text, sender), whose replies the driver owes from now on."""
        self._on_loop()
        return settle_member(self._agents[member], self._mails[member], None,
                             functools.partial(self._turn_ended, member))

    async def abandon(self, member: str, reason: str) -> None:
        """End what the session's last driver left of ``member`` without going on with it."""
        self._on_loop()
        settle_member(self._agents[member], self._mails[member], reason,
                      functools.partial(self._turn_ended, member))

    async def pid(self) -> int:
        import os

        return os.getpid()

    async def counts(self) -> dict[str, int]:
        """Its members, and the messages they took from other processes and from each
        other."""
        with self._counting:
            return {"members": len(self._agents), **self._taken}

    async def spans_shipped(self) -> tuple[int, int] | None:
        """The spans its polls carried to the driver, and in how many replies (None: the
        team does not trace, so no span is made or kept here)."""
        if self._spans is None:
            return None
        return self._spans.shipped, self._spans.replies

    async def receive(self, member: str, message_id: str, content: str,
                      sender: str | None, mail_id: str | None = None,
                      trace_parent: dict[str, str] | None = None,
                      history: list[HistoryMessage] | None = None) -> str:
        """Put a message in ``member``'s mailbox; its turn's end is reported as ``TurnEnded``.
        Returns the incarnation that took it. A stored message (``mail_id``) is taken once
        (a sender's call that runs again offers it again). ``trace_parent``: the W3C trace
        context of the sender's span (its turn here is a child of it)."""
        self._on_loop()
        incarnation = self._take(member, message_id, content, sender, mail_id,
                                 parent_from(trace_parent), history)
        with self._counting:
            self._taken["across"] += 1
        return incarnation

    async def answer(self, member: str, request: str, sender: str,
                     trace_parent: dict[str, str] | None, edges: list[tuple[str, str]]
                     ) -> Outcome:
        """A teammate's call of ``member``'s running conversation as a tool (ray_asks.py):
        queued like a message, its answer (or why none) once its turn ends."""
        self._on_loop()
        return await outcome(self._asks.take(member, request, sender,
                                             parent_from(trace_parent), edges))

    def _take(self, member: str, message_id: str, content: str, sender: str | None,
              mail_id: str | None = None, trace_parent: Any = None,
              history: list[HistoryMessage] | None = None) -> str:
        """``receive``'s work, also called straight from a tool thread of this process for a
        message between two of its members (``trace_parent``: the sender's span context)."""
        if mail_id is not None and not self._mails[member].take(mail_id):
            return self.incarnation  # taken before: its turn's end is reported once
        reply = self._agents[member].deliver(content, sender=sender, mail_id=mail_id,
                                             trace_parent=trace_parent, history=history)
        if sender in self._agents:
            with self._counting:
                self._taken["within"] += 1
        reply.add_done_callback(lambda done: self._turn_ended(member, message_id, done))
        return self.incarnation

    def _turn_ended(self, member: str, message_id: str, reply: Future[str]) -> None:
        error = reply.exception()
        if error is None:
            self._report(TurnEnded(agent=member, message_id=message_id,
                                   answer=reply.result()))
        else:
            limit = None
            if isinstance(error, UsageLimitExceededError):
                limit = (error.scope, error.limit, error.allowed, error.figure, error.detail,
                         error.refused)
            self._report(TurnEnded(agent=member, message_id=message_id,
                                   error=getattr(error, "message", None) or str(error),
                                   limit=limit))

    async def poll(self) -> tuple[str, list[AgentEvent]]:
        """Everything reported since the last poll (waits for at least one item)."""
        stream = self._on_loop()
        first = await stream.next_event()
        batch = [] if first is None else [_portable_event(first)]
        batch += [_portable_event(event) for event in stream.ready()]  # one reply per burst
        if self._spans is not None:  # the spans finished since, as one record first
            batch = self._spans.drain(batch)
        return self.incarnation, batch

    async def stop_run(self, member: str) -> None:
        """Acknowledge a stop of ``member``'s run (``Agent.stop_run``: at once, on the loop)."""
        self._agents[member].stop_run()

    async def decide(self, member: str, invocation_id: str, approve: bool, reason: str,
                     instance: str | None = None) -> None:
        """Approve or deny a waiting call of ``member``, or of the fresh ``instance`` (its
        address) one of its calls runs in this host."""
        agent = self._agents[member] if instance is None else self._asks.instance(instance)
        if agent is None:  # its call ended since the driver found it
            raise AgentStoppedError(f"agent {instance!r} is no longer running: the call it "
                                    "answered has ended")
        if approve:
            agent.approve(invocation_id)
        else:
            agent.deny(invocation_id, reason)

    async def knows(self, member: str, instance: str) -> bool:
        """Whether the fresh instance ``instance`` runs in this host now."""
        return self._asks.instance(instance) is not None

    async def asked_usage(self, member: str) -> dict[str, UsageTotals]:
        """The usage of the fresh callees ``member``'s calls ran in this host, by callee."""
        return self._asks.spent_by(member)

    async def history(self, member: str) -> list[HistoryMessage]:
        """``member``'s conversation as it stands (``Agent.history``)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, lambda: self._agents[member].history)

    async def new_run(self, member: str, run: str, rewind: bool, abandon: str) -> None:
        """Begin a new run of ``member`` in place (``Agent.new_run``: its work in flight cut
        and waited for, its limits from zero, its process, tools and subscribers kept), from
        the conversation as it stands or, with ``rewind``, as the run before began (with a
        session: as stored); then report ``RunBegan``, after all it reported of the run
        before."""
        await asyncio.get_running_loop().run_in_executor(None, functools.partial(
            self._agents[member].new_run, rewind=rewind, abandon=abandon))
        self._report(RunBegan(agent=member, run=run))

    async def llm(self, member: str) -> bytes:
        """The member's LLM as it is now (a scripted one records what it was shown)."""
        return portable.dumps(self._agents[member].config.llm)

    async def usage(self, member: str) -> UsageReport:
        """The member's usage, counted here in its process."""
        return self._agents[member].usage

    async def team_budget(self, verb: str, *args: Any) -> dict[str, int]:
        """What the team's budget keeper asks of this host: its unused calls back, the end
        of the run, or a new run (ray_team_budget.py; answered here, on the loop, at once)."""
        return keeper_asks(self._team_usage, verb, *args)

    async def stop_member(self, member: str) -> Any:
        """Stop one member's agent (its threads); the others go on. With tracing, answers
        the spans finished meanwhile (those its stop ended, marked cut short, among them),
        which the host may not live to send in a poll."""
        if self._spans is not None:
            self._spans.hold()
        await asyncio.get_running_loop().run_in_executor(None, self._agents[member].stop)
        return None if self._spans is None else self._spans.release()

    async def shutdown(self) -> None:
        """Stop every agent (their threads) before Ray ends the process."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(None, agent.stop)
                               for agent in self._agents.values()))


def start_member(config: Any, tools: list[Any], formats: FormatRegistry | None,
                 session: Session | None, team_usage: TeamUsage | None = None,
                 tracing: Tracing | None = None) -> Agent:
    """One member's agent, started; with a session, it goes on from what is stored (its
    unfinished turns resume once the host's loop runs: ``resume_member``). The one way a host
    (re)builds a member, on its first start and after Ray restarted its process."""
    agent = Agent(config, tools=tools, formats=formats, session=session, team_usage=team_usage,
                  tracing=tracing)
    agent.start()
    return agent


def _collector(host: str, shipping: SpanShipping | None,
               report: Callable[[AgentEvent], None]) -> Any:
    """The host's span collector when the team traces (the SDK imported only then)."""
    if shipping is None:
        return None
    require_extra("otel", f"tracing on the Ray host {host!r}")  # one line, not a traceback
    from autobyteus_like.runtime._ray_span_collector import SpanCollector

    return SpanCollector(host, shipping, report)


def _as_task(tool: Any, made: dict[int, Any]) -> Any:
    """A tool with Ray resources as a Ray task (made once per tool for the whole host)."""
    if not isinstance(tool, ToolDefinition):
        return tool
    if id(tool) not in made:
        made[id(tool)] = as_ray_task(tool)
    return made[id(tool)]


def _shared_send(router: PeerRouter) -> ToolDefinition:
    """One ``send_message_to`` for every member of the host: the same tool the local team
    gives each member, with the sender read from the call's context (one schema and one
    arguments model per process instead of one per member)."""
    template = send_message_tool(router, "")

    def send_message_to(recipient_name: str, content: str, context: ToolContext) -> str:
        return router.deliver(context.agent, recipient_name, content, context.invocation_id)

    send_message_to.__doc__ = template.function.__doc__
    return dataclasses.replace(template, function=send_message_to)


def _portable_event(event: AgentEvent) -> AgentEvent:
    """The event without what cannot leave this process (a turn's reply future)."""
    if isinstance(event, UserMessageReceived) and event.reply is not None:
        return dataclasses.replace(event, reply=None)
    inner = getattr(event, "event", None)  # a callee's event (a MemberCallEvent)
    if isinstance(inner, AgentEvent) and inner is not (portable := _portable_event(inner)):
        return dataclasses.replace(event, event=portable)  # type: ignore[call-arg]
    return event


def _runtime() -> Any:
    """Ray (imported only here and by the backend)."""
    import ray

    return ray


def host_class(options: dict[str, Any]) -> Any:
    """``MemberHost`` as a Ray actor class (Ray imported only here and by the backend)."""
    import ray

    return ray.remote(**options)(MemberHost)
