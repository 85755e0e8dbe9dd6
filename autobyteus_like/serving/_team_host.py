"""TeamHost: a team kept running behind a server, asked one message at a time in each of its
conversations (``ask(..., conversation=ID)``; the default one without), the conversations at
once.

The host holds the team's MCP servers (its tool sources) for its whole life. Each ask is a run
of its own: its usage limits count from zero, so a limit crossed by one ask never fails the
next (the members' conversations go on). ``ask`` subscribes to the team's events on the
server's event loop (no thread per call), reports each as progress, settles approvals by the
policy, and returns once the team is quiet. Cancelling ``ask`` (the client cancelled its
request) stops that ask's work at once, cutting every member's LLM request and tool and
waiting for them to end, in the same team (never rebuilt: its MCP servers, its session's
lease and its subscribers stay). Without a session the conversations go back to where they
were before the ask; with one, the store keeps what happened: the cancelled turn ends as
failed, each of its calls without a result INTERRUPTED, in order. A team on Ray is not
rebuilt either: its hosts (their processes, MCP servers and the session) stay, and each member
begins its new run in its host.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from autobyteus_like.agent._subscription import AsyncEventSubscription
from autobyteus_like.errors import AgentTurnError, RunRefusedError, SessionLostError
from autobyteus_like.events import AgentEvent, ApprovalRequested, ToolStarted
from autobyteus_like.serving._approval import ApprovalPolicy
from autobyteus_like.serving._elicitations import ElicitationRouter
from autobyteus_like.team import AgentTeam, TeamConfig, TeamQuiescent, check_conversation_id
from autobyteus_like.team._member_tools import as_instance_event
from autobyteus_like.tools._registry import (
    ToolLike,
    ToolRegistry,
    ToolSource,
    acquire_all,
    split_tool_sources,
)

if TYPE_CHECKING:
    from concurrent.futures import Future

    from autobyteus_like.mcp import ElicitationHandler
    from autobyteus_like.store._session import Session

__all__ = ["TeamHost"]

Report = Callable[[AgentEvent], Awaitable[None]]


class TeamHost:
    """One team behind a server; ``start`` it, ``ask`` it, ``stop`` it. ``on_elicitation``:
    where its MCP servers' questions for a person go (an API callback; None: declined).
    ``max_conversations``: the most open at once besides the default one; a new one past it
    lets go of the idle one unused longest (its session record stays: it comes back with its
    history), and is refused only when every one is in an ask."""

    def __init__(self, config: TeamConfig,
                 tools: ToolRegistry | Iterable[ToolLike | ToolSource] | None = None,
                 policy: ApprovalPolicy | None = None, session: Session | None = None,
                 max_conversations: int | None = None,
                 on_elicitation: ElicitationHandler | None = None) -> None:
        named, sources = split_tool_sources(tools)
        self.elicitations = ElicitationRouter(on_elicitation)
        """Where its MCP servers' questions go: the asking ask's ``elicit``, else
        ``on_elicitation`` (None: declined)."""
        if config.mcp_servers:
            from autobyteus_like.mcp._toolset import MCPToolset

            sources += tuple(MCPToolset(name, server, on_elicitation=self.elicitations)
                             for name, server in config.mcp_servers.items())
            config = config.model_copy(update={"mcp_servers": {}})
        self.config = config
        self.policy = policy or ApprovalPolicy()
        self.session = session
        """A session the team keeps its conversations in (and goes on with)."""
        self._tools: list[ToolLike | ToolSource] = [*named, *sources]
        self._sources = sources
        self._most = max_conversations  # open besides the default one (None: no limit)
        self._active: dict[str, int] = {}  # conversation -> asks in it now
        self._used: dict[str, float] = {}  # conversation -> when its last ask ended
        self._room = threading.Lock()
        self._team: AgentTeam | None = None
        self._asked: set[str | None] = set()  # a conversation's first ask: its start's run
        self._unfinished: str | None = None  # where the session's work stood at start
        self.lost: SessionLostError | None = None
        """Set when another process took the session over (this one's lease ran out, say
        while it was paused): nothing more of this host is stored; it should stop."""
        self.on_lost: Callable[[], None] | None = None
        """Called (on the ask's event loop) when the session is found lost: the face stops."""
        self.cancelled = "the client cancelled the ask"
        """The error a cancelled ask's turns end with (in a session's store)."""
        AgentTeam(config, tools=self._tools)  # every problem now, before anyone connects

    @property
    def team(self) -> AgentTeam:
        """The running team."""
        if self._team is None:
            raise RuntimeError("the team host is not started")
        return self._team

    def start(self) -> None:
        """Start the MCP servers, then the team (``ConfigError`` naming what failed). Whatever
        stops the start half way (a failure, a signal) stops what was started."""
        try:
            acquire_all(self._sources, f"team {self.config.name!r}")
            self._team = AgentTeam(self.config, tools=self._tools, session=self.session,
                                   max_conversations=self._most).start()
            standing = None if self.session is None else self.session.standing()
            self._unfinished = None if standing in (None, "done") else standing
        except BaseException:
            self.stop()
            raise

    @property
    def unfinished(self) -> str | None:
        """What the session's last process left, not yet resumed nor abandoned: ``waiting``
        (a call waits for a person) or ``unfinished`` (a turn or a message); None when
        nothing is (or there is no session). A new message is refused until it is settled:
        ``ask(None, ...)`` goes on with it, ``abandon`` ends it."""
        return self._unfinished

    def left_behind(self) -> str:
        """What the session's last process left unfinished, in words (``unfinished`` set)."""
        assert self.session is not None
        what = ("a call waiting for a decision" if self._unfinished == "waiting"
                else "an unfinished turn")
        return f"session {self.session.name!r} has {what} its last process left"

    def refusal(self) -> str:
        """Why a message cannot be asked now (the session is unfinished)."""
        return (f"{self.left_behind()}: resume it or abandon it (with a reason) before "
                "sending a new message")

    async def abandon(self, reason: str) -> None:
        """End what the session's last process left unfinished without going on with it,
        as ``AgentTeam.abandon_unfinished(reason)`` does (each member's turn fails with
        ``reason``, its calls without a result INTERRUPTED; messages not yet delivered are
        dropped), with its refusals (a Ray team's hosts go on with it as they start: only
        resuming is possible there). ``RunRefusedError`` when nothing is unfinished."""
        if not reason.strip():
            raise RunRefusedError("say why the unfinished work is abandoned (a reason)")
        turn = self.team.caller_turn()  # after the default conversation's asks before it
        try:
            await turn.await_place()
            if self._unfinished is None:
                raise RunRefusedError("the session has nothing unfinished to abandon")
            await anyio.to_thread.run_sync(self.team.abandon_unfinished, reason.strip())
            self._unfinished = None
        finally:
            turn.release()

    def stop(self) -> None:
        """Stop the team and its MCP servers (again: nothing more)."""
        team, self._team = self._team, None
        try:
            if team is not None:
                team.stop()
        finally:
            for source in self._sources:
                source.release()

    def _new_run(self, rewind: bool = False, abandon: str = "a new ask began",
                 conversation: str | None = None) -> None:
        """A new run of ``conversation`` for its next ask (after a cancelled one, ``rewind``:
        the conversations as the ask found them; a session's store keeps its own)."""
        self.team.new_run(rewind=rewind, abandon=abandon, conversation=conversation)

    async def ask(self, message: str | None, member: str | None, report: Report, *,
                  settle_approvals: bool = True, conversation: str | None = None,
                  elicit: ElicitationHandler | None = None) -> str:
        """Give ``member`` (the coordinator by default) a message in ``conversation`` (the
        default one without) and return its answer once that conversation is quiet;
        ``AgentTurnError`` if its turn failed. The asks of one conversation go one at a time,
        in the order they came, each its own run; different conversations run at once (a
        conversation's first ask builds its members). ``settle_approvals=False`` leaves each
        waiting call to whoever watches ``report`` (a person, in the web view).
        ``message=None`` goes on with what the session left unfinished (``AgentTurnError``
        when nothing was). ``BadRequestError`` for a conversation id that is not one.
        ``elicit``: who answers the elicitations of this ask's calls to MCP servers (called
        on a worker thread; without it the host's ``on_elicitation``)."""
        if conversation is not None:
            check_conversation_id(conversation)
        route = self.elicitations.open(elicit)
        try:
            return await self._ask(message, member, report, settle_approvals, conversation,
                                   route)
        except SessionLostError as exc:  # taken over: every later ask would fail the same
            self.lost = exc
            if self.on_lost is not None:
                self.on_lost()
            raise
        finally:
            self.elicitations.close(route)

    async def _ask(self, message: str | None, member: str | None, report: Report,
                   settle_approvals: bool, conversation: str | None, route: int) -> str:
        if conversation is None:
            return await self._ask_in(self.team, message, member, report, settle_approvals,
                                      None, route)
        self._active[conversation] = self._active.get(conversation, 0) + 1
        try:
            await anyio.to_thread.run_sync(self._make_room, conversation)
            team = await anyio.to_thread.run_sync(self.team.conversation, conversation)
            return await self._ask_in(team, message, member, report, settle_approvals,
                                      conversation, route)
        finally:
            self._active[conversation] -= 1
            if not self._active[conversation]:
                del self._active[conversation]
            self._used[conversation] = time.monotonic()

    def _make_room(self, conversation: str) -> None:
        """With ``max_conversations`` open, end the one unused longest that no ask is in
        (its session record stays: its next message builds it again from there)."""
        with self._room:
            open_now = self.team.conversations
            if self._most is None or conversation in open_now or len(open_now) < self._most:
                return
            idle = [c for c in open_now if c not in self._active]
            if idle:  # (none idle: the team refuses the new one, naming its most)
                oldest = min(idle, key=lambda c: self._used.get(c, 0.0))
                self.team.end_conversation(oldest)
                self._asked.discard(oldest)
                self._used.pop(oldest, None)

    async def _ask_in(self, team: AgentTeam, message: str | None, member: str | None,
                      report: Report, settle_approvals: bool, conversation: str | None,
                      route: int) -> str:
        turn = team.caller_turn()
        replies: list[Future[str]] = []
        try:
            await turn.await_place()
            if conversation is None and message is not None and self._unfinished is not None:
                raise RunRefusedError(self.refusal())
            if conversation in self._asked:
                await anyio.to_thread.run_sync(self._new_run, False, "a new ask began",
                                               conversation)
            if conversation is None:
                self._unfinished = None  # (a resume takes it now)
            subscription = AsyncEventSubscription()
            team.events(into=subscription)
            try:
                turn.begin(lambda: self._start(team, message, member, replies))
                self._asked.add(conversation)  # (a refused one leaves a resume its work)
                quiet: TeamQuiescent | None = None
                async for event in subscription:
                    for started in (event, as_instance_event(event)):  # (a callee's: both)
                        if isinstance(started, ToolStarted):
                            self.elicitations.note(route, started.agent, started.invocation.id)
                    await report(event)
                    if isinstance(asked := as_instance_event(event), ApprovalRequested) \
                            and settle_approvals:  # (a callee's call too: by its address)
                        # off the event loop: a Ray team's answer may take a while
                        await anyio.to_thread.run_sync(self._decide, team, asked)
                    elif isinstance(event, TeamQuiescent):
                        quiet = event
                        break
            except anyio.get_cancelled_exc_class():
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(self._new_run, True, self.cancelled,
                                                   conversation)
                raise
            finally:
                subscription.close()
        finally:
            turn.release()
        if quiet is None:
            raise AgentTurnError(member or self.config.coordinator, "the team stopped")
        if member is None:  # the answer of whoever holds the conversation (docs/handoffs.md)
            if quiet.error is not None:  # said of that member already: named once
                holder = team.mail.holder
                raise AgentTurnError(holder, quiet.error.removeprefix(f"agent {holder!r}: "))
            return quiet.answer
        return replies[0].result(timeout=0)  # settled: the team is quiet

    def _start(self, team: AgentTeam, message: str | None, member: str | None,
               replies: list[Future[str]]) -> None:
        """Send the ask's message (keeping the member's reply), or resume the session."""
        if message is None:
            if not team.begin_resume():
                raise AgentTurnError(self.config.coordinator,
                                     "the session has nothing unfinished to go on with")
            return
        replies.append(team.send(message, to=member))

    def answer_value(self, answer: str) -> Any:
        """The team's answer as JSON holds it: the value a typed member holding the
        conversation (the coordinator until a handoff) answered (its answer travels as JSON
        text), else the text itself."""
        holder = next(member for member in self.config.members
                      if member.name == self.team.mail.holder)
        if holder.output_spec() is None:
            return answer
        try:
            return json.loads(answer)
        except ValueError:  # (a typed answer is JSON; anything else is shown as it is)
            return answer

    def _decide(self, team: AgentTeam, event: ApprovalRequested) -> None:
        approved, reason = self.policy.decide(event.invocation.name)
        if approved:
            team.approve(event.agent, event.invocation.id)
        else:
            team.deny(event.agent, event.invocation.id, reason)
