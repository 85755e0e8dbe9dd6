"""What a caller asks of a running agent: a message (``submit``, after the session's unfinished
turns are settled and the history given, if any, is seeded), a turn's answer (``run``,
``arun``, typed by the output type) and the decision on a waiting call (``decide``, refused
with ``UnknownApprovalError`` when no call of that id waits, and with ``AgentStoppedError``
("the run was stopped") once a stop of the run was acknowledged: ``stop_run``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Generic, cast

import pykka

from autobyteus_like._frozen_values import builder
from autobyteus_like.agent._answer_stream import OutputT
from autobyteus_like.agent._member_replies import not_running, run_stopped
from autobyteus_like.agent._message_parts import message_parts
from autobyteus_like.errors import UnknownApprovalError
from autobyteus_like.events import (
    ApprovalDenied,
    ApprovalGranted,
    ConversationReset,
    UserMessageReceived,
)
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.tools._image_content import ImageContent
from autobyteus_like.tracing._settings import current_parent

if TYPE_CHECKING:
    from autobyteus_like.agent._actor_line import ActorLine
    from autobyteus_like.agent._conversation import Conversation
    from autobyteus_like.agent._resume import UnfinishedTurns
    from autobyteus_like.output._spec import OutputSpec

__all__ = ["Requests", "typed_reply"]

_user_message = builder(UserMessageReceived)


class Requests(Generic[OutputT]):
    """Messages, answers and decisions over an agent's actor line."""

    __slots__ = ("conversation", "line", "output", "unfinished")

    def __init__(self, line: ActorLine, output: OutputSpec | None, conversation: Conversation,
                 unfinished: UnfinishedTurns) -> None:
        self.line, self.output = line, output
        self.conversation, self.unfinished = conversation, unfinished

    def answer(self, text: str) -> OutputT:
        """A turn's answer as the caller gets it: the output type's value for a typed agent
        (its answer travels as JSON text), else the text itself."""
        return cast(OutputT, text if self.output is None else self.output.value(text))

    def submit(self, text: str | Sequence[str | ImageContent], *, sender: str | None = None,
               mail_id: str | None = None, trace_parent: object | None = None,
               history: Iterable[HistoryMessage] | None = None) -> tuple[int, Future[str]]:
        """Queue a message (after seeding ``history``, when given); its turn id and reply.
        The answer of a typed agent is its JSON text."""
        self.unfinished.require_settled()
        text, images = message_parts(text)
        if history is not None:
            self.conversation.seed(history)
        line = self.line
        if trace_parent is None and line.traced:
            trace_parent = current_parent()
        reply: Future[str] = Future()
        turn_id = line.next_turn()
        line.tell(_user_message(agent=line.name, text=text, turn_id=turn_id, sender=sender,
                                reply=reply, mail_id=mail_id, trace_parent=trace_parent,
                                images=images))
        return turn_id, reply

    def reset(self) -> None:
        """Start a new conversation after the current turn, if any."""
        self.unfinished.require_settled()
        line = self.line
        line.tell(ConversationReset(agent=line.name, turn_id=line.next_turn()))

    def send(self, text: str | Sequence[str | ImageContent], sender: str | None,
             mail_id: str | None, trace_parent: object | None) -> Future[OutputT]:
        """The future of the turn's answer, as ``run`` returns it."""
        reply = self.submit(text, sender=sender, mail_id=mail_id, trace_parent=trace_parent)[1]
        if self.output is None:
            return cast("Future[OutputT]", reply)  # the text is the answer
        return typed_reply(reply, self.answer)

    def run(self, text: str | Sequence[str | ImageContent], timeout: float | None,
            history: Iterable[HistoryMessage] | None) -> OutputT:
        """Send and wait for the turn's answer (``TimeoutError`` after ``timeout``)."""
        self.line.refuse_own_thread("run()")  # it would wait for itself
        try:
            return self.answer(self.submit(text, history=history)[1].result(timeout))
        except FutureTimeout:
            raise self._late(timeout) from None

    async def arun(self, text: str | Sequence[str | ImageContent], timeout: float | None,
                   history: Iterable[HistoryMessage] | None) -> OutputT:
        """``run`` without blocking the event loop."""
        self.line.refuse_own_thread("arun()")  # it would wait for itself
        reply = self.submit(text, history=history)[1]
        try:
            return self.answer(await asyncio.wait_for(asyncio.wrap_future(reply), timeout))
        except TimeoutError:
            raise self._late(timeout) from None

    def _late(self, timeout: float | None) -> TimeoutError:
        return TimeoutError(f"agent {self.line.name!r} did not finish the turn within "
                            f"{timeout} s")

    def decide(self, decision: ApprovalGranted | ApprovalDenied) -> None:
        """Check and decide in one step on the actor (two deciders: one wins, the other is
        told no such call waits any more). After an acknowledged stop: "the run was stopped"
        (checked here and again on the actor, in the step that would decide)."""
        line = self.line
        if line.run_stopped.is_set():
            raise run_stopped(line.name, decision.invocation_id)
        ref = line.live()
        line.refuse_own_thread("approve() or deny()")  # it would wait for itself
        try:
            waiting: list[str] | None = ref.proxy().decide(decision).get(timeout=10)
        except pykka.ActorDeadError:
            raise not_running(line.name) from None
        if waiting is not None:
            raise UnknownApprovalError(line.name, decision.invocation_id, waiting)


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
