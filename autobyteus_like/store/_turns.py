"""Each agent's turns: the message that started one (``queued`` until it begins, then
``open``) and how it ended (``done`` or ``failed``, with the answer or error)."""

from __future__ import annotations

import json

from autobyteus_like.store._database import Database
from autobyteus_like.store._records import TurnRecord
from autobyteus_like.store._schema import document
from autobyteus_like.store._transactions import Transactions

__all__ = ["Turns"]


class Turns:
    """The turns table."""

    def __init__(self, transactions: Transactions) -> None:
        self._tx = transactions

    def open_turn(self, session: str, turn: TurnRecord) -> None:
        """Record a turn's message (``queued`` until it begins, or ``open``); a turn already
        recorded is left as it is (a message delivered again on resume)."""
        data = document({"text": turn.text, "sender": turn.sender, "mail_id": turn.mail_id,
                         **({"reset": True} if turn.reset else {})})
        self._tx.write(session, lambda database: database.execute(
            "INSERT INTO turns (session, agent, turn_id, state, data) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (session, agent, turn_id) DO NOTHING",
            (session, turn.agent, turn.turn_id, turn.state, data)))

    def begin_turn(self, session: str, agent: str, turn_id: int) -> None:
        """Record that a queued turn began (its message is in the history from now on)."""
        self._tx.write(session, lambda database: database.execute(
            "UPDATE turns SET state = 'open' WHERE session = ? AND agent = ? AND turn_id = ?",
            (session, agent, turn_id)))

    def close_turn(self, session: str, agent: str, turn_id: int, *, answer: str | None,
                   error: str | None) -> None:
        """Record how a turn ended."""

        def close(database: Database) -> None:
            rows = database.execute(
                "SELECT data FROM turns WHERE session = ? AND agent = ? AND turn_id = ?",
                (session, agent, turn_id))
            if not rows:
                return
            data = {**json.loads(rows[0][0]), "answer": answer, "error": error}
            database.execute(
                "UPDATE turns SET state = ?, data = ? WHERE session = ? AND agent = ? "
                "AND turn_id = ?",
                ("failed" if error is not None else "done", document(data), session, agent,
                 turn_id))

        self._tx.write(session, close)

    def turns(self, session: str, agent: str | None = None) -> list[TurnRecord]:
        """The turns of one agent (or all), in order."""
        rows = self._tx.rows(
            "SELECT agent, turn_id, state, data FROM turns WHERE session = ?"
            + (" AND agent = ?" if agent is not None else "") + " ORDER BY agent, turn_id",
            session, *((agent,) if agent is not None else ()))
        out = []
        for row_agent, turn_id, state, data in rows:
            values = json.loads(data)
            out.append(TurnRecord(agent=str(row_agent), turn_id=int(turn_id),
                                  text=values["text"], sender=values.get("sender"),
                                  mail_id=values.get("mail_id"), state=str(state),
                                  answer=values.get("answer"), error=values.get("error"),
                                  reset=bool(values.get("reset"))))
        return out
