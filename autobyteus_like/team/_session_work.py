"""A team's session work: taking the session, and going on with (or abandoning) what its
last process left unfinished (``AgentTeam`` has it)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Self

from autobyteus_like.errors import UnfinishedSessionError
from autobyteus_like.mail._messaging import SEND_MESSAGE_TOOL
from autobyteus_like.team._handoffs import is_handoff_mail, resume_handoff, retake_handoff

if TYPE_CHECKING:
    from autobyteus_like.mail._room import MailRoom
    from autobyteus_like.runtime._backend import Member
    from autobyteus_like.store._session import Session
    from autobyteus_like.team._config import TeamConfig

__all__ = ["TeamSessionWork"]


class TeamSessionWork:
    """Holding a team's session, resuming or abandoning what it left unfinished."""

    name: str
    config: TeamConfig
    session: Session | None
    mail: MailRoom
    agents: dict[str, Member]
    _lock: threading.Lock
    _resume_due: bool

    if TYPE_CHECKING:  # AgentTeam's own
        def conversation(self, conversation: str | None = None) -> Self: ...

    def _hold_session(self, session: Session) -> None:
        """Take the session for this team (``ConfigError`` if it needs a member or tool the
        config no longer has), and see what its last process left undelivered."""
        session.hold(self.name, {
            member.name: [SEND_MESSAGE_TOOL, *(tool if isinstance(tool, str) else tool.name
                                               for tool in member.tools)]
            for member in self.config.members})
        self.mail.continue_numbering(session.last_mail_seq())
        self.mail.holder = self.mail.run_holder = (session.holder()  # after a handoff
                                                   or self.config.coordinator)
        self._resume_due = True

    def _require_settled(self) -> None:
        """Before a message: ``UnfinishedSessionError`` while what the session's last process
        left unfinished has been neither resumed nor abandoned (nothing resumes by itself)."""
        if not self._resume_due:
            return
        session = self.session
        if session is None or session.standing() == "done":
            self._resume_due = False  # nothing was left
            return
        raise UnfinishedSessionError(session.name, f"team {self.name!r}'s work", "team")

    def abandon_unfinished(self, reason: str, *, conversation: str | None = None) -> None:
        """End what the session's last process left unfinished without going on with it:
        each member's turn fails with ``reason`` (its calls without a result INTERRUPTED),
        and messages not yet delivered are dropped (FAILED). ``conversation``: that
        conversation's session record (the default one's without)."""
        if conversation is not None:
            self.conversation(conversation).abandon_unfinished(reason)
            return
        with self._lock:
            due, self._resume_due = self._resume_due, False
        if not due or self.session is None:
            return
        for agent in self.agents.values():
            agent.abandon_unfinished(reason)
        self.session.drop_undelivered_mail(reason)

    def begin_resume(self) -> bool:
        """Resume every member's stored turns (each counted in flight) and deliver the
        messages no member received; whether there was anything."""
        with self._lock:
            due, self._resume_due = self._resume_due, False
        session = self.session
        if not due or session is None:
            return False
        found = False
        resumed = set()
        for name, agent in self.agents.items():
            retake_handoff(self.mail, name, self.agents, session)  # taken, not yet begun
            for turn in agent.resume():
                found = True
                resumed.add(name)
                self.mail.count(turn.reply, name, turn.sender, turn.text)
        for mail in session.undelivered_mail():
            found = True
            if not is_handoff_mail(mail):
                self.mail.send(mail.recipient, mail.content, mail.sender, mail_id=mail.mail_id)
            elif mail.sender not in resumed:  # (a resumed turn hands over as it ends)
                resume_handoff(self.mail, mail, self.agents, session)
        return found
