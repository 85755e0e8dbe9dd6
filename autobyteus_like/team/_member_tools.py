"""A member called like a tool: ``tools: [ask:researcher]`` gives a member the tool
``ask_researcher`` (described by the callee's ``role``, its argument the request), whose body
runs the callee's turn and returns its answer (a typed callee's value: the caller's model reads
it as JSON). The turn machine sees an ordinary async tool: its results come back in invocation
order with the response's other calls, its timeout (the caller's ``tool_timeout_s``) and a
stop cancel it, and the callee's run is stopped with it.

By default each call runs a fresh instance of the callee (its tools, approvals and limits, its
own conversation), so parallel calls run at once; its session record is ``NAME@ADDRESS`` with
the call's id in the address, and a call run again on resume (the tool is idempotent) takes the
answer stored there, or resumes the callee's unfinished turn, instead of asking again. A callee
with ``ask_conversation: running`` answers in its running conversation instead (calls queue on
it, in order; on Ray wherever that member lives: ``runtime/_ray_asks.py``). Loops and
depth: ``team/_call_graph.py``. A callee that is an ``a2a:`` member is asked directly, its
skills too (``ask:NAME.SKILL``): ``team/_remote_asks.py``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from autobyteus_like.agent._agent import Agent
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.agent._requests import typed_reply
from autobyteus_like.agent._subscription import EventPublisher, EventSubscription
from autobyteus_like.errors import (
    AgentStoppedError,
    AgentTurnError,
    ToolFailure,
    UsageLimitExceededError,
)
from autobyteus_like.events import AgentEvent
from autobyteus_like.history._handover import HandedOver
from autobyteus_like.llm._remote_a2a import A2AMember
from autobyteus_like.mail._messaging import SEND_MESSAGE_TOOL
from autobyteus_like.team._call_budget import call_usage
from autobyteus_like.team._call_graph import CallGraph
from autobyteus_like.team._remote_asks import ask_tool_name, asked_member, remote_ask_tools
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._registry import ToolSource
from autobyteus_like.usage._totals import UsageTotals

if TYPE_CHECKING:
    from autobyteus_like.formats import FormatRegistry
    from autobyteus_like.runtime._backend import Member
    from autobyteus_like.store._session import Session
    from autobyteus_like.tracing._settings import Tracing
    from autobyteus_like.usage._report import TeamUsage

__all__ = ["MemberCallEvent", "MemberCalls", "as_instance_event", "ask_tool_name",
           "asked_member", "root_caller"]

AskRunning = Callable[[str, str, str, object | None, list[tuple[str, str]]], "Future[Any]"]
"""A Ray host's way to a running conversation: (callee, request, caller, the span of the
caller's call, the calls in flight leading to the callee) -> the callee's answer."""

@dataclass(frozen=True, slots=True, kw_only=True)
class MemberCallEvent(AgentEvent):
    """An event of a member answering a teammate's call as a tool, in the team's stream:
    ``agent`` is the caller, ``call_id`` its call, ``member`` the instance answering (the
    callee's name in its running conversation, ``callee@caller/call`` for a fresh one),
    ``event`` what happened there."""

    call_id: str
    callee: str
    member: str
    event: AgentEvent


def as_instance_event(event: AgentEvent) -> AgentEvent:
    """A ``MemberCallEvent``'s event as the instance answering it (``agent`` its address, the
    name ``team.approve`` and ``deny`` take); any other event as it is. Faces that decide
    approvals read the team's stream through this, so a callee's calls are decided too."""
    if isinstance(event, MemberCallEvent):
        return dataclasses.replace(event.event, agent=event.member)
    return event


class MemberCalls:
    """One team's (one conversation's) calls of members as tools: the callers' ``ask_*``
    tools, the fresh instances running now (to approve their calls, stop them with the team
    and count their usage under the callee), and the loop and depth guard."""

    def __init__(self, team: str, max_depth: int, roles: dict[str, str],
                 publisher: EventPublisher, *, tools: Iterable[ToolDefinition],
                 sources: Sequence[ToolSource],
                 formats: FormatRegistry | None, session: Session | None,
                 tracing: Tracing | None, team_usage: TeamUsage | None,
                 remotes: dict[str, A2AMember] | None = None) -> None:
        self.team = team
        self._remotes = remotes or {}  # the a2a: members: asked as remote agents
        self.graph = CallGraph(max_depth)
        self._roles = roles
        self._publish: Callable[[AgentEvent], None] = publisher.publish
        self._tools = list(tools)
        self._sources = list(sources)
        self._formats = formats
        self._session = session
        self._tracing = tracing
        self._team_usage = team_usage
        self._configs: dict[str, AgentConfig] = {}
        self.running: dict[str, Member] = {}
        """The team's members in their running conversations (set by the team)."""
        self._ask_running: AskRunning | None = None
        self._lock = threading.Lock()
        self._live: dict[str, Agent] = {}
        self._spent: dict[tuple[str, str], UsageTotals] = {}  # finished: by (root, callee)

    def __getstate__(self) -> dict[str, Any]:
        """What travels to a Ray host with a caller's ``ask_*`` tool: the members' configs,
        the tools and formats, the depth limit; not what belongs to this process (the
        team's stream, session, tracing and usage: the host gives its own, ``in_host``)."""
        return {"team": self.team, "max_depth": self.graph.max_depth, "roles": self._roles,
                "tools": self._tools, "formats": self._formats, "configs": self._configs,
                "remotes": self._remotes}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["team"], state["max_depth"], state["roles"],  # type: ignore[misc]
                      EventPublisher(), tools=state["tools"], sources=(),
                      formats=state["formats"], session=None, tracing=None, team_usage=None,
                      remotes=state["remotes"])
        self._configs = state["configs"]

    def in_host(self, team_usage: TeamUsage | None, tracing: Tracing | None,
                session: Session | None,
                publish: Callable[[AgentEvent], None] | None = None,
                ask_running: AskRunning | None = None) -> MemberCalls:
        """In a Ray host: its fresh instances count on the team's budget there, trace into
        the host's spans, keep their records in the team's session as the host reaches it
        and put their events (``MemberCallEvent``) into the host's stream (``publish``); a
        call of a running conversation goes wherever that member lives (``ask_running``).
        Returns itself: the host decides its instances' calls, reads their usage and adds
        other hosts' calls in flight to its ``graph``."""
        self._team_usage = team_usage
        self._tracing = tracing
        self._session = session
        if publish is not None:
            self._publish = publish
        self._ask_running = ask_running
        return self

    # -- wiring ------------------------------------------------------------------------------

    def wire(self, config: AgentConfig) -> AgentConfig:
        """The member's config as the team runs it, its ``ask:`` entries made tools."""
        self._configs[config.name] = config
        return self._bound(config, (config.name,), config.name)

    def _bound(self, config: AgentConfig, chain: tuple[str, ...], address: str
               ) -> AgentConfig:
        if not any(asked_member(item) for item in config.tools):
            return config
        tools = [made for j, item in enumerate(config.tools)
                 for made in self._asked(f"{config.name}: tools[{j}]", item, chain, address)]
        return config.model_copy(update={"tools": tools})

    def _asked(self, where: str, item: Any, chain: tuple[str, ...], address: str
               ) -> list[Any]:
        if (entry := asked_member(item)) is None:
            return [item]
        remote = remote_ask_tools(self, entry, self._remotes, self._roles, chain, address,
                                  where=f"team {self.team}", entry=f"{where}: ask:{entry}")
        return [self._ask_tool(entry, chain, address)] if remote is None else remote

    def _ask_tool(self, callee: str, chain: tuple[str, ...], caller: str) -> ToolDefinition:
        role = self._roles.get(callee, "")
        calls = self

        async def ask(request: str, context: ToolContext) -> Any:
            return await calls.ask(callee, request, context, chain, caller)

        ask.__doc__ = (f"Ask your teammate {callee} and get their answer as this call's "
                       f"result.{f' {callee}: {role}' if role else ''}\n\n"
                       "Args:\n    request: What you ask of them; include everything they "
                       "need, they see only this.\n")
        ask.in_host = self.in_host  # type: ignore[attr-defined]  # a Ray host's (ray_host.py)
        # idempotent: run again on resume, it finds the callee's stored answer (or turn)
        return tool(name=ask_tool_name(callee), category="team", idempotent=True)(ask)

    # -- a call ------------------------------------------------------------------------------

    async def ask(self, callee: str, request: str, context: ToolContext,
                  chain: tuple[str, ...], caller: str) -> Any:
        """Run ``callee`` on ``request`` for ``caller``'s call; its answer, or a
        ``ToolFailure`` with the reason."""
        config = self._configs.get(callee)
        if config is None:
            raise ToolFailure(ErrorCode.NOT_FOUND, f"there is no teammate named {callee!r}",
                              recoverable=False)
        running = config.ask_conversation == "running"
        target = callee if running else f"{callee}@{caller}/{context.invocation_id}"
        self.graph.enter(chain, caller, callee, target)
        try:
            if running:
                return await self._in_running(config, request, context, caller)
            return await self._fresh(config, request, context, (*chain, callee), caller,
                                     target)
        finally:
            self.graph.leave(caller, target)

    async def _in_running(self, config: AgentConfig, request: str, context: ToolContext,
                          caller: str) -> Any:
        callee = config.name
        member = self.running.get(callee)
        parent = self._parent(caller, context)
        if member is None and self._ask_running is not None:  # in a Ray host: to its host
            reply = self._ask_running(callee, request, caller, parent,
                                      self.graph.upstream(callee))
            spec = config.output_spec()
            return await _answer(callee, reply if spec is None else
                                 typed_reply(reply, spec.value))
        if member is None or not member.running:
            raise ToolFailure(ErrorCode.NOT_AVAILABLE, f"{callee} is not running",
                              recoverable=False)
        reply = member.send(request, sender=caller, trace_parent=parent)
        return await _answer(callee, reply)

    async def _fresh(self, config: AgentConfig, request: str, context: ToolContext,
                     chain: tuple[str, ...], caller: str, address: str) -> Any:
        callee = config.name
        session = None if self._session is None else self._session.conversation(address)
        if session is not None and (stored := _stored_answer(session, config)) is not None:
            return stored()  # it answered before its caller's process died
        agent = Agent(self._bound(config, chain, address),
                      tools=[*self._tools, _no_mail(callee), *self._sources],
                      formats=self._formats, session=session, tracing=self._tracing,
                      team_usage=None if self._team_usage is None else
                      call_usage(self._team_usage, callee))
        forward = EventSubscription()
        forward._sink = _forwarder(self._publish, caller, context.invocation_id, callee,
                                   address)
        agent.events(into=forward)
        with self._lock:
            self._live[address] = agent
        try:  # start, resume and stop are quick: on the loop, so a cancel leaves none running
            agent.start()
            resumed = agent.resume() if session is not None else []
            reply: Future[Any] = (resumed[0].reply if resumed else
                                  agent.deliver(request,  # the request alone, as asked
                                                trace_parent=self._parent(caller, context)))
            return agent.answer(await _answer(callee, reply))
        finally:  # answered, failed, or cancelled (the caller stopped, its call timed out)
            with self._lock:
                self._live.pop(address, None)
            agent.stop()
            self._count(address, agent.usage.run)
            forward.close()

    def _parent(self, caller: str, context: ToolContext) -> object | None:
        """The span of the caller's call: the callee's turn nests under it."""
        if self._tracing is None:
            return None
        parent: object | None = self._tracing.directory.get(caller, context.invocation_id)
        return parent

    # -- the team's view ---------------------------------------------------------------------

    def instance(self, address: str) -> Agent | None:
        """A fresh instance answering a call now (to approve or deny its calls)."""
        with self._lock:
            return self._live.get(address)

    def _count(self, address: str, spent: UsageTotals) -> None:
        key = (root_caller(address), address.partition("@")[0])
        with self._lock:
            kept = self._spent.get(key)
            self._spent[key] = spent if kept is None else _added(kept, spent)

    def spent_by(self, member: str | None = None) -> dict[str, UsageTotals]:
        """The fresh instances' usage (finished and running) by callee: of every chain, or
        of those a call of team member ``member`` began."""
        with self._lock:
            extra = [(callee, spent) for (root, callee), spent in self._spent.items()
                     if member is None or root == member]
            live = [(address, agent) for address, agent in self._live.items()
                    if member is None or root_caller(address) == member]
        totals: dict[str, UsageTotals] = {}
        for name, spent in [*extra, *((agent.name, agent.usage.run) for _, agent in live)]:
            totals[name] = spent if name not in totals else _added(totals[name], spent)
        return totals

    def usage(self, members: dict[str, UsageTotals],
              extra: dict[str, UsageTotals] | None = None) -> dict[str, UsageTotals]:
        """The members' usage with their fresh instances' (finished and running) added, or
        ``extra`` added (those a member's calls ran elsewhere)."""
        totals = dict(members)
        for name, spent in (self.spent_by() if extra is None else extra).items():
            totals[name] = spent if name not in totals else _added(totals[name], spent)
        return totals

    def new_run(self) -> None:
        """A new run of the team: the fresh instances' usage counts from zero."""
        with self._lock:
            self._spent.clear()

    def stop(self) -> None:
        """Stop the fresh instances still running (their callers are stopping)."""
        with self._lock:
            live = list(self._live.values())
        for agent in live:
            agent.stop()


