"""Each agent's history: its messages in order, in conversations (``epoch`` counts resets)."""

from __future__ import annotations

import json
from typing import Any

from autobyteus_like.store._database import Database
from autobyteus_like.store._records import MessageRecord
from autobyteus_like.store._schema import document
from autobyteus_like.store._transactions import Transactions

__all__ = ["Histories"]


class Histories:
    """The agents and messages tables."""

    def __init__(self, transactions: Transactions) -> None:
        self._tx = transactions

    def append_messages(self, session: str, agent: str,
                        messages: list[dict[str, Any]]) -> None:
        """Add messages (``{role, content, tool_calls, tool_results}``) to the agent's
        history, in order."""

        def append(database: Database) -> None:
            epoch, seq = _agent_row(database, session, agent)
            for message in messages:
                database.execute(
                    "INSERT INTO messages (session, agent, seq, epoch, data) "
                    "VALUES (?, ?, ?, ?, ?)", (session, agent, seq, epoch, document(message)))
                seq += 1
            database.execute("UPDATE agents SET next_seq = ? WHERE session = ? AND agent = ?",
                             (seq, session, agent))

        self._tx.write(session, append)

    def reset_history(self, session: str, agent: str) -> None:
        """Start a new conversation for the agent (the old one stays for the transcript)."""

        def reset(database: Database) -> None:
            epoch, _ = _agent_row(database, session, agent)
            database.execute("UPDATE agents SET epoch = ? WHERE session = ? AND agent = ?",
                             (epoch + 1, session, agent))

        self._tx.write(session, reset)

    def history(self, session: str, agent: str, *, every_epoch: bool = False
                ) -> list[MessageRecord]:
        """The agent's conversation (the current one, or all of them), in order."""
        rows = self._tx.rows("SELECT epoch FROM agents WHERE session = ? AND agent = ?",
                             session, agent)
        if not rows:
            return []
        epoch = int(rows[0][0])
        selected = self._tx.rows(
            "SELECT seq, epoch, data FROM messages WHERE session = ? AND agent = ?"
            + ("" if every_epoch else " AND epoch = ?") + " ORDER BY seq",
            session, agent, *(() if every_epoch else (epoch,)))
        out = []
        for seq, row_epoch, data in selected:
            message = json.loads(data)
            out.append(MessageRecord(
                agent=agent, seq=int(seq), epoch=int(row_epoch), role=message["role"],
                content=message["content"], tool_calls=message.get("tool_calls", []),
                tool_results=message.get("tool_results", []),
                request_no=message.get("request_no"), carried=message.get("carried", []),
                images=message.get("images", [])))
        return out

    def agents(self, session: str) -> list[str]:
        """The agents that have a history in the session."""
        return [str(row[0]) for row in self._tx.rows(
            "SELECT agent FROM agents WHERE session = ? ORDER BY agent", session)]


def _agent_row(database: Database, session: str, agent: str) -> tuple[int, int]:
    rows = database.execute("SELECT epoch, next_seq FROM agents WHERE session = ? AND agent = ?",
                            (session, agent))
    if rows:
        return int(rows[0][0]), int(rows[0][1])
    database.execute("INSERT INTO agents (session, agent, epoch, next_seq) VALUES (?, ?, 0, 0)",
                     (session, agent))
    return 0, 0
