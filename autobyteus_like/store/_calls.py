"""Each tool call: where it stands (``CallState``) and its result once it has one. A person's
decision on a waiting call is a compare-and-set: two decisions racing, one wins."""

from __future__ import annotations

import json
from typing import Any

from autobyteus_like.errors import CallAlreadyDecidedError, SessionInUseError, StoreError
from autobyteus_like.store._database import Database
from autobyteus_like.store._leases import owner_is_gone
from autobyteus_like.store._records import CallRecord, CallState
from autobyteus_like.store._schema import document
from autobyteus_like.store._transactions import Transactions, now_ms

__all__ = ["Calls"]

_COLUMNS = "agent, invocation_id, turn_id, position, state, data"


class Calls:
    """The calls table."""

    def __init__(self, transactions: Transactions) -> None:
        self._tx = transactions

    def record_calls(self, session: str, calls: list[CallRecord]) -> None:
        """Record calls where they stand now (a response's, in order; each inserted, or moved
        on if already recorded)."""

        def record(database: Database) -> None:
            for call in calls:
                database.execute(
                    "INSERT INTO calls (session, agent, invocation_id, turn_id, position, "
                    "state, data) VALUES (?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (session, agent, invocation_id) DO UPDATE "
                    "SET state = excluded.state, data = excluded.data, "
                    "position = excluded.position",
                    (session, call.agent, call.invocation_id, call.turn_id, call.position,
                     call.state.value, document(_call_data(call))))

        self._tx.write(session, record)

    def save_call(self, session: str, call: CallRecord) -> None:
        """Record one call where it stands now."""
        self.record_calls(session, [call])

    def set_call(self, session: str, agent: str, invocation_id: str, state: CallState,
                 result: dict[str, Any] | None = None) -> None:
        """Move a call to ``state`` (with its result, when it has one)."""

        def move(database: Database) -> None:
            rows = database.execute(
                "SELECT data FROM calls WHERE session = ? AND agent = ? AND invocation_id = ?",
                (session, agent, invocation_id))
            if not rows:
                raise StoreError(f"no call {invocation_id!r} of {agent!r} in session "
                                 f"{session!r}")
            data = json.loads(rows[0][0])
            if result is not None:
                data["result"] = result
            database.execute(
                "UPDATE calls SET state = ?, data = ? WHERE session = ? AND agent = ? "
                "AND invocation_id = ?", (state.value, document(data), session, agent,
                                          invocation_id))

        self._tx.write(session, move)

    def decide_call(self, session: str, invocation_id: str, state: CallState,
                    result: dict[str, Any] | None = None) -> CallRecord:
        """A person's decision (``APPROVED``, or ``DENIED`` with its result) on a call that
        waits for one, in a session no live process holds: checked and written in one
        transaction, so of two decisions racing exactly one wins; the other gets
        ``CallAlreadyDecidedError`` saying how the call was decided. A holder whose lease ran
        out is fenced off (the generation grows). The call as decided."""

        def decide(database: Database) -> CallRecord:
            lock = " FOR UPDATE" if database.dialect == "postgres" else ""
            held = database.execute(
                f"SELECT owner, lease_until_ms FROM sessions WHERE name = ?{lock}", (session,))
            if held and held[0][0] and held[0][1] is not None and int(held[0][1]) > now_ms() \
                    and not owner_is_gone(str(held[0][0])):
                raise SessionInUseError(session, str(held[0][0]), int(held[0][1]))
            if held and held[0][0]:  # a holder whose lease ran out (paused, or gone): the
                # decision takes the session from it, so its later writes are refused (a
                # paused run let go must not decide the call again, nor run a denied one)
                database.execute(
                    "UPDATE sessions SET owner = NULL, lease_until_ms = NULL, "
                    "generation = generation + 1 WHERE name = ?", (session,))
            rows = database.execute(
                f"SELECT {_COLUMNS} FROM calls WHERE session = ? AND invocation_id = ?{lock}",
                (session, invocation_id))
            if not rows:
                raise StoreError(f"no call {invocation_id!r} in session {session!r}")
            call = _call(rows[0])
            if call.state is not CallState.WAITING_APPROVAL:
                raise CallAlreadyDecidedError(session, invocation_id, call.state.value)
            data = _call_data(call)
            if result is not None:
                data["result"] = result
            database.execute(
                "UPDATE calls SET state = ?, data = ? WHERE session = ? AND invocation_id = ? "
                "AND state = ?", (state.value, document(data), session, invocation_id,
                                  CallState.WAITING_APPROVAL.value))
            return _call((call.agent, invocation_id, call.turn_id, call.position, state.value,
                          document(data)))

        return self._tx.write(None, decide)

    def calls(self, session: str, agent: str, turn_id: int | None = None) -> list[CallRecord]:
        """An agent's calls (of one turn, or all), in order."""
        rows = self._tx.rows(
            f"SELECT {_COLUMNS} FROM calls WHERE session = ? AND agent = ?"
            + (" AND turn_id = ?" if turn_id is not None else "")
            + " ORDER BY turn_id, position",
            session, agent, *((turn_id,) if turn_id is not None else ()))
        return [_call(row) for row in rows]

    def find_call(self, session: str, invocation_id: str) -> CallRecord | None:
        """A call of any agent of the session, by its id."""
        rows = self._tx.rows(
            f"SELECT {_COLUMNS} FROM calls WHERE session = ? AND invocation_id = ? "
            "ORDER BY agent", session, invocation_id)
        return _call(rows[0]) if rows else None

    def waiting_calls(self, session: str) -> list[CallRecord]:
        """The calls of the session that wait for a person, every agent's."""
        rows = self._tx.rows(
            f"SELECT {_COLUMNS} FROM calls WHERE session = ? AND state = ? "
            "ORDER BY agent, turn_id, position", session, CallState.WAITING_APPROVAL.value)
        return [_call(row) for row in rows]


def _call_data(call: CallRecord) -> dict[str, Any]:
    return {"request_no": call.request_no, "name": call.name, "arguments": call.arguments,
            "why": call.why, "result": call.result}


def _call(row: tuple[Any, ...]) -> CallRecord:
    agent, invocation_id, turn_id, position, state, data = row
    values = json.loads(data)
    return CallRecord(
        agent=str(agent), invocation_id=str(invocation_id), turn_id=int(turn_id),
        request_no=int(values["request_no"]), position=int(position), name=values["name"],
        arguments=values["arguments"], why=values.get("why"), state=CallState(state),
        result=values.get("result"))
