"""SessionWriter: one agent's side of a session, written as its turn goes (its hooks).

Each point a resume depends on is one transaction, committed before the step that
depends on it: a message received; a turn begun (its user message in the history); a response
complete (the assistant message and every call of it, in one write, before any of those calls
is asked about or started); a call waiting for a person, approved or about to run; a result
(before anything holding it goes to the LLM); the turn's end. It uses only the store's public
methods and records; a write the store refuses (``StoreError``, a lost lease) raises, and the
turn machine fails the turn at once.

After one failed write the writer writes nothing more (each later point raises at once): the
session stays as it was at the failure, resumable by another process, with the turn open and
its calls pending or running (a resume makes the running ones INTERRUPTED). Recording the
turn's end after the failure would leave a session that reads "done" with a call that never
got its result.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from autobyteus_like.errors import StoreError
from autobyteus_like.history._handover import handoff_mail_id, handoff_note
from autobyteus_like.hooks._protocol import AgentHooks, CallView, TurnView
from autobyteus_like.store._records import (
    CallRecord,
    CallState,
    MailRecord,
    MailState,
    TurnRecord,
)
from autobyteus_like.tools._handoff import handoff_receiver
from autobyteus_like.tools._invocation import ErrorCode, ToolResult

if TYPE_CHECKING:
    from autobyteus_like.events import ConversationReset, UserMessageReceived
    from autobyteus_like.llm._messages import Message
    from autobyteus_like.store._store import SessionStore

__all__ = ["SessionWriter", "message_data", "result_state"]


def message_data(message: Message, request_no: int | None = None) -> dict[str, Any]:
    """A history message as the store keeps it."""
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["tool_calls"] = [call.model_dump(mode="json") for call in message.tool_calls]
    if message.tool_results:
        data["tool_results"] = [res.model_dump(mode="json") for res in message.tool_results]
    if message.carried:
        data["carried"] = list(message.carried)
    if message.images:
        data["images"] = [image.model_dump(mode="json") for image in message.images]
    if request_no is not None:
        data["request_no"] = request_no
    return data


def result_state(result: ToolResult) -> CallState:
    """The final state a result stands for."""
    if result.status == "success":
        return CallState.SUCCEEDED
    if result.error is not None and result.error.code is ErrorCode.DENIED:
        return CallState.DENIED
    if result.error is not None and result.error.code is ErrorCode.INTERRUPTED:
        return CallState.INTERRUPTED
    return CallState.FAILED


class SessionWriter(AgentHooks):
    """Writes one agent's history, turns, calls and mail to its session."""

    def __init__(self, store: SessionStore, session: str, agent: str, persisted: int = 0
                 ) -> None:
        self.store = store
        self.session = session
        self.agent = agent
        self.persisted = persisted
        """How many messages of the current conversation are in the store."""
        self.failed: BaseException | None = None
        """The write that failed (then nothing more is written)."""

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One point's writes; the first failure stops every later one."""
        if self.failed is not None:
            raise StoreError(f"session {self.session!r}: nothing more is written for agent "
                             f"{self.agent!r} after a failed write ({self.failed}); resume "
                             "the session to go on")
        try:
            yield
        except BaseException as exc:
            self.failed = exc
            raise

    def message_received(self, message: UserMessageReceived) -> None:
        with self._writing(), self.store.transaction():
            self.store.open_turn(self.session, TurnRecord(
                agent=self.agent, turn_id=message.turn_id, text=message.text,
                sender=message.sender, mail_id=message.mail_id, state="queued"))
            if message.mail_id is not None:
                self.store.set_mail(self.session, message.mail_id, MailState.DELIVERED)

    def reset_received(self, reset: ConversationReset, waits: bool) -> None:
        with self._writing():
            if waits:  # it waits for the current turn: a crash must not lose it
                self.store.open_turn(self.session, TurnRecord(
                    agent=self.agent, turn_id=reset.turn_id, text="", sender=None, mail_id=None,
                    state="queued", reset=True))

    def conversation_reset(self, reset: ConversationReset) -> None:
        with self._writing():
            with self.store.transaction():
                self.store.reset_history(self.session, self.agent)
                self.store.close_turn(self.session, self.agent, reset.turn_id, answer="",
                                      error=None)
            self.persisted = 0

    def turn_started(self, turn: TurnView, messages: Sequence[Message]) -> None:
        with self._writing(), self.store.transaction():
            self.store.begin_turn(self.session, self.agent, turn.turn_id)
            self._append(messages)

    def request_sent(self, turn: TurnView, messages: Sequence[Message]) -> None:
        """The results this request carries are stored before it goes."""
        with self._writing():
            if len(messages) > self.persisted:
                with self.store.transaction():
                    self._append(messages)

    def response_completed(self, turn: TurnView, messages: Sequence[Message]) -> None:
        with self._writing(), self.store.transaction():
            self._append(messages, turn.request_no)
            self.store.record_calls(self.session, [
                self._record(turn, call, *self._standing(turn, call)) for call in turn.calls()
            ])

    def admit_early(self, turn: TurnView, call: CallView) -> bool:
        """A response and all its calls are stored (``response_completed``) before any of
        them is checked or runs: a call waits for its whole response."""
        return turn.response_done

    def call_waiting(self, turn: TurnView, call: CallView) -> None:
        with self._writing():
            self._set(turn, call, CallState.WAITING_APPROVAL)

    def call_approved(self, turn: TurnView, call: CallView) -> None:
        with self._writing():
            self._set(turn, call, CallState.APPROVED)

    def call_running(self, turn: TurnView, call: CallView) -> None:
        with self._writing():
            self._set(turn, call, CallState.RUNNING)

    def call_finished(self, turn: TurnView, call: CallView) -> None:
        with self._writing():
            if not turn.response_done:  # stored with the response when it completes
                return
            assert call.result is not None
            receiver = handoff_receiver(call.tool)
            if receiver is None or call.result.error is not None:
                self._set(turn, call, result_state(call.result), call.result)
                return
            with self.store.transaction():  # a handoff: recorded with its receiver, or not
                self._set(turn, call, result_state(call.result), call.result)
                self._hand_over(call, receiver)

    def turn_ended(self, turn: TurnView, messages: Sequence[Message], answer: str,
                   error: str | None) -> None:
        with self._writing(), self.store.transaction():
            self._append(messages)
            self.store.close_turn(self.session, self.agent, turn.turn_id, answer=answer,
                                  error=error)
            if turn.mail_id is not None:
                self.store.set_mail(
                    self.session, turn.mail_id,
                    MailState.ANSWERED if error is None else MailState.FAILED,
                    answer=answer if error is None else None, error=error)

    # -- the writes --------------------------------------------------------------------------

    def _append(self, messages: Sequence[Message], request_no: int | None = None) -> None:
        new = messages[self.persisted:]
        if new:
            self.store.append_messages(self.session, self.agent, [
                message_data(message, request_no if message.role == "assistant" else None)
                for message in new])
            self.persisted = len(messages)

    @staticmethod
    def _standing(turn: TurnView, call: CallView) -> tuple[CallState, ToolResult | None]:
        """Where a call of a response just completed stands."""
        result = call.result or turn.failed.get(call.invocation.id)
        if result is not None:
            return result_state(result), result
        if call.awaiting_approval:
            return CallState.WAITING_APPROVAL, None
        return CallState.PARSED, None

    def _record(self, turn: TurnView, call: CallView, state: CallState,
                result: ToolResult | None = None) -> CallRecord:
        invocation = call.invocation
        return CallRecord(
            agent=self.agent, invocation_id=invocation.id, turn_id=turn.turn_id,
            request_no=turn.request_no, position=call.position, name=invocation.name,
            arguments=invocation.arguments, why=invocation.why, state=state,
            result=None if result is None else result.model_dump(mode="json"))

    def _hand_over(self, call: CallView, receiver: str) -> None:
        """The receiver holds the conversation now, and the message that gives it to it is
        stored (delivered once, by the team or on resume)."""
        invocation = call.invocation
        seq = max((mail.seq for mail in self.store.mail(self.session)), default=0) + 1
        self.store.set_holder(self.session, receiver)
        self.store.queue_mail(self.session, MailRecord(
            mail_id=handoff_mail_id(self.agent, invocation.id), seq=seq, sender=self.agent,
            recipient=receiver, content=handoff_note(self.agent,
                                                     str(invocation.arguments.get("reason", ""))),
            state=MailState.QUEUED))

    def _set(self, turn: TurnView, call: CallView, state: CallState,
             result: ToolResult | None = None) -> None:
        self.store.save_call(self.session, self._record(turn, call, state, result))
