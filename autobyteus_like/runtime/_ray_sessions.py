"""Sessions for members on Ray: a host writes its members' turns and mail to the
session the driver holds, fenced by the driver's lease, and a restarted host resumes them.

- **Fenced.** A host writes under the driver's lease: its store is fenced by the lease's
  owner and generation (``SessionAddress``), so once another process takes the session over,
  every write of every host is refused (``SessionLostError``), as the driver's own are.
- **Stored before delivery.** A message a member sends is stored (``QUEUED``) before it goes
  to the teammate's actor, under the id ``sender/call`` (the sending call's id), so a call run
  again after a crash stores and delivers it once; the recipient takes each id once.
- **Resumed.** A host Ray restarted goes on with its members' unfinished turns at once, as a
  local agent does (``Agent.resume``), and takes the messages stored for its member that no
  turn took (the process that took them died first). Each turn's end is reported under the
  message's id, which is the driver's key for the reply it owes.
- **Settled by the driver.** A host that starts on a session a previous driver left
  unfinished waits, as a local agent does, for its driver to resume that work or abandon it
  (``settle_member``: the team's ``resume()`` or ``abandon_unfinished(reason)``).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from autobyteus_like.agent._agent import Agent
from autobyteus_like.events import AgentEvent
from autobyteus_like.runtime._ray_records import Delivered
from autobyteus_like.store._database import Durability
from autobyteus_like.store._records import MailRecord, MailState
from autobyteus_like.store._session import Session

__all__ = ["HostMail", "ResumedWork", "SessionAddress", "resume_member", "session_address",
           "settle_member"]


@dataclass(frozen=True, slots=True)
class SessionAddress:
    """Where a host finds the driver's session, and whose lease it writes under."""

    name: str
    location: str
    durability: Durability
    holder: str

    def attach(self) -> Session:
        """The session as this host writes it: fenced by the holder's lease generation as it
        stands (a session taken over since is refused at the first write)."""
        return Session.attached(self.name, self.location, self.durability, holder=self.holder)


def session_address(session: Session) -> SessionAddress:
    """The address of the driver's session (its lease owner is fixed when it is made)."""
    return SessionAddress(session.name, session.location, session.durability, session.owner)


@dataclass(frozen=True, slots=True)
class ResumedWork:
    """A turn a host went on with at its start: the message id its end is reported under."""

    message_id: str
    turn_id: int
    text: str
    sender: str | None
    reply: Future[str]


