"""A run's usage, stored with the run: what it has spent of its budget (requests, tool calls,
tokens, cost), so a limit counts across a kill and a resume instead of starting from zero."""

from __future__ import annotations

import json
from typing import Any

from autobyteus_like.store._schema import document
from autobyteus_like.store._transactions import Transactions

__all__ = ["RunUsage"]


class RunUsage:
    """The usage table: one JSON document per (session, run)."""

    def __init__(self, transactions: Transactions) -> None:
        self._tx = transactions

    def save_usage(self, session: str, usage: dict[str, Any], run: str = "team") -> None:
        """Record what run ``run`` of the session has spent so far (replacing the last
        figures; written with the step that spent it when called inside its transaction)."""
        data = document(usage)
        self._tx.write(session, lambda database: database.execute(
            "INSERT INTO usage (session, run, data) VALUES (?, ?, ?) "
            "ON CONFLICT (session, run) DO UPDATE SET data = excluded.data",
            (session, run, data)))

    def usage(self, session: str, run: str = "team") -> dict[str, Any] | None:
        """What run ``run`` of the session has spent, as last recorded (None: nothing yet)."""
        rows = self._tx.rows("SELECT data FROM usage WHERE session = ? AND run = ?",
                             session, run)
        return json.loads(rows[0][0]) if rows else None
