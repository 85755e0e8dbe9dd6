"""Agent: the embedding facade. Start it, send it messages, read its events, approve calls."""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from types import TracebackType
from typing import TYPE_CHECKING

import pykka
from loguru import logger

from autobyteus_like._frozen_values import builder
from autobyteus_like.agent._actor import AgentActor
from autobyteus_like.agent._actor_messages import (
    ConversationQuery,
    HandOver,
    ToolsRefreshed,
)
from autobyteus_like.agent._answer_stream import OutputT
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.agent._conversation import AgentConversation
from autobyteus_like.agent._member_llm import keep_formats_in
from autobyteus_like.agent._member_replies import not_running
from autobyteus_like.agent._message_parts import message_parts
from autobyteus_like.agent._per_config import PromptedAgent, config_format
from autobyteus_like.agent._requests import AgentRequests
from autobyteus_like.agent._resume import AgentResume, ResumedTurn
from autobyteus_like.agent._run_hooks import session_writer, usage_and_tracing_hooks
from autobyteus_like.agent._session_usage import SessionUsage
from autobyteus_like.agent._subscription import (
    AsyncEventSubscription,
    EventPublisher,
    EventSubscription,
)
from autobyteus_like.agent._working_memory import working_set_processors
from autobyteus_like.events import (
    AgentEvent,
    ConversationReset,
    UserMessageReceived,
)
from autobyteus_like.formats import NATIVE, FormatRegistry
from autobyteus_like.handlers import default_handlers
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._demonstrating import DemonstratingLLM
from autobyteus_like.llm._messages import Message
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.llm._scripted import continue_script
from autobyteus_like.output._structured import provider_schema
from autobyteus_like.tools._context import CancelFlag
from autobyteus_like.tools._image_content import ImageContent
from autobyteus_like.tools._registry import (
    ToolLike,
    ToolRegistry,
    ToolSource,
    acquire_all,
    split_tool_sources,
)
from autobyteus_like.tracing._settings import Tracing, current_parent
from autobyteus_like.usage._report import AgentUsage, TeamUsage, UsageReport

if TYPE_CHECKING:
    from autobyteus_like.store._restore import TurnSnapshot
    from autobyteus_like.store._session import Session

__all__ = ["Agent", "ResumedTurn"]

_user_message = builder(UserMessageReceived)


