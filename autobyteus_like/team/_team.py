"""AgentTeam: members on their own actors (or Ray actors), talking through
``send_message_to``. The team holds its roster, its tool sources, its session and its usage;
its mail (delivery, messages in flight, quiescence) is its ``MailRoom``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from autobyteus_like.agent._subscription import EventPublisher, EventSubscription
from autobyteus_like.errors import (
    AgentStoppedError,
    AgentTurnError,
    BadRequestError,
    ConfigError,
    LLMError,
    UsageLimitExceededError,
)
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.mail._events import TeamQuiescent
from autobyteus_like.mail._room import MailRoom
from autobyteus_like.runtime import LocalRuntime, RayRuntime, open_backend
from autobyteus_like.runtime._backend import Member
from autobyteus_like.runtime._member import Callee
from autobyteus_like.team._answers import TeamAnswers
from autobyteus_like.team._callers import CallerQueue
from autobyteus_like.team._config import TeamConfig
from autobyteus_like.team._conversations import Conversations, check_conversation_id
from autobyteus_like.team._handoffs import handoff_tools, user_recipient
from autobyteus_like.team._member_tools import MemberCalls
from autobyteus_like.team._roster import find_member, members_usage, with_roster
from autobyteus_like.team._session_work import TeamSessionWork
from autobyteus_like.tools._registry import (
    ToolLike,
    ToolRegistry,
    ToolSource,
    acquire_all,
    split_tool_sources,
)
from autobyteus_like.tracing._settings import Tracing
from autobyteus_like.usage._report import TeamUsage, UsageReport

if TYPE_CHECKING:
    from autobyteus_like.agent._agent import Agent
    from autobyteus_like.store._session import Session

__all__ = ["AgentTeam"]


class AgentTeam(TeamAnswers, TeamSessionWork):
    """A running team. ``with team:`` starts every member and stops them all, and with them
    the tool sources they use: the ``mcp_servers`` of the config and any ``MCPToolset`` in
    ``tools``, each started once for the whole team. ``tracing``: where the members' spans
    go (one trace per run, across members).

    ``session`` keeps the team's work in a session: every member's conversation and every
    message between members is stored as it happens (a message before it is delivered), and a
    team started on a session its last process left unfinished goes on from there
    (``resume()``; ``send`` and ``run`` do so first by themselves). ``config``: a
    ``TeamConfig``, or a YAML file's path.

    A team holds many conversations (``conversation=ID`` on ``run``, ``arun``, ``stream``,
    ``astream``, ``send``, ``events``, ``approve``, ``deny``, ``resume``): each its own
    members, built on its first message, and its own session record ``NAME@ID``.
    ``max_conversations``: the most open at once besides the default one (None: no limit; a
    new one past it is a ``RunRefusedError``); ``end_conversation(ID)`` lets one go."""

    def __init__(
        self,
        config: TeamConfig | str | Path,
        *,
        tools: ToolRegistry | Iterable[ToolLike | ToolSource] | None = None,
        formats: FormatRegistry | None = None,
        session: Session | None = None,
        tracing: Tracing | None = None,
        runtime: LocalRuntime | RayRuntime | None = None,
        max_conversations: int | None = None,
    ) -> None:
        tools, sources = split_tool_sources(tools)
        if isinstance(config, str | Path):  # a team file, as AgentTeam.from_yaml reads it
            config = TeamConfig.from_yaml(config, tools=[*tools, *sources])
        elif not isinstance(config, TeamConfig):
            raise TypeError(f"AgentTeam needs a TeamConfig or the path of a team's YAML file "
                            f"(AgentTeam.from_yaml), got {type(config).__name__}")
        problems = config.tool_problems([*tools, *sources])
        if problems:
            raise ConfigError(f"team {config.name!r}", problems)
        if config.mcp_servers:  # the MCP package only for teams that name servers
            from autobyteus_like.mcp import MCPToolset

            sources += tuple(MCPToolset(name, server)
                             for name, server in config.mcp_servers.items())
        self.sources: tuple[ToolSource, ...] = sources
        """The tool sources the team starts and stops (its MCP servers)."""
        self._built_with = ([*tools, *sources], formats, tracing)  # for each conversation
        self._sources_held = False
        self.config = config
        self.name = config.name
        self._publisher = EventPublisher()
        self._lock = threading.Lock()
        self.session = session
        self._resume_due = False
        self.tracing = (tracing or Tracing()).for_team()  # usage and tracing: .usage, .tracing
        self._usage = TeamUsage(config.name, config.limits)
        self._callers = CallerQueue(config.name)
        self._conversations = Conversations(config.name, self._open_conversation,
                                            max_conversations)
        self.conversation_id: str | None = None
        """The id of the conversation this team is (None: the team's default one)."""
        self.runtime = runtime or config.runtime
        """Where the members live (``runtime:`` of the config unless given here)."""
        # On Ray, members store the messages they write to each other in their own processes
        self.mail = MailRoom(config.name, config.coordinator, self._publisher, session=session,
                             before_send=self._require_settled,
                             parent_of=self.tracing.directory.get)
        """The team's mail: delivery, messages in flight, quiescence."""
        self._backend = open_backend(self.runtime, self.mail, config.member_resources)
        self.member_calls = MemberCalls(  # members as tools (ask:NAME)
            config.name, config.ask_depth, {m.name: m.role for m in config.members},
            self._publisher, tools=tools, sources=sources, formats=formats, session=session,
            tracing=self.tracing, team_usage=self._usage,
            remotes={m.name: m.a2a for m in config.members if m.a2a is not None})
        self.agents: dict[str, Member] = {}
        for member in config.members:
            effective = config.effective_member(member)
            handoffs, taps = handoff_tools(config.members, member)  # transfer_to_<member> each
            wired = self.member_calls.wire(effective.model_copy(update={  # (fresh asks: as is)
                "system_prompt": with_roster(config, member.name, effective.system_prompt),
                "prices": effective.prices.merged_over(config.prices)}))
            self.agents[member.name] = self._backend.member(
                wired.model_copy(update={"tools": [*wired.tools, *handoffs],
                                         "hooks": [*wired.hooks, *taps]}),
                ToolRegistry(tools), sources, formats,
                session=session, tracing=self.tracing, team_usage=self._usage,
            )
        self.mail.members = self.member_calls.running = self.agents
        self.mail.handoff_history = {m.name: m.handoff_history for m in config.members}

    @classmethod
    def from_yaml(
        cls,
        path: str | Path,
        *,
        tools: ToolRegistry | Iterable[ToolLike | ToolSource] | None = None,
        formats: FormatRegistry | None = None,
        session: Session | None = None,
        tracing: Tracing | None = None,
    ) -> AgentTeam:
        """Load and build a team from a YAML file (``ConfigError`` on any problem)."""
        named, sources = split_tool_sources(tools)
        every = [*named, *sources]
        return cls(TeamConfig.from_yaml(path, tools=every), tools=every, formats=formats,
                   session=session, tracing=tracing)

    # -- life cycle --------------------------------------------------------------------------

    def start(self) -> AgentTeam:
        """Start the tool sources (all at once), then every member. If one cannot start, the
        ones already started are stopped again; a server that cannot start, an LLM that cannot
        be built (a missing API key or extra) or a tool name no server provides is a
        ``ConfigError`` naming it."""
        if self.sources and not self._sources_held and self._backend.sources_here:
            acquire_all(self.sources, f"team {self.name!r}")
            self._sources_held = True
        starting = ""
        if not any(agent.running for agent in self.agents.values()):
            self._usage.start_run()  # a new run: its limits count from zero
        try:
            if self.session is not None and not self.session.held:
                self._hold_session(self.session)
            self._backend.start()
            for agent in self.agents.values():
                starting = agent.name
                agent.start()
        except ConfigError:
            self.stop()
            raise
        except (LLMError, ValueError) as exc:
            self.stop()
            raise ConfigError(f"team {self.name!r}", [f"member {starting!r}: {exc}"]) from exc
        except BaseException:
            self.stop()
            raise
        self._conversations.open()
        return self

    def stop(self) -> None:
        """Stop every conversation's members (the other conversations first), leaving no
        thread; callers still waiting for their turn get ``AgentStoppedError``."""
        self._callers.close()
        failed: BaseException | None = None
        for conversation in self._conversations.close():
            try:
                conversation.stop()
            except Exception as exc:  # the others and this one stop all the same
                failed = failed or exc
        self._stop_own()
        if failed is not None:
            raise failed

    def _stop_own(self) -> None:
        self.mail.stopping()
        try:
            for agent in self.agents.values():
                agent.stop()
            self.member_calls.stop()  # a fresh instance its caller's stop left
            self._backend.stop()
        finally:
            if self._sources_held:
                self._sources_held = False
                for source in self.sources:
                    source.release()
            if self.session is not None and self.session.held:
                self.session.release(self.session.standing())
        self._publisher.close()
        self.mail.stopped()

    def new_run(self, *, rewind: bool = False, abandon: str = "a new run began",
                conversation: str | None = None) -> None:
        """Begin a new run in the running team: stop whatever is in flight (its replies fail,
        its calls are cut and waited for) and go on with the team's and every member's limits
        counted from zero, the subscribers to ``events`` kept. Without a session, each member
        goes on from its conversation as it stands, or with ``rewind`` as the run before
        began (that run leaves no trace: a served team's cancelled ask); with one, from the
        store, where a turn left unfinished ends with ``abandon`` as its error (calls without
        a result INTERRUPTED) and messages not yet delivered are dropped (FAILED). On Ray
        too, in place: the hosts, their processes and MCP servers stay, and each member
        begins its new run there. ``conversation``: that conversation's run (the default
        one's without)."""
        if conversation is not None:
            self.conversation(conversation).new_run(rewind=rewind, abandon=abandon)
            return
        self.mail.restarting()
        try:
            self._usage.start_run()
            self.member_calls.new_run()
            self._backend.new_run()
            for agent in self.agents.values():
                agent.new_run(rewind=rewind, abandon=abandon)
            if rewind and self.session is None:  # who held it as that run began
                self.mail.holder = self.mail.run_holder
            if self.session is not None:
                self._resume_due = False  # what the last process left was taken (or dropped)
                self.session.drop_undelivered_mail(abandon)
        finally:
            self.mail.restarted()

    def __enter__(self) -> AgentTeam:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    # -- the public surface ------------------------------------------------------------------

    def send(self, message: str, *, to: str | None = None,
             conversation: str | None = None) -> Future[str]:
        """Deliver a message from the user to a member (by default the one holding the
        conversation: the coordinator until a handoff, docs/handoffs.md), in
        ``conversation`` (the default one without), at once: not queued behind the callers
        of ``run``, ``arun`` and the streams, whose answers it would share;
        ``AgentStoppedError`` if the team is not running, ``UnknownMemberError`` for a name
        that is no member. The future resolves with that member's first answer (the
        receiver's, as for ``run``, when its turn hands the conversation over), which may come
        before the teammates it asked have replied; ``run`` returns the team's (last) answer."""
        if conversation is not None:
            return self.conversation(conversation).send(message, to=to)
        recipient = user_recipient(self.config, self.mail, to)
        self._member(recipient)
        return self.mail.send(recipient, message, None)

    def deliver(self, sender: str, recipient: str, content: str, call_id: str = "") -> str:
        """``send_message_to`` for ``sender`` (see ``MailRoom.deliver``)."""
        return self.mail.deliver(sender, recipient, content, call_id)

    @property
    def quiescent(self) -> bool:
        """Whether no member is busy and no message is in flight."""
        return self.mail.quiescent

    def wait_quiescent(self, timeout: float | None = None) -> bool:
        """Block until the team is quiet (True), or the timeout passes (False)."""
        return self.mail.wait_quiescent(timeout)

    def _wait_answer(self, timeout: float | None) -> str:
        """The coordinator's answer once quiet; its error (or a limit that ended all) raised."""
        answer, error = self.mail.wait_answer(timeout)
        error = self._usage.run.error or error
        if error is not None:
            raise error
        return answer

    def _outcome_at(self, quiet: TeamQuiescent) -> tuple[str, BaseException | None]:
        """The run's outcome as the team goes quiet (on the thread that saw it): the
        coordinator's answer and the error of its last turn, or the limit that ended the run
        for all, or ``AgentStoppedError`` if the team stopped with a message in flight."""
        try:
            answer, error = self.mail.wait_answer(0)
        except AgentStoppedError as exc:
            return "", exc
        except TimeoutError:  # a message sent outside the queue (``send``) is in flight
            answer = quiet.answer
            error = None if quiet.error is None else AgentTurnError(self.mail.holder,
                                                                    quiet.error)
        return answer, self._usage.run.error or error  # a crossed limit ended the run for all

    @property
    def usage(self) -> UsageReport:
        """Tokens, calls and cost of this run (since start), of the session (every run), and
        of each member's run."""
        return self._usage.report(members_usage(self.agents, self.member_calls))

    @property
    def usage_limit_error(self) -> UsageLimitExceededError | None:
        """The limit that ended this run, if one did."""
        return self._usage.run.error

    def events(self, into: EventSubscription | None = None, *,
               conversation: str | None = None) -> EventSubscription:
        """Every member's events and the team's own, merged as they happen, each naming its
        agent, in ``conversation`` (the default one without); ends when the team stops.
        ``into``: an existing subscription to feed (an ``AsyncEventSubscription`` for
        asyncio code)."""
        if conversation is not None:
            return self.conversation(conversation).events(into)
        subscription = self._publisher.subscribe(into)
        for agent in self.agents.values():
            agent.events(into=subscription)
        return subscription

    def stop_run(self, *, conversation: str | None = None) -> None:
        """Acknowledge a stop of the run in ``conversation`` in every member (``Agent.stop_run``):
        every later decision on it is refused and none of its calls starts."""
        for agent in self.conversation(conversation).agents.values():
            agent.stop_run()

    def approve(self, member: str, invocation_id: str, *,
                conversation: str | None = None) -> None:
        """Approve a member's waiting call (in ``conversation``, the default one without)."""
        self.conversation(conversation)._member(member).approve(invocation_id)

    def deny(self, member: str, invocation_id: str, reason: str = "denied by the user", *,
             conversation: str | None = None) -> None:
        """Deny a member's waiting call (in ``conversation``, the default one without)."""
        self.conversation(conversation)._member(member).deny(invocation_id, reason)

    # -- conversations -----------------------------------------------------------------------

    def conversation(self, conversation: str | None = None) -> AgentTeam:
        """The running team of one conversation: this team for the default one (None), else
        that conversation's own (its members, mail, usage and session record ``NAME@ID``),
        built and started on its first use. ``BadRequestError`` for an id that is not one,
        ``AgentStoppedError`` once the team stopped."""
        if conversation is None or conversation == self.conversation_id:
            return self
        if self.conversation_id is not None:  # a conversation holds no conversations
            raise BadRequestError(f"conversation {self.conversation_id!r} of team "
                                  f"{self.name!r} holds no conversation {conversation!r}")
        return self._conversations.get(check_conversation_id(conversation))

    def end_conversation(self, conversation: str) -> bool:
        """Stop a conversation's members and let it go (its session record stays: its next
        message builds it again, from there); whether it was open. Callers still waiting in
        it get ``AgentStoppedError``."""
        team = self._conversations.take(check_conversation_id(conversation))
        if team is None:
            return False
        team.stop()
        return True

    @property
    def conversations(self) -> list[str]:
        """The ids of the conversations open in this process (the default one not among
        them), in the order they began."""
        return self._conversations.ids()

    def _open_conversation(self, conversation: str) -> AgentTeam:
        """A new conversation: the team's config, tools, formats and tracing, its tool
        sources shared (started once), a session record of its own; started."""
        tools, formats, tracing = self._built_with
        session = None if self.session is None else self.session.conversation(conversation)
        team = AgentTeam(self.config.model_copy(update={"mcp_servers": {}}), tools=tools,
                         formats=formats, session=session, tracing=tracing,
                         runtime=self.runtime)
        team.conversation_id = conversation
        team._callers.name = f"{self.name}@{conversation}"
        return team.start()

    def _member(self, name: str) -> Member | Agent | Callee:
        """The member of that name, or a fresh instance answering a call (its address,
        ``callee@caller/call``), or ``UnknownMemberError`` naming the members."""
        return find_member(self.name, self.agents, self.member_calls, name)
