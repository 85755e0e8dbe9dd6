"""The team's mail: each message between members (or from the user), stored as ``QUEUED``
before it is delivered, then ``DELIVERED``, ``ANSWERED`` or ``FAILED``."""

from __future__ import annotations

import json

from autobyteus_like.errors import StoreError
from autobyteus_like.store._database import Database
from autobyteus_like.store._records import MailRecord, MailState
from autobyteus_like.store._schema import document
from autobyteus_like.store._transactions import Transactions

__all__ = ["MailTable"]


class MailTable:
    """The mail table."""

    def __init__(self, transactions: Transactions) -> None:
        self._tx = transactions

    def queue_mail(self, session: str, mail: MailRecord) -> None:
        """Record a message before it is delivered."""
        data = document({"sender": mail.sender, "content": mail.content})
        self._tx.write(session, lambda database: database.execute(
            "INSERT INTO mail (session, mail_id, seq, recipient, state, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (session, mail.mail_id, mail.seq, mail.recipient, mail.state.value, data)))

    def set_mail(self, session: str, mail_id: str, state: MailState, *,
                 answer: str | None = None, error: str | None = None) -> None:
        """Move a message to ``state`` (with the answer or error of the turn it started)."""

        def move(database: Database) -> None:
            rows = database.execute("SELECT data FROM mail WHERE session = ? AND mail_id = ?",
                                    (session, mail_id))
            if not rows:
                raise StoreError(f"no message {mail_id!r} in session {session!r}")
            data = json.loads(rows[0][0])
            if answer is not None:
                data["answer"] = answer
            if error is not None:
                data["error"] = error
            database.execute(
                "UPDATE mail SET state = ?, data = ? WHERE session = ? AND mail_id = ?",
                (state.value, document(data), session, mail_id))

        self._tx.write(session, move)

    def has_mail(self, session: str, mail_id: str) -> bool:
        """Whether a message of that id is stored."""
        return bool(self._tx.rows("SELECT 1 FROM mail WHERE session = ? AND mail_id = ?",
                                  session, mail_id))

    def mail(self, session: str) -> list[MailRecord]:
        """Every message of the session, in the order they were sent."""
        rows = self._tx.rows(
            "SELECT mail_id, seq, recipient, state, data FROM mail WHERE session = ? "
            "ORDER BY seq", session)
        out = []
        for mail_id, seq, recipient, state, data in rows:
            values = json.loads(data)
            out.append(MailRecord(
                mail_id=str(mail_id), seq=int(seq), sender=values.get("sender"),
                recipient=str(recipient), content=values["content"], state=MailState(state),
                answer=values.get("answer"), error=values.get("error")))
        return out

    def undelivered(self, session: str) -> list[MailRecord]:
        """The messages stored and not yet delivered, in the order they were sent."""
        return [mail for mail in self.mail(session) if mail.state is MailState.QUEUED]