class HostMail:
    """One member's mail in its host: what it sends is stored first; what it receives is
    taken once per id. Without a session (``session`` None) nothing is stored or checked."""

    def __init__(self, session: Session | None, member: str) -> None:
        self.session = session
        self.member = member
        self._lock = threading.Lock()
        self._taken: set[str] = set()
        self._seq: int | None = None

    @property
    def has_session(self) -> bool:
        return self.session is not None

    def store(self, recipient: str, content: str, call_id: str) -> str | None:
        """Store a message before it is delivered: its id (the same however often the call
        that sends it runs), or None without a session."""
        session = self.session
        if session is None or not call_id:
            return None
        mail_id = f"{self.member}/{call_id}"
        if not session.has_mail(mail_id):
            session.queue_mail(MailRecord(
                mail_id=mail_id, seq=self._next_seq(session), sender=self.member,
                recipient=recipient, content=content, state=MailState.QUEUED))
        return mail_id

    def _next_seq(self, session: Session) -> int:
        """The order of a message among the session's: after the last one stored when this
        member first sent (processes number on their own: two may share a number; the
        store's order only needs to keep each sender's messages in order)."""
        with self._lock:
            if self._seq is None:
                self._seq = session.last_mail_seq()
            self._seq += 1
            return self._seq

    def take(self, message_id: str) -> bool:
        """Whether the member takes this message now (False: it took it already, in this
        process or, as stored, in an earlier one)."""
        if self.session is None:
            return True
        with self._lock:
            if message_id in self._taken:
                return False
            self._taken.add(message_id)
            return True

    def resume(self, agent: Agent, *, undelivered: bool) -> list[ResumedWork]:
        """Go on with what the session's earlier processes left of this member (call once,
        after the agent started, before any message reaches it): its unfinished turns, then
        (``undelivered``) the messages stored for it that no turn took."""
        session = self.session
        if session is None:
            return []
        mail_ids = self._stored_turns(session)
        work = [ResumedWork(mail_ids.get(turn.turn_id) or f"turn:{turn.turn_id}", turn.turn_id,
                            turn.text, turn.sender, turn.reply) for turn in agent.resume()]
        for mail in session.undelivered_mail() if undelivered else ():
            if mail.recipient != self.member or not self.take(mail.mail_id):
                continue
            reply = agent.send(mail.content, sender=mail.sender, mail_id=mail.mail_id)
            work.append(ResumedWork(mail.mail_id, 0, mail.content, mail.sender, reply))
        return work

    def abandon(self, agent: Agent, reason: str) -> None:
        """End what the session's earlier processes left of this member without going on
        with it (its turns fail with ``reason``), as a local agent does; their messages stay
        taken."""
        if self.session is not None:
            self._stored_turns(self.session)
            agent.abandon_unfinished(reason)

    def _stored_turns(self, session: Session) -> dict[int, str | None]:
        """The member's stored turns (turn id -> the mail id that began it), their mail
        counted as taken."""
        records = session.turns(self.member)
        mail_ids = {record.turn_id: record.mail_id for record in records}
        with self._lock:
            self._taken.update(m for m in mail_ids.values() if m is not None)
        return mail_ids

    def outgoing(self) -> list[MailRecord]:
        """The messages this member sent whose turn has not ended (their delivery may not
        have reached the driver before an earlier process died: reported again)."""
        session = self.session
        if session is None:
            return []
        return [mail for mail in session.mail()
                if mail.sender == self.member
                and mail.state in (MailState.QUEUED, MailState.DELIVERED)]


def resume_member(agent: Agent, mail: HostMail, report: Callable[[AgentEvent], None],
                  ended: Callable[[str, Future[str]], None]) -> None:
    """A host Ray restarted on a session goes on with its member's unfinished work at once
    (the driver still owes those replies; each turn's end is reported under its message id,
    ``ended``), takes the messages the dead process took but never began, and reports again
    the deliveries of its member's messages still open (the dead process may have died before
    the driver heard of them; the driver counts each id once)."""
    if not mail.has_session:
        return
    for sent in mail.outgoing():
        report(Delivered(agent=mail.member, message_id=sent.mail_id,
                         recipient=sent.recipient, content=sent.content, incarnation=""))
    for item in mail.resume(agent, undelivered=True):
        item.reply.add_done_callback(functools.partial(_ended, ended, item.message_id))


def settle_member(agent: Agent, mail: HostMail, abandon: str | None,
                  ended: Callable[[str, Future[str]], None],
                  ) -> list[tuple[str, int, str, str | None]]:
    """What a session's last driver left of a member, settled as its new driver asks (as a
    local agent settles it: nothing resumes by itself): go on with it (``abandon`` None; the
    turns resumed, as (message id, turn id, text, sender), whose replies the driver owes from
    now on) or end it with the reason ``abandon``. The driver delivers what is undelivered
    itself. Once: asked again (or after a restart went on with it), nothing is left."""
    if not mail.has_session:
        return []
    if abandon is not None:
        mail.abandon(agent, abandon)
        return []
    work = mail.resume(agent, undelivered=False)
    for item in work:
        item.reply.add_done_callback(functools.partial(_ended, ended, item.message_id))
    return [(w.message_id, w.turn_id, w.text, w.sender) for w in work]


def _ended(ended: Callable[[str, Future[str]], None], message_id: str,
           reply: Future[str]) -> None:
    ended(message_id, reply)
