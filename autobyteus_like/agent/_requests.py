"""What a caller asks of a running agent, beside sending: a turn's answer (``run``, ``arun``,
typed by the output type) and the decision on a waiting call (``approve``, ``deny``, refused
with ``UnknownApprovalError`` when no call of that id waits, and with ``AgentStoppedError``
("the run was stopped") once a stop of the run was acknowledged: ``stop_run``)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Generic, cast

import pykka

from autobyteus_like.agent._answer_stream import OutputT
from autobyteus_like.agent._member_replies import not_running, on_own_thread, run_stopped
from autobyteus_like.errors import UnknownApprovalError
from autobyteus_like.events import AgentEvent, ApprovalDenied, ApprovalGranted
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.tools._context import CancelFlag
from autobyteus_like.tools._image_content import ImageContent

if TYPE_CHECKING:
    from autobyteus_like.agent._actor import AgentActor
    from autobyteus_like.output._spec import OutputSpec

__all__ = ["AgentRequests"]


class AgentRequests(Generic[OutputT]):
    """``run``, ``arun``, ``approve`` and ``deny`` over an agent's own surface."""

    name: str
    output: OutputSpec | None
    _ref: pykka.ActorRef[AgentActor] | None
    _threads: list[threading.Thread]
    _run_stopped: CancelFlag

    if TYPE_CHECKING:  # the Agent's own
        def _submit(self, text: str | Sequence[str | ImageContent], *,
                    sender: str | None = None, mail_id: str | None = None,
                    trace_parent: object | None = None,
                    history: Iterable[HistoryMessage] | None = None
                    ) -> tuple[int, Future[str]]: ...

        def _tell(self, event: AgentEvent) -> None: ...

    def answer(self, text: str) -> OutputT:
        """A turn's answer as the caller gets it: the output type's value for a typed agent
        (its answer travels as JSON text), else the text itself."""
        return cast(OutputT, text if self.output is None else self.output.value(text))

    def send(self, text: str | Sequence[str | ImageContent], *, sender: str | None = None,
             mail_id: str | None = None, trace_parent: object | None = None
             ) -> Future[OutputT]:
        """Queue a message (text, or a list of text and ``ImageContent``); the future
        completes with the turn's answer, as ``run`` returns it (a value of the output type
        for a typed agent), or its error. ``UnfinishedSessionError`` while the session's
        unfinished turns are unsettled (``resume``). With tracing on, the turn's span
        continues ``trace_parent`` (an OpenTelemetry span context), else the caller's
        current span if it has one."""
        reply = self.deliver(text, sender=sender, mail_id=mail_id, trace_parent=trace_parent)
        if self.output is None:
            return cast("Future[OutputT]", reply)  # the text is the answer
        return typed_reply(reply, self.answer)

    def deliver(self, text: str | Sequence[str | ImageContent], *, sender: str | None = None,
                mail_id: str | None = None, trace_parent: object | None = None,
                history: Iterable[HistoryMessage] | None = None) -> Future[str]:
        """``send`` as a team's mail delivers a message: the future of the answer as it
        travels between members (a typed agent's JSON text). ``history``: the conversation
        to go on from (a handoff's), replacing this agent's first."""
        return self._submit(text, sender=sender, mail_id=mail_id, trace_parent=trace_parent,
                            history=history)[1]

    def run(self, text: str | Sequence[str | ImageContent], timeout: float | None = None, *,
            history: Iterable[HistoryMessage] | None = None) -> OutputT:
        """Send a message and block until its turn completes; return the final answer (a
        value of ``output_type`` when the config has one, else text). ``history`` replaces
        the conversation first (``agent.history`` of any agent, in any format).

        Raises ``AgentTurnError`` if the turn failed (LLM error, max_iterations, ...;
        ``OutputValidationError`` when no answer fitted the output type), ``TimeoutError`` if
        it did not finish in time (the turn goes on).
        """
        if threading.current_thread() in self._threads:  # it would wait for itself
            raise on_own_thread(self.name, "run()")
        try:
            return self.answer(self._submit(text, history=history)[1].result(timeout))
        except FutureTimeout:
            raise TimeoutError(
                f"agent {self.name!r} did not finish the turn within {timeout} s"
            ) from None

    async def arun(self, text: str | Sequence[str | ImageContent],
                   timeout: float | None = None, *,
                   history: Iterable[HistoryMessage] | None = None) -> OutputT:
        """``run`` for asyncio hosts: awaits the turn without blocking the event loop."""
        if threading.current_thread() in self._threads:  # it would wait for itself
            raise on_own_thread(self.name, "arun()")
        reply = self._submit(text, history=history)[1]
        try:
            return self.answer(await asyncio.wait_for(asyncio.wrap_future(reply), timeout))
        except TimeoutError:
            raise TimeoutError(
                f"agent {self.name!r} did not finish the turn within {timeout} s"
            ) from None

    def approve(self, invocation_id: str) -> None:
        """Let a call that waits for approval run (``UnknownApprovalError`` naming the
        waiting calls if none has that id)."""
        self._decide(ApprovalGranted(agent=self.name, invocation_id=invocation_id))

    def deny(self, invocation_id: str, reason: str = "denied by the user") -> None:
        """Refuse a waiting call; the LLM gets a DENIED result with ``reason``."""
        self._decide(ApprovalDenied(agent=self.name, invocation_id=invocation_id,
                                    reason=reason))

    def stop_run(self) -> None:
        """Acknowledge a stop of the run going on, at once (any thread): from now on every
        ``approve`` or ``deny`` of it is refused (``AgentStoppedError``: "the run was stopped")
        and none of its calls starts (the calls already running go on until ``new_run`` or
        ``stop``, which follow it and cut them; both acknowledge the stop themselves too). A
        served team's Stop does this first."""
        self._run_stopped.set()

    def _decide(self, decision: ApprovalGranted | ApprovalDenied) -> None:
        """Check and decide in one step on the actor (two deciders: one wins, the other is
        told no such call waits any more). After an acknowledged stop: "the run was stopped"
        (checked here and again on the actor, in the step that would decide)."""
        if self._run_stopped.is_set():
            raise run_stopped(self.name, decision.invocation_id)
        ref = self._ref
        if ref is None:
            raise not_running(self.name)
        if threading.current_thread() in self._threads:  # it would wait for itself
            raise on_own_thread(self.name, "approve() or deny()")
        try:
            waiting: list[str] | None = ref.proxy().decide(decision).get(timeout=10)
        except pykka.ActorDeadError:
            raise not_running(self.name) from None
        if waiting is not None:
            raise UnknownApprovalError(self.name, decision.invocation_id, waiting)


def typed_reply(reply: Future[str], typed: Callable[[str], OutputT]) -> Future[OutputT]:
    """A future of ``typed(answer)`` once ``reply`` has the answer's text (its error, or the
    error of making the value, as it raises)."""
    result: Future[OutputT] = Future()

    def done(text: Future[str]) -> None:
        try:
            value = typed(text.result())
        except BaseException as exc:  # the turn's error, or the answer did not fit the type
            result.set_exception(exc)
        else:
            result.set_result(value)

    reply.add_done_callback(done)
    return result
