"""MailRoom: a team's mail, shared by every runtime. It delivers messages to members (storing
each first when the team has a session), counts the messages in flight, and says when the team
is quiet.

Delivering a message adds one to the count; the end of the turn it started takes it away (its
reply future's callback). ``send_message_to`` delivers before its own turn can end, so the count
only reaches zero when the whole team is quiet; then ``TeamQuiescent`` is published with the
coordinator's answer. A failed turn tells the member that wrote the message, once (a notice that
fails is not answered by another).

A turn that ends handing the conversation over (its answer a ``HandedOver``) gives it to the
receiver (``hand_over``): from then on the receiver holds the conversation (``holder``) and
its answer is the team's. So a user's message (``send`` with no sender) resolves with the
answer of whoever holds the conversation after it: the receiver's first answer when the
member it went to handed it over (and on, handoff after handoff), never "Transferred to ...".
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Protocol

from autobyteus_like.agent._subscription import EventPublisher
from autobyteus_like.errors import (
    AgentStoppedError,
    AgentTurnError,
    ErrorCode,
    StoreError,
    ToolFailure,
    UsageLimitExceededError,
)
from autobyteus_like.events import ConversationHandedOver
from autobyteus_like.history._handover import (
    HandedOver,
    handed_history,
    handoff_mail_id,
    handoff_note,
)
from autobyteus_like.mail._events import MessageDelivered, TeamQuiescent
from autobyteus_like.mail._messaging import check_recipient

if TYPE_CHECKING:
    from collections.abc import Sequence

    from autobyteus_like.history._messages import HistoryMessage
    from autobyteus_like.store._session import Session

__all__ = ["MailRoom", "Mailbox"]

NOTICE = "Your message could not be handled by "
"""How a notice of a failed turn begins."""


class Mailbox(Protocol):
    """A member as the mail room sees it: something a message can be sent to."""

    def deliver(self, text: str, *, sender: str | None = None, mail_id: str | None = None,
                trace_parent: object | None = None,
                history: Sequence[HistoryMessage] | None = None) -> Future[str]: ...


class MailRoom:
    """The mail of one team named ``team``, whose answer is ``coordinator``'s. ``members`` is
    filled by the team once its members are built. ``before_send`` runs before each delivery
    (the team resumes a session there); ``parent_of(sender, call_id)`` is the span a message
    continues; ``queue_mail`` stores a message before it is delivered and returns its id (None
    without a session)."""

    def __init__(self, team: str, coordinator: str, publisher: EventPublisher, *,
                 session: Session | None = None,
                 before_send: Callable[[], None] = lambda: None,
                 parent_of: Callable[[str, str | None], object | None] = lambda s, c: None) -> None:
        self.name = team
        self.coordinator = coordinator
        self.members: Mapping[str, Mailbox] = {}
        self.session = session
        self._publisher = publisher
        self._before_send = before_send
        self._parent_of = parent_of
        self._lock = threading.Condition()
        self._in_flight = 0
        self._stopping = False
        self._stopped_busy = False  # stopped while a message was still in flight
        self._answers: dict[str, str] = {}
        self._errors: dict[str, BaseException] = {}
        self._followers: dict[Future[str], Future[str]] = {}
        """A member's reply -> the user's future that follows the conversation through it."""
        self._mail_seq = 0
        self.holder = coordinator
        """Who holds the conversation: the coordinator until a handoff gives it another."""
        self.run_holder = coordinator
        """Who held it as the current run began (a rewound run gives it back)."""
        self.max_handoffs = 10
        self.handed_path: list[str] = []
        """The members the conversation was handed to since the user's message."""
        self.handoff_history: Mapping[str, str] = {}
        """Per member, what of a conversation handed to it it is given (``handed_history``)."""

    # -- delivery ----------------------------------------------------------------------------

    def deliver(self, sender: str, recipient: str, content: str, call_id: str = "") -> str:
        """``send_message_to`` for ``sender`` (in its call ``call_id``): real delivery, or a
        failure saying why not. With a session, the message of one call is stored and
        delivered once, however often the call runs (it runs again when a resume finds it was
        running); with tracing, that call's span is the parent of the receiver's turn."""
        check_recipient(sender, recipient, self.members)
        session = self.session
        mail_id = f"{sender}/{call_id}" if call_id and session is not None else None
        if mail_id is not None and session is not None and session.has_mail(mail_id):
            return f"delivered to {recipient}"  # stored before: delivered, or to be on resume
        try:
            self.send(recipient, content, sender, new_mail_id=mail_id,
                      parent=self._parent_of(sender, call_id or None))
        except AgentStoppedError as exc:
            raise ToolFailure(ErrorCode.NOT_AVAILABLE, f"{recipient} is not running: {exc}",
                              recoverable=False) from exc
        return f"delivered to {recipient}"

    def send(
        self, recipient: str, content: str, sender: str | None, *, error_reply: bool = False,
        mail_id: str | None = None, new_mail_id: str | None = None,
        parent: object | None = None, history: Sequence[HistoryMessage] | None = None,
        follow: Future[str] | None = None,
    ) -> Future[str]:
        """Deliver a message: ``mail_id`` one already stored, else a new one (stored first,
        as ``new_mail_id`` when given); ``history``: a handed-over conversation. Returns the
        recipient's reply; for a user's new message (no ``sender``) a future that follows the
        conversation instead: it resolves with the recipient's answer, or when its turn hands
        the conversation over, with the receiver's (``follow``: the future a hand-over passes
        on), and fails as the turn or the hand-over failed."""
        users: Future[str] | None = None
        if follow is None and sender is None and mail_id is None:  # the user's message
            follow = users = Future()
        self._before_send()
        if mail_id is None:  # stored before it is delivered
            mail_id = self._queue(recipient, content, sender, new_mail_id)
        with self._lock:
            self._in_flight += 1
        try:
            if history is None:
                reply = self.members[recipient].deliver(content, sender=sender,
                                                        mail_id=mail_id, trace_parent=parent)
            else:
                reply = self.members[recipient].deliver(content, sender=sender,
                                                        mail_id=mail_id, trace_parent=parent,
                                                        history=history)
        except AgentStoppedError:
            self._finished()
            raise
        if follow is not None:  # before its turn can end (the callback runs in order)
            with self._lock:
                self._followers[reply] = follow
        self._delivered(recipient, sender, content, reply, error_reply)
        return reply if users is None else users

    def track(self, recipient: str, sender: str | None, content: str,
              reply: Future[str]) -> None:
        """A message a member delivered itself (member to member on Ray): in flight until
        ``reply`` is done, as if this mail room had sent it."""
        with self._lock:
            self._in_flight += 1
        self._delivered(recipient, sender, content, reply, False)

    def count(self, reply: Future[str], member: str, sender: str | None, text: str) -> None:
        """A turn resumed from a session: in flight until ``reply`` is done."""
        with self._lock:
            self._in_flight += 1
        reply.add_done_callback(
            lambda done: self._turn_ended(done, member, sender, text.startswith(NOTICE)))

    def continue_numbering(self, last_seq: int) -> None:
        """New mail is numbered after ``last_seq`` (the session's last stored message)."""
        with self._lock:
            self._mail_seq = max(self._mail_seq, last_seq)

    def _queue(self, recipient: str, content: str, sender: str | None,
               mail_id: str | None) -> str | None:
        session = self.session
        if session is None:
            return None
        from autobyteus_like.store._records import MailRecord, MailState

        with self._lock:
            self._mail_seq += 1
            seq = self._mail_seq
        mail_id = mail_id or f"mail-{seq}"
        session.queue_mail(MailRecord(
            mail_id=mail_id, seq=seq, sender=sender, recipient=recipient, content=content,
            state=MailState.QUEUED))
        return mail_id

    def _delivered(self, recipient: str, sender: str | None, content: str,
                   reply: Future[str], error_reply: bool) -> None:
        self._publisher.publish(MessageDelivered(agent=self.name, sender=sender,
                                                 recipient=recipient, content=content))
        reply.add_done_callback(
            lambda done: self._turn_ended(done, recipient, sender, error_reply))

    def _turn_ended(
        self, reply: Future[str], member: str, sender: str | None, error_reply: bool
    ) -> None:
        """Runs on ``member``'s thread when the turn a message started ends. A failed turn
        tells the sender, unless the message was itself such a notice (no ping-pong)."""
        error = reply.exception()
        with self._lock:
            stopping = self._stopping
            follow = self._followers.pop(reply, None)
            if error is None:
                self._answers[member] = reply.result()
                self._errors.pop(member, None)
            else:
                self._errors[member] = error
        answer = None if error is not None else reply.result()
        if isinstance(answer, HandedOver) and not stopping:
            self.hand_over(answer, follow=follow)
        elif follow is not None:  # settled before the team can be quiet (``_finished``)
            if error is not None:
                follow.set_exception(error)
            elif isinstance(answer, HandedOver):
                follow.set_exception(AgentStoppedError(
                    f"team {self.name!r} stopped before {answer.receiver} took the "
                    f"conversation {member} handed over"))
            else:
                follow.set_result(reply.result())
        ended = isinstance(error, UsageLimitExceededError)  # the whole run ended: no notice
        if (error is not None and sender is not None and not stopping and not error_reply
                and not ended):
            # the sender is gone: no one to tell; the notice cannot be stored (the session's
            # writing stopped after a failed write): not sent, the resume tells again
            with contextlib.suppress(AgentStoppedError, StoreError):
                self.send(sender, f"{NOTICE}{member}: {error}", member, error_reply=True)
        self._finished()

    def _finished(self) -> None:
        with self._lock:
            self._in_flight -= 1
            quiet = self._in_flight == 0
            if quiet:
                self._lock.notify_all()
            answer = self._answers.get(self.holder, "")
            error = self._errors.get(self.holder)
        if quiet:
            self._publisher.publish(TeamQuiescent(
                agent=self.name, answer=answer, error=None if error is None else str(error)))

    # -- handoffs ------------------------------------------------------------------------------

    def hand_over(self, handed: HandedOver, history: Sequence[HistoryMessage] | None = None,
                  note: str | None = None, follow: Future[str] | None = None) -> None:
        """Give the conversation ``handed`` carries to its receiver (its ``handoff_history``
        of it, or ``history``), which holds it from now on. With a session, its message was
        stored with the handoff call's result (the receiver with it): delivered under that
        id, once (``note``: its text as stored)."""
        receiver, sender = handed.receiver, handed.sender
        with self._lock:
            if len(self.handed_path) >= self.max_handoffs:  # handed round a loop: the run ends
                path = " -> ".join((self.run_holder, *self.handed_path, receiver))
                self._errors[sender] = AgentTurnError(sender, (
                    f"the conversation was handed over {len(self.handed_path)} times since "
                    f"the user's message ({path}); the team allows {self.max_handoffs} "
                    "(max_handoffs): not handed to " + receiver))
                refused: BaseException | None = self._errors[sender]
            else:
                refused = None
                self.handed_path.append(receiver)
                self.holder = receiver
                self._answers.pop(receiver, None)  # its answer to come is the team's
        if refused is not None:
            if follow is not None:
                follow.set_exception(refused)
            return
        self._publisher.publish(ConversationHandedOver(
            agent=self.name, sender=sender, receiver=receiver, reason=handed.reason,
            invocation_id=handed.invocation_id))
        given = history if history is not None else handed_history(
            handed.history, self.handoff_history.get(receiver, "all"))
        mail_id = handoff_mail_id(sender, handed.invocation_id)
        session = self.session
        stored = session is not None and session.has_mail(mail_id)
        try:
            self.send(receiver, note or handoff_note(sender, handed.reason), sender,
                      mail_id=mail_id if stored else None,
                      new_mail_id=None if stored else mail_id, history=given,
                      parent=self._parent_of(sender, handed.invocation_id), follow=follow)
        except (AgentStoppedError, StoreError) as exc:  # the receiver is gone: the run fails
            with self._lock:
                self._errors[receiver] = exc
            if follow is not None:
                follow.set_exception(exc)

    # -- quiescence --------------------------------------------------------------------------

    def stopping(self) -> None:
        """The team is stopping: wake every waiter; an answer not yet final stays so."""
        with self._lock:
            self._stopping = True
            self._stopped_busy = self._in_flight > 0

    def stopped(self) -> None:
        """The team has stopped."""
        with self._lock:
            self._lock.notify_all()

    def restarting(self) -> None:
        """Members are about to be restarted for a new run: the turns their stop fails tell
        no one (no notices), and the answers so far are forgotten once ``restarted``."""
        with self._lock:
            self._stopping = True

    def restarted(self) -> None:
        """The members run again: a new run, nothing in flight."""
        with self._lock:
            self._stopping = self._stopped_busy = False
            self.run_holder = self.holder
            self._in_flight = 0
            self._answers.clear()
            self._errors.clear()

    @property
    def quiescent(self) -> bool:
        """Whether no member is busy and no message is in flight."""
        with self._lock:
            return self._in_flight == 0

    def wait_quiescent(self, timeout: float | None = None) -> bool:
        """Block until the team is quiet (True), or the timeout passes (False)."""
        with self._lock:
            return self._lock.wait_for(lambda: self._in_flight == 0 or self._stopping, timeout)

    def wait_answer(self, timeout: float | None) -> tuple[str, BaseException | None]:
        """Wait until the team is quiet: the coordinator's answer and the error of its last
        turn. ``TimeoutError`` if still busy after ``timeout``; ``AgentStoppedError`` if the
        team stopped while a message was in flight."""
        with self._lock:
            if not self._lock.wait_for(lambda: self._in_flight == 0 or self._stopping, timeout):
                raise TimeoutError(f"team {self.name!r} was still busy after {timeout} s")
            if self._stopped_busy:  # an answer given before the stop was not the final one
                raise AgentStoppedError(f"team {self.name!r} stopped before the run finished")
            return self._answers.get(self.holder, ""), self._errors.get(self.holder)