async def _answer(callee: str, reply: Future[Any]) -> Any:
    """The callee's answer, or a failed result saying why."""
    try:
        # shielded: a cancel leaves the callee's own future alone (its run is stopped)
        answer = await asyncio.shield(asyncio.wrap_future(reply))
    except UsageLimitExceededError as exc:
        raise ToolFailure(ErrorCode.LIMIT, f"{callee} stopped at a limit: {exc}",
                          recoverable=False) from None
    except AgentStoppedError as exc:
        raise ToolFailure(ErrorCode.NOT_AVAILABLE, f"{callee} stopped before answering: {exc}",
                          recoverable=False) from None
    except AgentTurnError as exc:
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"{callee} failed: {exc.message}") from None
    if isinstance(answer, HandedOver):  # its turn ended in a handoff: that is no answer
        raise ToolFailure(ErrorCode.TOOL_ERROR,
                          f"{callee} tried to hand the conversation over to {answer.receiver} "
                          "instead of answering; a member answering a question as a tool "
                          "cannot hand over", recoverable=False)
    return answer


def root_caller(address: str) -> str:
    """The member whose call began an address's chain (``j@r@lead/c1/c2``: ``lead``)."""
    return address.rpartition("@")[2].partition("/")[0]


def _stored_answer(session: Session, config: AgentConfig) -> Callable[[], Any] | None:
    """The answer the callee's record holds (its turn ended before its caller's process
    died): a function giving it as the caller gets it (or raising its failure); None if the
    record holds no ended turn."""
    ended = [turn for turn in session.turns(config.name) if turn.state in ("done", "failed")]
    if not ended:
        return None
    return functools.partial(_ended_answer, config, ended[0].answer, ended[0].error)


