"""AgentActor: the pykka actor that owns one agent's state and handles its events one at a time.

Every event is handed to the handler registered for its type (the turn machine, which calls
the hooks at each step: a session writer stores it then), then published to subscribers. A
handler returns effects (``handlers/_effects.py``), which ``_carry_out`` carries out as they
come, the one place that does: events it emits are processed in FIFO order before the next
message; a ``StreamLLM`` and a ``RunTool`` go to the LLM worker and the tool runner
(``turn_services``), which answer with events, so this actor is always free for approvals,
messages and stop; a ``Reply`` answers its caller once the message's events are published; an
``EndRun`` ends the run. A mailbox message may carry several events (the LLM's last piece of text
and the end of its response), handled in order as if they had come one by one.

A verdict of the hooks (a usage limit) ends the run here: the work stops (what the hooks
admitted and no thread took yet is released: ``not_made``), the turn fails, and every later
message is refused. A hook that raises (a store that cannot be written) fails the
turn at once: no tool starts after it, and the event whose handling failed is not published.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pykka
from loguru import logger

from autobyteus_like.agent._actor_messages import (
    ConversationQuery,
    HandOver,
    ResumeTurns,
    ToolsRefreshed,
)
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.agent._deadlines import Deadlines
from autobyteus_like.agent._fast_inbox import DEADLINES_DUE, DeadlineInbox, FastInboxActor
from autobyteus_like.agent._member_replies import fail_every, run_stopped
from autobyteus_like.agent._publication import Publication
from autobyteus_like.agent._quiet_wakeup import wake_quietly
from autobyteus_like.agent._session_log import SessionLog, SessionLogHooks
from autobyteus_like.agent._side_requests import OnActor, SideRequests
from autobyteus_like.agent._subscription import EventPublisher
from autobyteus_like.agent._turn_checks import turn_checks
from autobyteus_like.agent._turn_services import TurnServices
from autobyteus_like.errors import (
    AgentStoppedError,
    AgentTurnError,
    StoreError,
    StrayEventError,
    UsageLimitExceededError,
)
from autobyteus_like.events import (
    AgentEvent,
    AgentStatus,
    ApprovalDenied,
    ApprovalGranted,
    AssistantTextDelta,
    LLMResponseCompleted,
    UserMessageReceived,
)
from autobyteus_like.formats import ToolFormat
from autobyteus_like.handlers._context import AgentContext
from autobyteus_like.handlers._effects import Effect, EndRun, Reply, RunTool, StreamLLM
from autobyteus_like.handlers._environment import TurnEnvironment
from autobyteus_like.handlers._registry import HandlerRegistry
from autobyteus_like.handlers._run_end import end_run, refuse
from autobyteus_like.handlers._scheduling import SlotState
from autobyteus_like.handlers._turn_steps import complete_turn, not_made, run_over
from autobyteus_like.hooks import AgentHooks, compose
from autobyteus_like.hooks._culprit import failing_hook, hook_failure
from autobyteus_like.llm._base import LLM
from autobyteus_like.tools._context import CancelFlag
from autobyteus_like.tools._registry import ToolRegistry
from autobyteus_like.usage._limit_event import UsageLimitReached

if TYPE_CHECKING:
    from autobyteus_like.store._restore import TurnSnapshot
    from autobyteus_like.tools._context import WorkingSetView

__all__ = ["AgentActor", "AgentStoppedError", "ResumeTurns", "ToolsRefreshed"]


class AgentActor(FastInboxActor):
    """One agent. Talk to it only by ``tell``-ing events; it never waits on another actor.
    Its mailbox keeps its tool calls' deadlines: it fires them itself, between messages."""

    @staticmethod
    def _create_actor_inbox() -> DeadlineInbox:
        return DeadlineInbox()

    def __init__(
        self,
        config: AgentConfig,
        tools: ToolRegistry,
        tool_format: ToolFormat,
        system_prompt: str,
        handlers: HandlerRegistry,
        publisher: EventPublisher,
        threads: list[threading.Thread],
        hooks: tuple[AgentHooks, ...] = (),
        snapshot: TurnSnapshot | None = None,
        working_set: WorkingSetView | None = None,
        run_stopped: CancelFlag | None = None,
        session: str | None = None,
    ) -> None:
        super().__init__()
        self._handlers = handlers.table()
        self._publisher = publisher
        self._threads = threads
        self._publication = Publication(tools)
        self._deadlines = Deadlines(config.name)
        inbox = self.actor_inbox
        assert isinstance(inbox, DeadlineInbox)
        inbox.deadlines = self._deadlines
        self._services = TurnServices(config, self._post, threads, self._publication,
                                      self._deadlines)
        self._outbox: deque[AgentEvent] = deque()
        """Events to handle and publish, in order, before the next mailbox message."""
        self._afterwards: list[Reply] = []
        """Answers given once every event of the current message is published."""
        self._ended: UsageLimitExceededError | None = None
        self._handed_over = False
        """Stopped for a new run: the subscriptions stay open for the next actor."""
        self._taken = frozenset(self._handlers)
        """Event types a handler takes whether or not anyone subscribes."""
        services = self._services
        log = (SessionLogHooks(SessionLog(config.session_log, config.name,
                                          config.session_log_format), self._report)
               if config.session_log is not None else None)
        env = TurnEnvironment(
            config, tools, tool_format, system_prompt,
            hooks=compose([*hooks, log, *config.hooks]),
            turn_checks=turn_checks(config),  # retry budgets, typed output
            # a tool's own requests, counted like the agent's
            side_llm=SideRequests(config.name, config.llm, self.actor_ref, services.cancel)
            if isinstance(config.llm, LLM) else None,
            working_set=working_set, session=session)  # each call's key names the session
        self.ctx = AgentContext(env)
        services.ctx = self.ctx
        if run_stopped is not None:  # set by the Agent when a stop is acknowledged
            self.ctx.run_stopped = run_stopped
        publisher.watch(self._listened)  # sets ctx.wants now and whenever subscribers change
        services.use_hooks(env.hooks)  # the wrapping hooks, around requests and calls
        services.runner.unstarted = self._timed_out_unstarted
        try:
            self.ctx.env.hooks.run_started(self._limit_crossed)  # a teammate may end the run
        except Exception as exc:  # nothing has started to fail: said, and the agent goes on
            self._report(f"the start of the run could not be recorded ({hook_failure(exc)})",
                         type(exc).__name__)
        if snapshot is not None:
            from autobyteus_like.handlers._turn_resume import restore_context

            restore_context(self.ctx, snapshot)

    def _listened(self, listened: bool) -> None:
        """Who takes which events changed (any thread): with a subscriber every event is
        wanted, else only those a handler takes. Decided here, once per change, so asking
        costs the turn one C call (``frozenset.__contains__``, or ``bool`` of a type: True)."""
        self.ctx.wants = bool if listened else self._taken.__contains__

    def on_start(self) -> None:
        wake_quietly()
        self._threads.append(threading.current_thread())

    def _post(self, event: AgentEvent | tuple[AgentEvent, ...]) -> None:
        """Send an event (or events, in order) to this actor from any thread (ignored once it
        has stopped)."""
        try:
            self.actor_ref.tell(event)
        except pykka.ActorDeadError:
            logger.debug("agent {} stopped; dropping {!r}", self.ctx.name, event)

    # -- the mailbox ---------------------------------------------------------------------------

    def _handle_receive(self, message: Any) -> Any:
        """Events (nearly every message) go straight to ``on_receive``; pykka's own messages
        (stop, proxy calls: named tuples, hence ``type(...) is tuple``) take pykka's way."""
        if type(message) is tuple or isinstance(message, AgentEvent):
            return self.on_receive(message)
        return super()._handle_receive(message)

    def on_receive(self, message: object) -> object:
        outbox = self._outbox
        if isinstance(message, AgentEvent):
            outbox.append(message)
        elif type(message) is tuple and _only_events(message):
            outbox.extend(message)
        elif message is DEADLINES_DUE:  # the mailbox waited until a tool call's deadline
            self._deadlines.fire_due()  # their TIMEOUT results come as the next messages
            return None
        elif isinstance(message, ConversationQuery):
            return self.ctx.env.system_prompt, tuple(self.ctx.messages)
        elif isinstance(message, HandOver):
            from autobyteus_like.handlers._turn_resume import conversation_snapshot

            self._handed_over = True
            return conversation_snapshot(self.ctx)
        elif isinstance(message, ToolsRefreshed):
            self._services.refreshed = message
            return None
        elif isinstance(message, ResumeTurns):
            self._resume(message)
        elif isinstance(message, OnActor):  # a side request's hooks (agent/_side_requests)
            return message.run(self.ctx.env.hooks, self.ctx.turn)
        else:
            logger.warning("agent {} ignores a non-event message {!r}", self.ctx.name, message)
            return None
        self._drain()
        return None

    def _resume(self, message: ResumeTurns) -> None:
        """The one way to go on with (or give up) the stored turns."""
        from autobyteus_like.handlers._turn_resume import resume_turns

        current = message.snapshot.current
        try:
            self._carry_out(resume_turns(self.ctx, message.snapshot, message.replies,
                                         message.abandon))
        except Exception as exc:  # a bug must not leave the turn hanging
            reply = message.replies[0] if message.replies and current is not None else None
            self._handler_failed(UserMessageReceived(
                agent=self.ctx.name, text=current.text if current else "",
                turn_id=current.turn_id if current else 0, reply=reply), exc)

    def _drain(self) -> None:
        """Handle and publish the events waiting in the outbox, in order; then hand the work
        they queued to its threads."""
        ctx = self.ctx
        outbox = self._outbox
        handlers = self._handlers
        publisher = self._publisher
        held_back: AgentEvent | None = None
        while outbox:
            event = outbox.popleft()
            if event is held_back:  # a response's end, handled: shown after all its text
                held_back = None
                if publisher.subscribers:
                    publisher.publish(self._publication.public(event))
                continue
            if self._ended is not None:  # the run is over: nothing more is handled
                self._carry_out(refuse(event, self._ended))
            elif type(event) is UsageLimitReached:
                # a teammate's (or this agent's) limit: the verdict ends the run
                if (over := run_over(ctx)) is not None:
                    self._end_run(over.error)
            elif (handler := handlers.get(type(event))) is not None:
                # handled first, so a session writer has stored it when it is shown
                try:
                    effects = handler.handle(event, ctx)
                    if effects is not None:
                        self._carry_out(effects)
                except StrayEventError:  # belongs to no turn: nothing stored it, nobody sees it
                    continue
                except StoreError as exc:  # not stored: neither shown nor gone on with
                    self._handler_failed(event, exc)
                    continue
                except Exception as exc:  # a handler bug ends the turn, never the agent
                    self._handler_failed(event, exc)
            if type(event) is LLMResponseCompleted and _text_first(outbox, event):
                held_back = event  # the text its handling flushed is shown before it
                continue
            if publisher.subscribers:
                publisher.publish(self._publication.public(event))
        services = self._services
        if services.handoffs:
            services.hand_over()
        if self._afterwards:
            afterwards, self._afterwards = self._afterwards, []
            for reply in afterwards:
                reply.give()

    def _carry_out(self, effects: Iterable[Effect]) -> None:
        """Do what a step asks, in order, each as it comes (a step that goes on after one
        sees it done): the one place the turn machine's effects are carried out."""
        outbox = self._outbox
        services = self._services
        for effect in effects:
            if isinstance(effect, AgentEvent):
                outbox.append(effect)  # handled and published after the current event
            elif isinstance(effect, RunTool):
                services.run_tool(effect)  # the tool runner runs its body
            elif isinstance(effect, StreamLLM):
                services.stream_llm(effect)  # the LLM worker streams it
            elif isinstance(effect, Reply):
                self._afterwards.append(effect)  # once this message's events are out
            elif isinstance(effect, EndRun):
                self._end_run(effect.error)
            else:
                raise TypeError(f"a handler asked for {effect!r}, which is not an effect "
                                "(an event, StreamLLM, RunTool, Reply or EndRun)")

    def _report(self, message: str, error_type: str) -> None:
        """Announce a problem without stopping the agent (after the current event)."""
        self._outbox.append(self.ctx.problem(message, error_type))

    def _timed_out_unstarted(self) -> None:
        """A call timed out before its body began (on the agent's thread): never made."""
        self._carry_out(not_made(self.ctx, ("tool_calls",)))

    # -- ending a run, failing a turn ------------------------------------------------------

    def _limit_crossed(self, error: UsageLimitExceededError) -> None:
        """A limit of the run was crossed, here or by a teammate (any thread): end it here."""
        self._post(UsageLimitReached(agent=self.ctx.name, limit=error.limit,
                                     message=str(error)))

    def _end_run(self, error: UsageLimitExceededError) -> None:
        """The run is over (a verdict): stop the LLM request and the tools, fail the turn and
        every message (now and later)."""
        if self._ended is None:
            self._ended = error
            self._carry_out(not_made(self.ctx, self._services.stop_work()))
            self._carry_out(end_run(self.ctx, error))

    def _handler_failed(self, event: AgentEvent, exc: Exception) -> None:
        logger.opt(exception=exc).error("agent {}: handler for {} failed", self.ctx.name,
                                        type(event).__name__)
        # the turn is over: nothing queued for it starts (nor counts)
        self._carry_out(not_made(self.ctx, self._services.drop_handoffs()))
        hook = failing_hook(exc)  # a hook's own failure names the hook and its point
        message = (f"the handler for {type(event).__name__} raised {type(exc).__name__}: {exc}"
                   if hook is None else f"the hook {hook} raised {type(exc).__name__}: {exc} "
                   f"(handling {type(event).__name__})")
        if self.ctx.turn is not None:
            self._carry_out(complete_turn(self.ctx, "", message))
        else:
            self._report(message, type(exc).__name__)
            reply = event.reply if isinstance(event, UserMessageReceived) else None
            if reply is not None and not reply.done():
                self._afterwards.append(
                    Reply(reply, error=AgentTurnError(self.ctx.name, message)))

    def waiting_approvals(self) -> list[str]:
        """The ids of the calls that wait for a person (asked by ``Agent.approve``)."""
        turn = self.ctx.turn
        return [] if turn is None else [slot.invocation.id for slot in turn.schedule
                                        if slot.state is SlotState.AWAITING_APPROVAL]

    def decide(self, decision: ApprovalGranted | ApprovalDenied) -> list[str] | None:
        """Decide a waiting call now (None), or the ids of the calls that wait when none has
        that id: checked and decided in one mailbox message, so of two decisions on one call
        the second finds it decided (``Agent.approve``). Once a stop of the run is
        acknowledged (``run_stopped``), every decision is refused: "the run was stopped"."""
        if self.ctx.run_stopped.is_set():
            raise run_stopped(self.ctx.name, decision.invocation_id)
        waiting = self.waiting_approvals()
        if decision.invocation_id not in waiting:
            return waiting
        self._outbox.append(decision)
        self._drain()
        return None

    def on_stop(self) -> None:
        self._publisher.unwatch(self._listened)
        self._carry_out(not_made(self.ctx, self._services.stop()))
        pending = [m.reply for m in self.ctx.waiting if isinstance(m, UserMessageReceived)]
        if self.ctx.turn is not None:
            pending.append(self.ctx.turn.reply)
        fail_every(pending, self.ctx.name)
        self._outbox.extend(self.ctx.set_status(AgentStatus.STOPPED))
        while self._outbox:
            self._publisher.publish(self._outbox.popleft())
        try:
            self.ctx.env.hooks.close()
        except Exception as exc:
            logger.warning("agent {}: a hook failed to close: {}", self.ctx.name,
                           hook_failure(exc))
        for reply in self._afterwards:
            reply.give()
        if not self._handed_over:
            self._publisher.close()


def _only_events(message: tuple[object, ...]) -> bool:
    """Whether every item of ``message`` is an event (a loop: no generator per message)."""
    for item in message:  # noqa: SIM110 (all() of a generator: a frame per item)
        if not isinstance(item, AgentEvent):
            return False
    return True


def _text_first(outbox: deque[AgentEvent], completed: AgentEvent) -> bool:
    """Put every text delta waiting in ``outbox`` (the response's last piece, and what its
    parser held back until the end) before ``completed``, the rest after it; whether any was
    there. A subscriber then has the whole of a response's text when it sees the response end."""
    texts = [event for event in outbox if type(event) is AssistantTextDelta]
    if not texts:
        return False
    rest = [event for event in outbox if type(event) is not AssistantTextDelta]
    outbox.clear()
    outbox.extend(texts)
    outbox.append(completed)
    outbox.extend(rest)
    return True
