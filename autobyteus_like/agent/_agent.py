"""Agent: the embedding facade. Start it, send it messages, read its events, approve calls.

``Agent`` holds its parts and delegates to them: its ``Toolbox`` (tools, format, system
prompt), its ``ActorLine`` (the running actor, its threads, the run's stop flag), its
``Conversation`` (history), its ``Requests`` (messages, answers, decisions) and its
``UnfinishedTurns`` (what a session's last process left); ``_assembly.start_run`` puts a run
together when it starts."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from concurrent.futures import Future
from types import TracebackType
from typing import TYPE_CHECKING, Generic

import pykka
from loguru import logger

from autobyteus_like.agent._actor import AgentActor
from autobyteus_like.agent._actor_line import ActorLine
from autobyteus_like.agent._actor_messages import HandOver, ToolsRefreshed
from autobyteus_like.agent._answer_stream import AnswerStream, AsyncAnswerStream, OutputT
from autobyteus_like.agent._assembly import release_session, start_run
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.agent._conversation import Conversation
from autobyteus_like.agent._member_replies import not_running
from autobyteus_like.agent._requests import Requests
from autobyteus_like.agent._resume import ResumedTurn, UnfinishedTurns
from autobyteus_like.agent._subscription import (
    AsyncEventSubscription,
    EventPublisher,
    EventSubscription,
)
from autobyteus_like.agent._toolbox import Toolbox
from autobyteus_like.events import AgentEvent, ApprovalDenied, ApprovalGranted
from autobyteus_like.formats import FormatRegistry, ToolFormat
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import Message
from autobyteus_like.tools._image_content import ImageContent
from autobyteus_like.tools._registry import ToolLike, ToolRegistry, ToolSource, acquire_all
from autobyteus_like.tracing._settings import Tracing
from autobyteus_like.usage._report import AgentUsage, TeamUsage, UsageReport

if TYPE_CHECKING:
    from autobyteus_like.store._restore import TurnSnapshot
    from autobyteus_like.store._session import Session

__all__ = ["Agent", "ResumedTurn"]


class Agent(Generic[OutputT]):
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

    __slots__ = ("__weakref__", "_built_llm", "_conversation", "_holds_session", "_line",
                 "_publisher", "_requests", "_run_start", "_toolbox", "_unfinished", "_unwatch",
                 "_usage", "config", "name", "output", "session", "tracing")

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
        self.name = config.name
        self.session = session
        self.tracing = tracing
        self.output = output = config.output_spec()
        """The final answer's type (None: text), taught as the ``final_result`` tool."""
        self._toolbox = toolbox = Toolbox(
            config, tools, formats,
            output.tool if output is not None and config.output_mode == "tool" else None)
        self._line = line = ActorLine(config.name)
        self._conversation = conversation = Conversation(config, line, toolbox)
        self._unfinished = unfinished = UnfinishedTurns(line, toolbox, session,
                                                        config.max_result_chars)
        self._requests: Requests[OutputT] = Requests(line, output, conversation, unfinished)
        self._publisher = EventPublisher()
        self._usage = AgentUsage(config.name, config.limits, config.prices, team_usage)
        self._built_llm: LLM | None = None  # the run's member LLM, unwrapped (new_run's)
        self._holds_session = False
        self._unwatch: list[Callable[[], None]] = []
        self._run_start: list[Message] = []
        """The conversation this run began with (without a session; empty for the first:
        the config's history is seeded again then)."""

    @property
    def tools(self) -> ToolRegistry:
        """The agent's tools (its tool sources' included once they run)."""
        return self._toolbox.tools

    @property
    def format(self) -> ToolFormat:
        """The format its model is taught to call tools in."""
        return self._toolbox.format

    @property
    def system_prompt(self) -> str:
        """The system prompt, the tools taught in the agent's format."""
        return self._toolbox.prompt

    @system_prompt.setter
    def system_prompt(self, prompt: str) -> None:
        self._toolbox.prompt = prompt

    @property
    def usage(self) -> UsageReport:
        """Tokens, calls and cost: this run's (since start), the session's (every run) and
        each recent turn's."""
        return self._usage.report()

    def resolve_tools(self) -> ToolRegistry:
        """Resolve the configured tool names against the sources' tools as they are now
        (``ValueError`` naming a tool or pattern nothing provides); for checking a config."""
        toolbox = self._toolbox
        toolbox.take(toolbox.resolved())
        return toolbox.tools

    def _tools_changed(self) -> None:
        """A source's tools changed (called on its thread): the actor takes the new tools
        before its next turn."""
        with self._line.lock:
            ref = self._line.ref
            if ref is None:
                return
            try:
                tools, prompt = self._toolbox.refreshed()
            except Exception as exc:  # keep the tools it has; say why
                logger.warning("agent {}: its tools changed but cannot be used: {}",
                               self.name, exc)
                return
        ref.tell(ToolsRefreshed(tools, prompt))

    # -- life cycle --------------------------------------------------------------------------

    def start(self) -> Agent[OutputT]:
        """Start the agent's actor (once), and its tool sources first; returns the agent.
        A source that cannot start is a ``ConfigError`` naming it."""
        with self._line.lock:
            if self._line.ref is not None:
                return self
            sources = self._toolbox.sources
            if sources:
                acquire_all(sources, f"agent {self.name!r}")
                try:
                    self._toolbox.take(self._toolbox.resolved())
                    self._start_run()
                except BaseException:
                    for source in sources:
                        source.release()
                    raise
                self._unwatch = [source.watch(self._tools_changed) for source in sources]
            else:
                self._start_run()
        return self

    def _start_run(self, llm: LLM | None = None) -> None:
        """A run's actor (``_assembly``): with ``llm``, the previous run's model goes on; else
        a described LLM becomes real only now."""
        self._built_llm = llm = llm or self.config.build_llm()
        holds, self._holds_session = self._holds_session, False  # released if it fails
        self._holds_session = start_run(
            config=self.config, llm=llm, toolbox=self._toolbox, line=self._line,
            conversation=self._conversation, unfinished=self._unfinished, session=self.session,
            holds=holds, usage=self._usage, tracing=self.tracing, publisher=self._publisher,
            owner=self)

    def _release_session(self) -> None:
        held, self._holds_session = self._holds_session, False
        release_session(self.session, self.name, held)

    def stop(self, timeout: float = 10) -> None:
        """Stop promptly: cancel in-flight work, stop every actor, join their threads, then
        stop the tool sources it started."""
        line = self._line
        if line.on_own_thread():  # a hook or a tool: it cannot wait for itself, so it only
            ref = line.ref         # asks; the next stop() joins
            if ref is not None:
                ref.stop(block=False)
            return
        line.run_stopped.set()  # acknowledged: no decision taken, no call started from now
        with line.lock:
            ref, line.ref = line.ref, None
            unwatch, self._unwatch = self._unwatch, []
        if ref is None:
            return
        self._conversation.keep_last(ref, timeout)  # kept to be read
        try:
            self._stop_actor(ref, timeout)
        finally:
            self._release_session()
            for stop_watching in unwatch:
                stop_watching()
            for source in self._toolbox.sources:
                source.release()

    def _stop_actor(self, ref: pykka.ActorRef[AgentActor], timeout: float) -> None:
        ref.stop(block=True, timeout=timeout)
        deadline = time.monotonic() + timeout
        for thread in self._line.threads:
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
        line = self._line
        line.run_stopped.set()  # acknowledged: no decision taken, no call started from now
        with line.lock:
            ref, line.ref = line.ref, None
        if ref is None:
            raise not_running(self.name)
        handed: TurnSnapshot = ref.ask(HandOver(), timeout=timeout)  # type: ignore[assignment]
        self._stop_actor(ref, timeout)
        if self.session is not None:
            self.session.stopped(self.name)  # written again by the next actor
        else:
            if rewind:
                handed.messages = list(self._run_start)
            self._run_start = list(handed.messages)
            self._unfinished.snapshot = handed
        with line.lock:
            line.threads[:] = [thread for thread in line.threads if thread.is_alive()]
            self._start_run(self._built_llm)
        if self.session is not None:
            self.abandon_unfinished(abandon)  # the store's unfinished turn ends here

    @property
    def running(self) -> bool:
        """Whether the agent has been started and not stopped."""
        return self._line.ref is not None

    def __enter__(self) -> Agent[OutputT]:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    # -- talking to it -----------------------------------------------------------------------

    def answer(self, text: str) -> OutputT:
        """A turn's answer as the caller gets it: the output type's value for a typed agent
        (its answer travels as JSON text), else the text itself."""
        return self._requests.answer(text)

    def send(self, text: str | Sequence[str | ImageContent], *, sender: str | None = None,
             mail_id: str | None = None, trace_parent: object | None = None
             ) -> Future[OutputT]:
        """Queue a message (text, or a list of text and ``ImageContent``); the future
        completes with the turn's answer, as ``run`` returns it (a value of the output type
        for a typed agent), or its error. ``UnfinishedSessionError`` while the session's
        unfinished turns are unsettled (``resume``). With tracing on, the turn's span
        continues ``trace_parent`` (an OpenTelemetry span context), else the caller's
        current span if it has one."""
        return self._requests.send(text, sender, mail_id, trace_parent)

    def deliver(self, text: str | Sequence[str | ImageContent], *, sender: str | None = None,
                mail_id: str | None = None, trace_parent: object | None = None,
                history: Iterable[HistoryMessage] | None = None) -> Future[str]:
        """``send`` as a team's mail delivers a message: the future of the answer as it
        travels between members (a typed agent's JSON text). ``history``: the conversation
        to go on from (a handoff's), replacing this agent's first."""
        return self._requests.submit(text, sender=sender, mail_id=mail_id,
                                     trace_parent=trace_parent, history=history)[1]

    def run(self, text: str | Sequence[str | ImageContent], timeout: float | None = None, *,
            history: Iterable[HistoryMessage] | None = None) -> OutputT:
        """Send a message and block until its turn completes; return the final answer (a
        value of ``output_type`` when the config has one, else text). ``history`` replaces
        the conversation first (``agent.history`` of any agent, in any format).

        Raises ``AgentTurnError`` if the turn failed (LLM error, max_iterations, ...;
        ``OutputValidationError`` when no answer fitted the output type), ``TimeoutError`` if
        it did not finish in time (the turn goes on).
        """
        return self._requests.run(text, timeout, history)

    async def arun(self, text: str | Sequence[str | ImageContent],
                   timeout: float | None = None, *,
                   history: Iterable[HistoryMessage] | None = None) -> OutputT:
        """``run`` for asyncio hosts: awaits the turn without blocking the event loop."""
        return await self._requests.arun(text, timeout, history)

    def stream(self, text: str, *, history: Iterable[HistoryMessage] | None = None
               ) -> AnswerStream[OutputT]:
        """``with agent.stream(message) as s:`` the turn as it happens: ``s.text()`` (the
        model's text as it arrives, calls' markup excluded), ``s.events()``, ``s.result()``."""
        requests = self._requests
        return AnswerStream(self.name, self.events,
                            lambda: requests.submit(text, history=history), requests.answer)

    def astream(self, text: str, *, history: Iterable[HistoryMessage] | None = None
                ) -> AsyncAnswerStream[OutputT]:
        """``async with agent.astream(message) as s:`` the same for asyncio code."""
        requests = self._requests
        return AsyncAnswerStream(self.name, self.events,
                                 lambda: requests.submit(text, history=history), requests.answer)

    def reset(self) -> None:
        """Start a new conversation: forget the history (after the current turn, if any)."""
        self._requests.reset()

    def approve(self, invocation_id: str) -> None:
        """Let a call that waits for approval run (``UnknownApprovalError`` naming the
        waiting calls if none has that id)."""
        self._requests.decide(ApprovalGranted(agent=self.name, invocation_id=invocation_id))

    def deny(self, invocation_id: str, reason: str = "denied by the user") -> None:
        """Refuse a waiting call; the LLM gets a DENIED result with ``reason``."""
        self._requests.decide(ApprovalDenied(agent=self.name, invocation_id=invocation_id,
                                             reason=reason))

    def stop_run(self) -> None:
        """Acknowledge a stop of the run going on, at once (any thread): from now on every
        ``approve`` or ``deny`` of it is refused (``AgentStoppedError``: "the run was stopped")
        and none of its calls starts (the calls already running go on until ``new_run`` or
        ``stop``, which follow it and cut them; both acknowledge the stop themselves too). A
        served team's Stop does this first."""
        self._line.run_stopped.set()

    def resume(self) -> list[ResumedTurn]:
        """Go on with what the session's last process left unfinished: the turn it was in
        and the messages waiting behind it (empty when nothing was, or it was settled
        already). Subscribe to ``events`` first to see them; each turn's ``reply`` completes
        with its answer. Call it (or ``abandon_unfinished``) before the first ``send``."""
        return self._unfinished.settle(None)

    def abandon_unfinished(self, reason: str) -> None:
        """End what the session's last process left unfinished without going on with it:
        the turn it was in gets INTERRUPTED results for its calls and fails with ``reason``,
        as do the messages waiting behind it; the conversation itself is kept (a restarted
        Ray member, whose senders were already told; a served team's cancelled ask)."""
        self._unfinished.settle(reason)

    @property
    def history(self) -> list[HistoryMessage]:
        """The conversation so far as typed messages: the system prompt, the user's messages,
        each response with its calls, each response's results (with their status). Read
        while the agent runs, or after it stopped (as it was then)."""
        return self._conversation.history

    def history_json(self, indent: int | None = None) -> str:
        """``history`` as JSON text; ``history_from_json`` reads it back (to seed an agent)."""
        return self._conversation.history_json(indent)

    def _seed(self, history: Iterable[HistoryMessage]) -> None:
        """Start the conversation over from ``history`` (a team's hand-over)."""
        self._conversation.seed(history)

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