def _ended_answer(config: AgentConfig, answer: str | None, error: str | None) -> Any:
    if answer is None:
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"{config.name} failed: {error or 'failed'}")
    spec = config.output_spec()
    return answer if spec is None else spec.value(answer)


def _no_mail(callee: str) -> ToolDefinition:
    """``send_message_to`` for a fresh instance: it answers its caller, it writes to no one."""

    def send_message_to(recipient_name: str, content: str) -> str:
        """Send a message to a teammate.

        Args:
            recipient_name: The teammate's name, exactly as listed.
            content: What to tell them.
        """
        raise ToolFailure(ErrorCode.NOT_AVAILABLE,
                          f"{callee} is answering a teammate's question as a tool and "
                          "cannot write to others", suggestion="answer with your result")

    return tool(name=SEND_MESSAGE_TOOL, category="team")(send_message_to)


def _forwarder(publish: Callable[[AgentEvent], None], caller: str, call_id: str,
               callee: str, address: str) -> Callable[[object], None]:
    """A sink putting a fresh instance's events into the team's stream, nested under the
    caller's call."""

    def forward(item: object) -> None:
        if isinstance(item, AgentEvent):
            publish(MemberCallEvent(agent=caller, call_id=call_id, callee=callee,
                                              member=address, event=item))

    return forward


def _added(one: UsageTotals, other: UsageTotals) -> UsageTotals:
    values: dict[str, Any] = {}
    for field in fields(UsageTotals):
        a, b = getattr(one, field.name), getattr(other, field.name)
        if field.name == "cost_usd":
            values[field.name] = None if a is None or b is None else Decimal(a) + Decimal(b)
        elif field.name == "unpriced":
            values[field.name] = tuple(dict.fromkeys((*a, *b)))
        else:
            values[field.name] = a + b
    return UsageTotals(**values)