class Agent(PromptedAgent, AgentConversation[OutputT], AgentRequests[OutputT], AgentResume):
    """One agent on its own actors. ``with agent:`` starts it and stops it, leaving no thread.

    ``Agent[Verdict]`` (``agent: Agent[Verdict] = Agent(config)``) tells a type checker what
    ``run``, ``arun``, ``send(...).result()`` and ``stream(...).result()`` return for a config
    whose ``output_type`` is ``Verdict`` (``str`` without one); unsaid, it is ``Any``.

    ``tools`` resolves tool names in ``config.tools``; ``formats`` adds custom formats.
    ``tools`` may include tool sources (``MCPToolset``): the agent starts them with itself,
    resolves the names (and patterns such as ``fs.*``) against their tools once they run, stops
    them with itself, and takes their new tools before its next turn when they change.

    ``session`` keeps the conversation in a session: every step is stored as it happens, and an
    agent started on a session that has history goes on from it. What its last process left
    unfinished is settled first: ``resume()`` goes on with it, ``abandon_unfinished(reason)``
    ends it (``send`` before either is an ``UnfinishedSessionError``).

    ``tracing``: where its spans go (default: the global SDK provider, if set); ``team_usage``
    is set by ``AgentTeam``.
    """

    def __init__(
        self,
        config: AgentConfig,
        *,
        tools: ToolRegistry | Iterable[ToolLike | ToolSource] | None = None,
        formats: FormatRegistry | None = None,
        session: Session | None = None,
        tracing: Tracing | None = None,
        team_usage: TeamUsage | None = None,
    ) -> None:
        self.config = config
        self.session = session
        self._holds_session = False
        self._restored: TurnSnapshot | None = None
        self._run_start: list[Message] = []
        """The conversation this run began with (without a session; empty for the first:
        the config's history is seeded again then)."""
        self.name = config.name
        self.output = config.output_spec()
        """The final answer's type (None: text), taught as the ``final_result`` tool."""
        self._named, self._sources = split_tool_sources(tools)
        self.format = config_format(config, formats)
        self._prompt = None  # the system prompt: rendered when first needed
        self.tools = self._resolve_tools(pending=[source.namespace for source in self._sources])
        self._unwatch: list[Callable[[], None]] = []
        self._publisher = EventPublisher()
        self._kept_llm: LLM | None = None
        self._built_llm: LLM | None = None
        self._turn_ids = itertools.count(1)
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._ref: pykka.ActorRef[AgentActor] | None = None
        self._run_stopped = CancelFlag()  # each run's own (stop_run)
        self.tracing = tracing
        self._usage = AgentUsage(config.name, config.limits, config.prices, team_usage)
        self._traced = False
        self._last_conversation: tuple[str, tuple[Message, ...]] | None = None

    @property
    def usage(self) -> UsageReport:
        """Tokens, calls and cost: this run's (since start), the session's (every run) and
        each recent turn's."""
        return self._usage.report()

    def _resolve_tools(self, pending: Iterable[str] = ()) -> ToolRegistry:
        """The agent's tools (its sources' current tools included); the system prompt is
        rendered again when next needed."""
        named = self._named
        if self._sources:
            named = ToolRegistry(named)
            for source in self._sources:
                for definition in source.tools():
                    named.add(definition)  # a name given twice is an error, not a choice
        tools = self.config.tool_registry(named, pending=frozenset(pending))
        if self.output is not None and self.config.output_mode == "tool":
            tools.add(self.output.tool)
        self._prompt = None
        return tools

    def resolve_tools(self) -> ToolRegistry:
        """Resolve the configured tool names against the sources' tools as they are now
        (``ValueError`` naming a tool or pattern nothing provides); for checking a config."""
        self.tools = self._resolve_tools()
        return self.tools

    def _tools_changed(self) -> None:
        """A source's tools changed (called on its thread): the actor takes the new tools
        before its next turn."""
        with self._lock:
            ref = self._ref
            if ref is None:
                return
            kept = self.tools, self._prompt
            try:
                self.tools = self._resolve_tools(
                    pending=[source.namespace for source in self._sources])
                prompt = self.system_prompt
            except Exception as exc:  # keep the tools it has; say why
                self.tools, self._prompt = kept
                logger.warning("agent {}: its tools changed but cannot be used: {}",
                               self.name, exc)
                return
            tools = self.tools
        ref.tell(ToolsRefreshed(tools, prompt))

    # -- life cycle --------------------------------------------------------------------------

    def start(self) -> Agent[OutputT]:
        """Start the agent's actor (once), and its tool sources first; returns the agent.
        A source that cannot start is a ``ConfigError`` naming it."""
        with self._lock:
            if self._ref is not None:
                return self
            if self._sources:
                acquire_all(self._sources, f"agent {self.name!r}")
                try:
                    self.tools = self._resolve_tools()
                    self._start_actor()
                except BaseException:
                    for source in self._sources:
                        source.release()
                    raise
                self._unwatch = [source.watch(self._tools_changed) for source in self._sources]
            else:
                self._start_actor()
        return self

    def _start_actor(self) -> None:
        # a described LLM becomes real only now (a new run goes on with the one it had)
        llm, self._kept_llm = self._kept_llm or self.config.build_llm(), None
        self._built_llm = llm  # the next run goes on with it (unwrapped)
        keep_formats_in(llm, self.session.store if self.session is not None else None)
        if self.config.manifest == "compact" and self.format.name != NATIVE and \
                llm.provider is not LLMProvider.SCRIPTED and \
                not isinstance(llm, DemonstratingLLM):  # a scripted LLM keys replies by history
            llm = DemonstratingLLM(llm, lambda: self._demonstration)
        llm.check_tools(self.tools)  # e.g. a schema strict mode cannot take
        config = self.config if llm is self.config.llm else self.config.model_copy(
            update={"llm": llm})
        handlers = default_handlers()
        for event_type, handler in self.config.handlers.items():
            handlers.register(event_type, handler)
        schema = provider_schema(self.name, self.output, self.config.output_mode,
                                 self.format.name, llm)
        processors, working_set = working_set_processors(self)  # memory.advise's
        shaped = bool(processors or self.format.name != NATIVE or schema)
        if shaped:
            from autobyteus_like.history._outgoing import ShapedLLM  # what each request sends

            config = config.model_copy(update={"llm": ShapedLLM(
                llm, self.name, self.format, processors, schema)})
        writer = None
        session = self.session
        if session is not None and not session.held:  # an agent on its own (a team holds
            session.hold(self.name, {self.name: self.tools.names()})  # its members' session)
            self._holds_session = True
        try:
            keeper = None
            if session is not None:
                self._restored = restored = session.restore(self.name)
                continue_script(llm, restored.messages, session.name,
                                restored.inherited_replies)
                writer = session_writer(session, self.name, restored, shaped)
                keeper = SessionUsage(session, self.name)  # the run's budget is kept there
                self._turn_ids = itertools.count(restored.last_turn_id + 1)
            hooks = usage_and_tracing_hooks(self.name, llm, self._usage, self.tracing, keeper)
            self._traced = len(hooks) > 1
            self._run_stopped = CancelFlag()
            self._ref = AgentActor.start(
                config, self.tools, self.format, self.system_prompt, handlers,
                self._publisher, self._threads, hooks=(writer, *hooks) if writer else
                tuple(hooks), snapshot=self._restored, working_set=working_set,
                run_stopped=self._run_stopped, session=None if session is None else session.name,
            )
            if self.config.history is not None and not (
                    self._restored is not None and self._restored.messages):
                self._seed(self.config.history)  # a session's own conversation goes on
        except BaseException:
            self._release_session(wrote=writer is not None)
            raise

    def _release_session(self, wrote: bool = True) -> None:
        if self.session is not None and wrote:
            self.session.stopped(self.name)
        if self._holds_session and self.session is not None:
            self._holds_session = False
            self.session.release(self.session.standing())

    def stop(self, timeout: float = 10) -> None:
        """Stop promptly: cancel in-flight work, stop every actor, join their threads, then
        stop the tool sources it started."""
        if threading.current_thread() in self._threads:  # a hook or a tool: it cannot wait
            ref = self._ref                                 # for itself, so it only asks;
            if ref is not None:                             # the next stop() joins
                ref.stop(block=False)
            return
        self._run_stopped.set()  # acknowledged: no decision taken, no call started from now
        with self._lock:
            ref, self._ref = self._ref, None
            unwatch, self._unwatch = self._unwatch, []
        if ref is None:
            return
        with contextlib.suppress(pykka.ActorDeadError, FutureTimeout):  # kept to be read
            self._last_conversation = ref.ask(  # type: ignore[assignment]
                ConversationQuery(), timeout=timeout)
        try:
            self._stop_actor(ref, timeout)
        finally:
            self._release_session()
            for stop_watching in unwatch:
                stop_watching()
            for source in self._sources:
                source.release()

    def _stop_actor(self, ref: pykka.ActorRef[AgentActor], timeout: float) -> None:
        ref.stop(block=True, timeout=timeout)
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
                if thread.is_alive():
                    logger.warning("agent {}: {} is still finishing (a provider stream that "
                                   "cannot be cut ends at its timeout)", self.name, thread.name)

    def new_run(self, *, rewind: bool = False, abandon: str = "a new run began",
                timeout: float = 10) -> None:
        """Begin a new run: stop the work in flight (its calls are cut and waited for; its
        replies fail with ``AgentStoppedError``) and go on with limits counted from zero, the
        subscribers to ``events`` kept. Without a session, from the conversation as it
        stands, or with ``rewind`` as this run began (the run leaves no trace: a cancelled
        ask). With one, from the store: a turn left unfinished ends there with ``abandon`` as
        its error, each call without a result INTERRUPTED (as ``abandon_unfinished`` does)."""
        self._run_stopped.set()  # acknowledged: no decision taken, no call started from now
        with self._lock:
            ref, self._ref = self._ref, None
        if ref is None:
            raise not_running(self.name)
        handed: TurnSnapshot = ref.ask(HandOver(), timeout=timeout)  # type: ignore[assignment]
        self._stop_actor(ref, timeout)
        self._kept_llm = self._built_llm
        if self.session is not None:
            self.session.stopped(self.name)  # written again by the next actor
        else:
            if rewind:
                handed.messages = list(self._run_start)
            self._run_start = list(handed.messages)
            self._restored = handed
        with self._lock:
            self._threads[:] = [thread for thread in self._threads if thread.is_alive()]
            self._start_actor()
        if self.session is not None:
            self.abandon_unfinished(abandon)  # the store's unfinished turn ends here

    @property
    def running(self) -> bool:
        """Whether the agent has been started and not stopped."""
        return self._ref is not None

    def __enter__(self) -> Agent[OutputT]:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    # -- talking to it -----------------------------------------------------------------------

    def _tell(self, event: AgentEvent) -> None:
        ref = self._ref
        if ref is None:
            raise not_running(self.name)
        try:
            ref.tell(event)
        except pykka.ActorDeadError:  # stopped by one of its own threads
            raise not_running(self.name) from None

    def _submit(self, text: str | Sequence[str | ImageContent], *, sender: str | None = None,
                mail_id: str | None = None, trace_parent: object | None = None,
                history: Iterable[HistoryMessage] | None = None) -> tuple[int, Future[str]]:
        """Queue a message (after seeding ``history``, when given); its turn id and reply.
        The answer of a typed agent is its JSON text."""
        self._require_settled()
        text, images = message_parts(text)
        if history is not None:
            self._seed(history)
        if trace_parent is None and self._traced:
            trace_parent = current_parent()
        reply: Future[str] = Future()
        turn_id = next(self._turn_ids)
        self._tell(_user_message(agent=self.name, text=text, turn_id=turn_id, sender=sender,
                                 reply=reply, mail_id=mail_id, trace_parent=trace_parent,
                                 images=images))
        return turn_id, reply

    def reset(self) -> None:
        """Start a new conversation: forget the history (after the current turn, if any)."""
        self._require_settled()
        self._tell(ConversationReset(agent=self.name, turn_id=next(self._turn_ids)))

    def events(self, into: EventSubscription | None = None) -> EventSubscription:
        """Every event from now on, until the agent stops (or the subscription is closed);
        ``into`` adds this agent's events to an existing subscription (a merged stream)."""
        return self._publisher.subscribe(into)

    def aevents(self) -> AsyncIterator[AgentEvent]:
        """``events`` for asyncio code: call it inside the loop that reads it (subscribed at
        once); events reach the loop without a thread hop each."""
        subscription = self._publisher.subscribe(AsyncEventSubscription())
        assert isinstance(subscription, AsyncEventSubscription)
        return subscription.__aiter__()

